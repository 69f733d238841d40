//! `ctywire-seasonings`: a Seasonings plugin as a Terraform provider.
//!
//! * `ctywire-seasonings serve -- COMMAND [ARG...]` runs the plugin, asks
//!   its schemas and serves them to Terraform (what Terraform starts).
//! * `ctywire-seasonings install --dir DIR -- COMMAND [ARG...]` writes
//!   `DIR/terraform-provider-NAME` (NAME the plugin's own), a launcher
//!   that runs `serve` with the command fixed by absolute paths: what a
//!   CLI configuration's `dev_overrides` points at (`NAME = DIR`).
//! * `ctywire-seasonings middleware [PLAN.json | -] -- COMMAND [ARG...]`
//!   runs the plugin's plan hooks over a saved plan's JSON (`terraform
//!   show -json PLANFILE`, from the file or stdin), prints what they say,
//!   and exits 1 when one fails: a check in CI before `terraform apply`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ctywire_seasonings::host::{Plugin, PluginOptions};
use ctywire_seasonings::provider::{builder, middleware};

const USAGE: &str = "usage:
  ctywire-seasonings serve -- COMMAND [ARG...]
  ctywire-seasonings install --dir DIR -- COMMAND [ARG...]
  ctywire-seasonings middleware [PLAN.json | -] -- COMMAND [ARG...]";

/// How the command ended: done, or a middleware hook failed the plan
/// (what it said is printed already).
enum Done {
    Ok,
    Failed,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match run(&args) {
        Ok(Done::Ok) => 0,
        Ok(Done::Failed) => 1,
        Err(e) => {
            eprintln!("ctywire-seasonings: {e}");
            1
        }
    };
    std::process::exit(code);
}

fn run(args: &[String]) -> Result<Done, String> {
    let (before, command) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => return Err(format!("the plugin command follows `--`\n{USAGE}")),
    };
    let Some((program, plugin_args)) = command.split_first() else {
        return Err(format!("no plugin command after `--`\n{USAGE}"));
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let done = |()| Done::Ok;
    match before {
        [verb] if verb == "serve" => runtime.block_on(serve(program, plugin_args)).map(done),
        [verb, flag, dir] if verb == "install" && flag == "--dir" => runtime
            .block_on(install(Path::new(dir), program, plugin_args))
            .map(done),
        [verb] if verb == "middleware" => runtime.block_on(hooks("-", program, plugin_args)),
        [verb, plan] if verb == "middleware" => runtime.block_on(hooks(plan, program, plugin_args)),
        _ => Err(USAGE.to_string()),
    }
}

/// `middleware`: the plan's JSON from `plan` (`-`: stdin), the plugin's
/// hooks over it, each finding printed as Terraform prints diagnostics
/// (`Warning:` / `Error:`, then where, then the hook), and a count.
async fn hooks(plan: &str, program: &str, args: &[String]) -> Result<Done, String> {
    let text = if plan == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("reading the plan from stdin: {e}"))?;
        buf
    } else {
        std::fs::read(plan).map_err(|e| format!("{plan}: {e}"))?
    };
    let shown = if plan == "-" { "stdin" } else { plan };
    let changes = middleware::read_plan(&text).map_err(|e| format!("{shown}: {e}"))?;
    let plugin = Plugin::spawn(program, args.iter().cloned(), PluginOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let findings = middleware::run(&plugin, &changes).await;
    plugin.shutdown().await;
    let findings = findings.map_err(|e| e.to_string())?;
    for f in &findings {
        let severity = if f.fail { "Error" } else { "Warning" };
        let at = f.address.as_deref().unwrap_or("the plan");
        let message = f.message.as_deref().unwrap_or("(no message)");
        println!("{severity}: {at}: {message} ({})", f.hook);
    }
    let fails = findings.iter().filter(|f| f.fail).count();
    let failed = fails > 0;
    println!(
        "{} resource changes checked: {fails} failed, {} warnings",
        changes.len(),
        findings.len() - fails
    );
    Ok(if failed { Done::Failed } else { Done::Ok })
}

async fn serve(program: &str, args: &[String]) -> Result<(), String> {
    let plugin = Plugin::spawn(program, args.iter().cloned(), PluginOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let plugin = Arc::new(plugin);
    // Built here rather than by `serve`, which exits at once on a schema
    // problem: returning instead drops the plugin, which stops its process.
    let framework = builder(plugin.clone())
        .await
        .map_err(|e| e.to_string())?
        .build()
        .map_err(|e| format!("the plugin's schemas cannot be served: {e}"))?;
    // Serves until Terraform is done; the plugin ends with this process
    // (and exits by itself when its stdin closes).
    framework.serve().await;
    Ok(())
}

async fn install(dir: &Path, program: &str, args: &[String]) -> Result<(), String> {
    let program = resolve(program)?;
    let args: Vec<String> = args.iter().map(|a| absolute_if_file(a)).collect();
    // The plugin's own name names the provider: ask it.
    let plugin = Plugin::spawn(&program, args.iter().cloned(), PluginOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let name = plugin.info().name.clone();
    plugin.shutdown().await;
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "the plugin's name {name:?} cannot name a provider (lower-case letters, digits, - and _)"
        ));
    }
    let me = std::env::current_exe().map_err(|e| format!("where is this program: {e}"))?;
    let mut line = vec![
        quote(&me.display().to_string()),
        "serve".into(),
        "--".into(),
    ];
    line.push(quote(&program.display().to_string()));
    line.extend(args.iter().map(|a| quote(a)));
    let script = format!(
        "#!/bin/sh\n# The Seasonings plugin {name:?} as a Terraform provider (written by `ctywire-seasonings install`).\nexec {}\n",
        line.join(" ")
    );
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("terraform-provider-{name}"));
    std::fs::write(&path, script).map_err(|e| format!("{}: {e}", path.display()))?;
    make_executable(&path)?;
    println!("{}", path.display());
    Ok(())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Err("the launcher is a POSIX shell script; this system has no sh".into())
}

/// The program by absolute path: as given when it names a file, else
/// found on PATH, as the shell would.
fn resolve(program: &str) -> Result<PathBuf, String> {
    let given = Path::new(program);
    if program.contains(std::path::MAIN_SEPARATOR) || program.contains('/') {
        return std::path::absolute(given).map_err(|e| format!("{program}: {e}"));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .and_then(|p| std::path::absolute(p).ok())
        .ok_or_else(|| format!("{program} is not on PATH"))
}

/// An argument naming an existing file, by absolute path (the launcher
/// runs from wherever Terraform does); any other argument as it is.
fn absolute_if_file(arg: &str) -> String {
    match Path::new(arg).exists() {
        true => std::path::absolute(arg)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| arg.to_string()),
        false => arg.to_string(),
    }
}

/// A word for sh, single-quoted.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
