//! `ctywire provider docs` and `ctywire provider release`: from `cargo
//! build` to the registry's pages and to archives `terraform init`
//! installs.

mod build;
mod docs;
mod launch;
mod release;

use std::path::{Path, PathBuf};

use clap::Subcommand;

#[derive(Subcommand)]
pub enum ProviderCommand {
    /// Write the registry's documentation (docs/) from the provider's
    /// schemas: the provider is built, launched as Terraform launches it
    /// and asked for them. Examples come from examples/, overrides from
    /// templates/ (tfplugindocs' conventions).
    Docs {
        /// The provider's folder: its Cargo.toml, examples/, templates/,
        /// and docs/ to write.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// A provider executable to ask instead of building the folder's
        /// package (any provider on protocol 6, in any language).
        #[arg(long)]
        binary: Option<PathBuf>,
        /// The provider's type (`kv`); by default from the executable's
        /// name, terraform-provider-TYPE.
        #[arg(long)]
        name: Option<String>,
        /// Write nothing; fail when docs/ differs from what would be
        /// written or breaks a registry rule.
        #[arg(long)]
        check: bool,
    },
    /// Build the provider for each --target and write its release to
    /// --out: release/ (the zips, SHA256SUMS, its signature, the
    /// manifest), filesystem-mirror/ and network-mirror/.
    Release {
        /// The provider's source address, [HOSTNAME/]NAMESPACE/TYPE.
        #[arg(long)]
        source: String,
        /// The version, MAJOR.MINOR.PATCH[-PRERELEASE], without a v.
        #[arg(long)]
        version: String,
        /// The package to build.
        #[arg(long, default_value = "Cargo.toml")]
        manifest_path: PathBuf,
        /// A Rust target triple to build for (repeatable); the host's by
        /// default. Others need their standard library and a linker (see
        /// the README's "Other targets").
        #[arg(long = "target")]
        targets: Vec<String>,
        /// The cargo profile to build with.
        #[arg(long, default_value = "release")]
        profile: String,
        /// Where to write.
        #[arg(long, default_value = "dist")]
        out: PathBuf,
        /// Sign the checksums with this GPG key (an id or e-mail gpg knows).
        #[arg(long)]
        gpg_key: Option<String>,
        /// The gpg program.
        #[arg(long, default_value = "gpg", requires = "gpg_key")]
        gpg_program: String,
    },
}

pub fn run(command: ProviderCommand) -> Result<(), String> {
    match command {
        ProviderCommand::Docs {
            dir,
            binary,
            name,
            check,
        } => provider_docs(&dir, binary, name, check),
        ProviderCommand::Release {
            source,
            version,
            manifest_path,
            targets,
            profile,
            out,
            gpg_key,
            gpg_program,
        } => {
            // Everything that can be refused is, before a long build.
            release::parse_source(&source)?;
            release::check_version(&version)?;
            let targets = if targets.is_empty() {
                vec![build::host()?]
            } else {
                targets
            };
            // Every target checked (its platform, its standard library),
            // and gpg found, before the first build.
            let host = build::host()?;
            let mut platforms = Vec::new();
            for target in &targets {
                platforms.push(build::platform(target)?);
                if *target != host {
                    build::buildable(target)?;
                }
            }
            if let Some(key) = &gpg_key {
                release::gpg_runs(&gpg_program, key)?;
            }
            let mut binaries = Vec::new();
            for (target, (platform, exe)) in targets.iter().zip(platforms) {
                let path = build::cargo_build(&manifest_path, target, &profile)?;
                binaries.push((platform, path, exe));
            }
            let written = release::write(&release::Release {
                source: &source,
                version: &version,
                binaries,
                out: &out,
                gpg: gpg_key.as_deref().map(|k| (k, gpg_program.as_str())),
            })?;
            for file in written {
                println!("{}", out.join(file).display());
            }
            Ok(())
        }
    }
}

fn provider_docs(
    dir: &Path,
    binary: Option<PathBuf>,
    name: Option<String>,
    check: bool,
) -> Result<(), String> {
    let binary = match binary {
        Some(b) => b,
        // The dev profile: the docs need the schema, not speed, and share
        // the build a `cargo build` or `cargo test` already made.
        None => build::cargo_build(&dir.join("Cargo.toml"), &build::host()?, "dev")?,
    };
    let name = match name {
        Some(n) => n,
        None => type_of_binary(&binary)?,
    };
    let schema = launch::provider_schema(&binary)?;
    let pages = docs::generate(&schema, &name, dir)?;
    let docs_dir = dir.join("docs");
    if check {
        let problems = docs::check(&docs_dir, &pages);
        if problems.is_empty() {
            println!("{}: {} pages, up to date", docs_dir.display(), pages.len());
            return Ok(());
        }
        return Err(format!(
            "{} is not what the registry should get:\n  {}",
            docs_dir.display(),
            problems.join("\n  ")
        ));
    }
    // Pages of things the provider no longer has go; guides stay.
    for kind in docs::Kind::ALL {
        let folder = docs_dir.join(kind.folder());
        if folder.is_dir() {
            std::fs::remove_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        }
    }
    for (relative, text) in &pages {
        let path = docs_dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}", path.display());
    }
    Ok(())
}

/// `kv` from `terraform-provider-kv`, `terraform-provider-kv_v1.2.3` or
/// `terraform-provider-kv.exe`.
fn type_of_binary(binary: &Path) -> Result<String, String> {
    let file = binary
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = file.strip_suffix(".exe").unwrap_or(&file);
    let name = stem
        .strip_prefix("terraform-provider-")
        .map(|rest| rest.split_once("_v").map_or(rest, |(n, _)| n))
        .filter(|n| !n.is_empty());
    name.map(str::to_string).ok_or_else(|| {
        format!(
            "{}: not named terraform-provider-TYPE; say the type with --name",
            binary.display()
        )
    })
}
