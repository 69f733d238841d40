//! A provider's release as the registry and Terraform's installers take
//! it: per platform a zip holding `terraform-provider-NAME_vVERSION`, the
//! `_SHA256SUMS` file (and its detached GPG signature when a key is
//! given), the `_manifest.json` naming protocol 6.0; and the same archives
//! laid out as a filesystem mirror (the packed layout) and as a network
//! mirror (its JSON index, with `h1:` hashes).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use sha2::{Digest, Sha256};

/// The manifest the registry reads: which protocol versions the provider
/// speaks (ctywire-tfplugin6 serves protocol 6 only).
const MANIFEST: &str =
    "{\n  \"version\": 1,\n  \"metadata\": {\n    \"protocol_versions\": [\"6.0\"]\n  }\n}\n";
/// An existing network mirror index read to add a version to it.
const MAX_INDEX_BYTES: u64 = 16 << 20;

/// What is released.
pub struct Release<'a> {
    /// The provider's source address, `HOSTNAME/NAMESPACE/TYPE`.
    pub source: &'a str,
    /// Its version, without a `v`.
    pub version: &'a str,
    /// Each platform (`linux_amd64`) with its executable, and whether the
    /// platform's executables end in `.exe`.
    pub binaries: Vec<(String, PathBuf, bool)>,
    /// The output folder.
    pub out: &'a Path,
    /// A GPG key to sign the checksums with, and the program to run.
    pub gpg: Option<(&'a str, &'a str)>,
}

/// A source address split: hostname, namespace, type.
pub fn parse_source(source: &str) -> Result<(&str, &str, &str), String> {
    let parts: Vec<&str> = source.split('/').collect();
    let (host, namespace, name) = match parts[..] {
        [namespace, name] => ("registry.terraform.io", namespace, name),
        [host, namespace, name] => (host, namespace, name),
        _ => {
            return Err(format!(
                "--source {source:?}: a provider source address is [HOSTNAME/]NAMESPACE/TYPE"
            ))
        }
    };
    let label = |what: &str, s: &str, extra: &[char]| {
        let ok = !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || extra.contains(&c))
            && !s.starts_with('-')
            && !s.ends_with('-');
        ok.then_some(()).ok_or_else(|| {
            format!("--source {source:?}: {what} {s:?} is not a valid name (letters, digits and -)")
        })
    };
    label("the hostname", host, &['.', ':'])?;
    label("the namespace", namespace, &[])?;
    label("the type", name, &[])?;
    if name.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(format!(
            "--source {source:?}: the type {name:?} must be lowercase (Terraform names the binary after it)"
        ));
    }
    Ok((host, namespace, name))
}

/// A version as the registry takes it: `MAJOR.MINOR.PATCH[-PRERELEASE]`.
pub fn check_version(version: &str) -> Result<(), String> {
    if let Some(bare) = version.strip_prefix('v') {
        return Err(format!(
            "--version {version:?}: without the v (the archives are named {bare}, the binary v{bare})"
        ));
    }
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (version, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let ok = numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && pre.is_none_or(|p| {
            !p.is_empty()
                && p.split('.').all(|part| {
                    !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                })
        });
    ok.then_some(()).ok_or_else(|| {
        format!("--version {version:?}: not a semantic version MAJOR.MINOR.PATCH[-PRERELEASE]")
    })
}

/// Writes the release; returns the files written, relative to `out`.
pub fn write(release: &Release) -> Result<Vec<PathBuf>, String> {
    let (host, namespace, name) = parse_source(release.source)?;
    check_version(release.version)?;
    let version = release.version;
    let stem = format!("terraform-provider-{name}_{version}");
    let dist = release.out.join("release");
    let fs_mirror = release
        .out
        .join("filesystem-mirror")
        .join(host)
        .join(namespace)
        .join(name);
    let net_mirror = release
        .out
        .join("network-mirror")
        .join(host)
        .join(namespace)
        .join(name);
    for dir in [&dist, &fs_mirror, &net_mirror] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut written = Vec::new();
    let mut sums = BTreeMap::new();
    let mut archives = BTreeMap::new();
    for (platform, binary, exe) in &release.binaries {
        let zip_name = format!("{stem}_{platform}.zip");
        let inner = format!(
            "terraform-provider-{name}_v{version}{}",
            if *exe { ".exe" } else { "" }
        );
        let zip_path = dist.join(&zip_name);
        pack(binary, &inner, &zip_path)?;
        sums.insert(zip_name.clone(), sha256_file(&zip_path)?);
        archives.insert(
            platform.clone(),
            (zip_name.clone(), hash1_of_zip(&zip_path)?),
        );
        written.push(zip_path.clone());
        for mirror in [&fs_mirror, &net_mirror] {
            let to = mirror.join(&zip_name);
            place(&zip_path, &to)?;
            written.push(to);
        }
    }
    let manifest = dist.join(format!("{stem}_manifest.json"));
    write_file(&manifest, MANIFEST.as_bytes())?;
    sums.insert(
        format!("{stem}_manifest.json"),
        hex(&Sha256::digest(MANIFEST.as_bytes())),
    );
    written.push(manifest);
    // sha256sum's format, as the registry reads it: hash, two spaces, name.
    let sums_text: String = sums.iter().map(|(f, h)| format!("{h}  {f}\n")).collect();
    let sums_path = dist.join(format!("{stem}_SHA256SUMS"));
    write_file(&sums_path, sums_text.as_bytes())?;
    written.push(sums_path.clone());
    if let Some((key, program)) = release.gpg {
        let sig = dist.join(format!("{stem}_SHA256SUMS.sig"));
        sign(program, key, &sums_path, &sig)?;
        written.push(sig);
    }
    written.extend(network_index(&net_mirror, version, &archives)?);
    Ok(written
        .into_iter()
        .map(|p| {
            p.strip_prefix(release.out)
                .map(Path::to_path_buf)
                .unwrap_or(p)
        })
        .collect())
}

/// The zip Terraform unpacks: the executable alone, mode 0755, deflated,
/// with a fixed time so the same binary makes the same archive.
fn pack(binary: &Path, inner: &str, to: &Path) -> Result<(), String> {
    use zip::write::SimpleFileOptions;
    let mut input = File::open(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    let file = File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o755)
        .last_modified_time(zip::DateTime::default())
        .large_file(false);
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", to.display());
    zip.start_file(inner, options).map_err(|e| fail(&e))?;
    io::copy(&mut input, &mut zip).map_err(|e| fail(&e))?;
    zip.finish().map_err(|e| fail(&e))?;
    Ok(())
}

/// Terraform's `h1:` hash of a package (Go's dirhash Hash1 over the zip's
/// files): SHA-256 of the lines `<hex sha256>  <name>\n`, sorted by name,
/// in standard base64. It is what `.terraform.lock.hcl` records.
pub fn hash1_of_zip(path: &Path) -> Result<String, String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let file = File::open(path).map_err(|e| fail(&e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| fail(&e))?;
    let mut lines = Vec::with_capacity(zip.len().min(1024));
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| fail(&e))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().to_string();
        if name.contains('\n') {
            return Err(format!("{}: a file name with a newline", path.display()));
        }
        let mut hasher = Sha256::new();
        io::copy(&mut entry, &mut hasher).map_err(|e| fail(&e))?;
        lines.push(format!("{}  {name}\n", hex(&hasher.finalize())));
    }
    lines.sort();
    let summary = Sha256::digest(lines.concat().as_bytes());
    Ok(format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary)
    ))
}

fn sha256_file(path: &Path) -> Result<String, String> {
    let mut file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    ::hex::encode(bytes)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The archive in a mirror: a hard link where the file system allows (a
/// provider is tens of megabytes), else a copy.
fn place(from: &Path, to: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(to);
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("{}: {e}", to.display()))
}

/// Whether `program` runs and has a secret key `key`: asked before the
/// builds, so a release that cannot be signed fails at once.
pub fn gpg_runs(program: &str, key: &str) -> Result<(), String> {
    let out = gpg(program, &["--batch", "--list-secret-keys", key])?;
    if !out.status.success() {
        return Err(format!(
            "--gpg-key {key:?}: gpg has no such secret key: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

fn gpg(program: &str, args: &[&str]) -> Result<std::process::Output, String> {
    Command::new(program).args(args).output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            format!(
                "--gpg-key needs gpg to sign the checksums, and {program:?} is not installed \
                 (on Debian: apt-get install gnupg)"
            )
        } else {
            format!("running {program}: {e}")
        }
    })
}

/// A detached binary signature of `file`, by gpg. OpenPGP is gpg's
/// business, not this command's.
fn sign(program: &str, key: &str, file: &Path, sig: &Path) -> Result<(), String> {
    let (sig, file) = (sig.to_string_lossy(), file.to_string_lossy());
    let args = [
        "--batch",
        "--yes",
        "--local-user",
        key,
        "--detach-sign",
        "--output",
        &sig,
        &file,
    ];
    let out = gpg(program, &args)?;
    if !out.status.success() {
        return Err(format!(
            "gpg could not sign with key {key:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// The network mirror protocol's JSON: `index.json` lists the versions
/// (those already there kept), `VERSION.json` each platform's archive by
/// relative URL with its `h1:` hash.
fn network_index(
    dir: &Path,
    version: &str,
    archives: &BTreeMap<String, (String, String)>,
) -> Result<Vec<PathBuf>, String> {
    let index_path = dir.join("index.json");
    let mut versions = serde_json::Map::new();
    if let Ok(file) = File::open(&index_path) {
        let mut text = String::new();
        file.take(MAX_INDEX_BYTES)
            .read_to_string(&mut text)
            .map_err(|e| format!("{}: {e}", index_path.display()))?;
        let old: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a mirror index: {e}", index_path.display()))?;
        if let Some(old) = old.get("versions").and_then(|v| v.as_object()) {
            versions.extend(old.keys().map(|k| (k.clone(), serde_json::json!({}))));
        }
    }
    versions.insert(version.to_string(), serde_json::json!({}));
    let index = serde_json::json!({ "versions": versions });
    let archives: serde_json::Map<String, serde_json::Value> = archives
        .iter()
        .map(|(platform, (zip, h1))| {
            (
                platform.clone(),
                serde_json::json!({ "url": zip, "hashes": [h1] }),
            )
        })
        .collect();
    let version_doc = serde_json::json!({ "archives": archives });
    let version_path = dir.join(format!("{version}.json"));
    for (path, doc) in [(&index_path, &index), (&version_path, &version_doc)] {
        let mut text = serde_json::to_string_pretty(doc).map_err(|e| e.to_string())?;
        text.push('\n');
        let mut f = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        f.write_all(text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(vec![index_path, version_path])
}

#[cfg(test)]
mod tests {
    use super::{check_version, parse_source};

    #[test]
    fn a_source_address_takes_the_public_registry_when_it_names_no_host() {
        assert_eq!(
            parse_source("ctywire/kv").unwrap(),
            ("registry.terraform.io", "ctywire", "kv")
        );
        assert_eq!(
            parse_source("example.com/ctywire/kv").unwrap(),
            ("example.com", "ctywire", "kv")
        );
        for bad in [
            "kv",
            "a/b/c/d",
            "x/../kv",
            "ctywire/KV",
            "ctywire/-kv",
            "ctywire/k v",
        ] {
            assert!(parse_source(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_version_is_semantic_and_written_without_its_v() {
        for good in ["0.1.0", "1.22.333", "1.0.0-beta.1", "2.0.0-rc-1"] {
            check_version(good).unwrap();
        }
        let e = check_version("v0.1.0").unwrap_err();
        assert!(e.contains("without the v"), "{e}");
        for bad in ["0.1", "1.0.0.0", "1.x.0", "1.0.0-", "1.0.0-a..b", ""] {
            assert!(check_version(bad).is_err(), "{bad}");
        }
    }
}
