//! Building a provider with cargo, for a Rust target, and naming that
//! target as Terraform names platforms (`linux_amd64`).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where the README says how to make other targets buildable.
pub const TARGETS_HELP: &str = "see \"Other targets\" in ctywire-cli's README";

/// The longest line of cargo's JSON messages read (a compiler message
/// with its rendering is a few KiB; this bounds a runaway one).
const MAX_MESSAGE_LINE: u64 = 4 << 20;

/// Terraform's `OS_ARCH` for a Rust target triple, and whether its
/// executables end in `.exe`.
pub fn platform(triple: &str) -> Result<(String, bool), String> {
    let arch = match triple.split('-').next().unwrap_or_default() {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "i686" | "i586" => "386",
        a if a.starts_with("armv7") || a == "arm" => "arm",
        other => {
            return Err(format!(
                "target {triple}: Terraform has no platform for the architecture {other:?} \
                 (it installs amd64, arm64, 386 and arm)"
            ))
        }
    };
    let os = if triple.contains("-linux-") || triple.ends_with("-linux") {
        "linux"
    } else if triple.contains("-apple-darwin") {
        "darwin"
    } else if triple.contains("-windows-") {
        "windows"
    } else if triple.contains("-freebsd") {
        "freebsd"
    } else if triple.contains("-openbsd") {
        "openbsd"
    } else {
        return Err(format!(
            "target {triple}: Terraform has no platform for its operating system \
             (it installs linux, darwin, windows, freebsd and openbsd)"
        ));
    };
    Ok((format!("{os}_{arch}"), os == "windows"))
}

/// The target rustc builds for when none is named.
pub fn host() -> Result<String, String> {
    let out = Command::new(rustc())
        .arg("-vV")
        .output()
        .map_err(|e| format!("running rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV names no host".to_string())
}

/// Builds the package of `manifest` for `target` with cargo's `profile`,
/// and returns its provider executable (the binary named
/// `terraform-provider-*`). The host's own target is built without
/// `--target`, where a plain `cargo build` puts it, so it shares that
/// build; another target must have its standard library installed, or it
/// fails with that reason before cargo runs.
pub fn cargo_build(manifest: &Path, target: &str, profile: &str) -> Result<PathBuf, String> {
    let host = host()?;
    let mut cmd = Command::new(cargo());
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--profile")
        .arg(profile)
        .arg("--message-format=json-render-diagnostics");
    if target != host {
        buildable(target)?;
        cmd.arg("--target").arg(target);
    }
    // cargo's progress and errors go to the user as they come.
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("running cargo: {e}"))?;
    let stdout = child.stdout.take().expect("piped");
    let mut executables = Vec::new();
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = String::new();
        let read = (&mut reader).take(MAX_MESSAGE_LINE).read_line(&mut line);
        match read {
            Ok(0) => break,
            Ok(_) => {
                if let Some(exe) = provider_executable(&line) {
                    executables.push(exe);
                }
            }
            Err(e) => return Err(format!("reading cargo's messages: {e}")),
        }
    }
    let status = child.wait().map_err(|e| format!("cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo build for {target} failed (its errors are above); a target other than the \
             host's also needs a linker for it: {TARGETS_HELP}"
        ));
    }
    match executables.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(format!(
            "{} builds no binary named terraform-provider-NAME (Terraform finds providers by \
             that name: [[bin]] name = \"terraform-provider-NAME\")",
            manifest.display()
        )),
        many => Err(format!(
            "{} builds {} binaries named terraform-provider-*: {}; one package, one provider",
            manifest.display(),
            many.len(),
            many.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The executable of a `compiler-artifact` message for a
/// `terraform-provider-*` binary.
fn provider_executable(line: &str) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    if message.get("reason")?.as_str()? != "compiler-artifact" {
        return None;
    }
    let target = message.get("target")?;
    let is_bin = target
        .get("kind")?
        .as_array()?
        .iter()
        .any(|k| k.as_str() == Some("bin"));
    let name = target.get("name")?.as_str()?;
    if !is_bin || !name.starts_with("terraform-provider-") {
        return None;
    }
    message.get("executable")?.as_str().map(PathBuf::from)
}

/// Whether rustc has `target`'s standard library: without it nothing can
/// be built for it, and the reason is that, not a compiler error.
pub fn buildable(target: &str) -> Result<(), String> {
    let out = Command::new(rustc())
        .args(["--print", "target-libdir", "--target", target])
        .output()
        .map_err(|e| format!("running rustc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "target {target} cannot be built: rustc does not know it ({}); {TARGETS_HELP}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let libdir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let has_std = std::fs::read_dir(&libdir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("libstd-") && name.ends_with(".rlib")
        })
    });
    if has_std {
        Ok(())
    } else {
        Err(format!(
            "target {target} cannot be built: its standard library is not installed (none in \
             {}); install it with `rustup target add {target}`, and give cargo a linker for \
             it: {TARGETS_HELP}",
            libdir.display()
        ))
    }
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn rustc() -> std::ffi::OsString {
    std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())
}

#[cfg(test)]
mod tests {
    use super::platform;

    #[test]
    fn rust_targets_are_named_as_terraform_names_platforms() {
        for (triple, want, exe) in [
            ("x86_64-unknown-linux-gnu", "linux_amd64", false),
            ("x86_64-unknown-linux-musl", "linux_amd64", false),
            ("aarch64-unknown-linux-gnu", "linux_arm64", false),
            ("armv7-unknown-linux-gnueabihf", "linux_arm", false),
            ("i686-unknown-linux-gnu", "linux_386", false),
            ("x86_64-apple-darwin", "darwin_amd64", false),
            ("aarch64-apple-darwin", "darwin_arm64", false),
            ("x86_64-pc-windows-msvc", "windows_amd64", true),
            ("x86_64-pc-windows-gnu", "windows_amd64", true),
            ("x86_64-unknown-freebsd", "freebsd_amd64", false),
        ] {
            assert_eq!(
                platform(triple).unwrap(),
                (want.to_string(), exe),
                "{triple}"
            );
        }
    }

    #[test]
    fn a_target_terraform_cannot_install_is_refused_with_why() {
        let e = platform("riscv64gc-unknown-linux-gnu").unwrap_err();
        assert!(e.contains("architecture \"riscv64gc\""), "{e}");
        let e = platform("wasm32-unknown-unknown").unwrap_err();
        assert!(e.contains("architecture"), "{e}");
        let e = platform("x86_64-unknown-illumos").unwrap_err();
        assert!(e.contains("operating system"), "{e}");
    }
}
