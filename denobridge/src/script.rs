//! Running a script: how it is started (Deno with denobridge's flags, or
//! any command), and one session with it — health first, the calls, then
//! shutdown — on ctywire's bridge runtime, every call bounded by a timeout.

use std::path::{Path as FsPath, PathBuf};
use std::time::Duration;

use ctywire::Value;
use ctywire_bridge::runtime::{CallError, Child, ChildOptions, Handlers, PeerOptions};
use ctywire_bridge::{Json, Object};

use crate::diag::{Diagnostic, Diagnostics};

/// The default bound on each call, health check included. Scripts create
/// real infrastructure, which can take minutes; a script that hangs still
/// fails, with its last stderr lines, instead of hanging Terraform.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// How long a script has to exit after `shutdown` before it is killed.
const GRACE: Duration = Duration::from_secs(5);
/// The longest line a script may answer with.
const MAX_ANSWER: usize = 16 << 20;

/// What runs the scripts: the provider's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Runner {
    /// The Deno binary.
    pub deno: PathBuf,
    /// Instead of Deno: the program and its leading arguments; the script's
    /// path is appended.
    pub command: Option<Vec<String>>,
    /// The bound on each call.
    pub timeout: Duration,
}

impl Default for Runner {
    fn default() -> Self {
        Runner {
            deno: default_deno(),
            command: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Where Deno is when the configuration does not say: `$DENO_BINARY`, else
/// `deno` from `PATH`. (denobridge downloads Deno here; this provider never
/// reaches the network on its own.)
pub fn default_deno() -> PathBuf {
    match std::env::var_os("DENO_BINARY") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from("deno"),
    }
}

/// Deno's runtime permissions (the `permissions` attribute).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Permissions {
    /// `--allow-all`.
    pub all: bool,
    /// `--allow-<each>`.
    pub allow: Vec<String>,
    /// `--deny-<each>`.
    pub deny: Vec<String>,
}

/// The script of one resource, data source or ephemeral resource.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    /// `path`: a file, a `file://` URL or a remote URL.
    pub path: String,
    /// `config_file` (empty: look for `deno.json`/`deno.jsonc` upwards, as
    /// denobridge does; `/dev/null`: none).
    pub config_file: String,
    /// `permissions`, when set.
    pub permissions: Option<Permissions>,
}

impl Script {
    /// The script an object of the schemas names (`path`, `config_file`,
    /// `permissions`), or an error at the attribute that is missing or not
    /// known.
    pub fn from_value(v: &Value) -> Result<Script, Diagnostic> {
        let path = match v.attr("path") {
            Some(p) if p.is_known() && !p.is_null() => p.as_str().unwrap_or_default().to_string(),
            _ => {
                return Err(crate::diag::error(
                    "The script path is not known",
                    "`path` must be known to run the script.",
                )
                .at(ctywire::Path::root().attr("path")))
            }
        };
        let config_file = v
            .attr("config_file")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let permissions = match v.attr("permissions") {
            Some(p) if p.is_null() => None,
            None => None,
            Some(p) => {
                if !p.is_wholly_known() {
                    return Err(crate::diag::error(
                        "The script's permissions are not known",
                        "`permissions` must be known to run the script.",
                    )
                    .at(ctywire::Path::root().attr("permissions")));
                }
                let list = |name: &str| -> Vec<String> {
                    p.attr(name)
                        .and_then(Value::elements)
                        .map(|es| {
                            es.iter()
                                .filter_map(|e| e.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default()
                };
                Some(Permissions {
                    all: p.attr("all").and_then(Value::as_bool).unwrap_or(false),
                    allow: list("allow"),
                    deny: list("deny"),
                })
            }
        };
        Ok(Script {
            path,
            config_file,
            permissions,
        })
    }

    /// The script argument: a local path made absolute, a `file://` URL as
    /// its path, a remote URL as it is (as denobridge does).
    fn argument(&self) -> String {
        if let Some(rest) = self.path.strip_prefix("file://") {
            return absolute(FsPath::new(rest)).display().to_string();
        }
        if self.path.contains("://") {
            return self.path.clone();
        }
        absolute(FsPath::new(&self.path)).display().to_string()
    }

    fn local_path(&self) -> Option<PathBuf> {
        if let Some(rest) = self.path.strip_prefix("file://") {
            return Some(absolute(FsPath::new(rest)));
        }
        (!self.path.contains("://")).then(|| absolute(FsPath::new(&self.path)))
    }
}

fn absolute(p: &FsPath) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `deno.json` or `deno.jsonc` in the script's directory or above, as
/// denobridge looks for it.
fn locate_deno_config(script: &FsPath) -> Option<PathBuf> {
    let mut dir = script.parent();
    while let Some(d) = dir {
        for name in ["deno.json", "deno.jsonc"] {
            let candidate = d.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        dir = d.parent();
    }
    None
}

impl Runner {
    /// The program and arguments that run `script`: denobridge's
    /// `deno run -q [-c config] [--allow-all | --allow-x… --deny-y…] <script>`,
    /// or the configured command with the script's path appended.
    pub fn argv(&self, script: &Script) -> (PathBuf, Vec<String>) {
        if let Some(command) = &self.command {
            let (program, lead) = command
                .split_first()
                .map_or_else(|| (String::new(), &[][..]), |(p, rest)| (p.clone(), rest));
            let mut args: Vec<String> = lead.to_vec();
            args.push(script.argument());
            return (PathBuf::from(program), args);
        }
        let mut args: Vec<String> = vec!["run".into(), "-q".into()];
        let config = if script.config_file.is_empty() {
            script
                .local_path()
                .and_then(|p| locate_deno_config(&p))
                .map(|p| p.display().to_string())
        } else {
            Some(script.config_file.clone())
        };
        if let Some(c) = config.filter(|c| c != "/dev/null") {
            args.push("-c".into());
            args.push(c);
        }
        if let Some(p) = &script.permissions {
            if p.all {
                args.push("--allow-all".into());
            } else {
                args.extend(p.allow.iter().map(|a| format!("--allow-{a}")));
                args.extend(p.deny.iter().map(|d| format!("--deny-{d}")));
            }
        }
        args.push(script.argument());
        (self.deno.clone(), args)
    }

    /// A warning when a Deno-only setting is given to a command runner, so
    /// it is not dropped silently.
    pub fn unused_settings(&self, script: &Script) -> Option<Diagnostic> {
        let set = script.permissions.is_some() || !script.config_file.is_empty();
        (self.command.is_some() && set).then(|| {
            crate::diag::warning(
                "permissions and config_file are not used",
                "The provider runs scripts with its `command`, not Deno, so Deno's permissions and config file do not apply.",
            )
        })
    }

    /// Starts `script` and checks its health.
    pub async fn start(&self, script: &Script) -> Result<Session, Diagnostic> {
        let (program, args) = self.argv(script);
        let mut opts = ChildOptions::new(program.clone(), args.clone());
        // Deno's update check would only add a line to stderr (and a
        // request that cannot succeed offline).
        opts.env = vec![("DENO_NO_UPDATE_CHECK".into(), "1".into())];
        opts.peer = PeerOptions {
            call_timeout: self.timeout,
            // An answer is read into a document of ~50× its size: 16 MiB
            // lines (far past any real props or state) bound that.
            max_message: MAX_ANSWER,
            ..PeerOptions::default()
        };
        opts.grace = GRACE;
        let what = format!("{} {}", program.display(), args.join(" "));
        let child = start_healthy(opts).await.map_err(|e| {
            let hint = if self.command.is_none() {
                "\n(Deno is found through the provider's deno_binary_path, else $DENO_BINARY, else PATH.)"
            } else {
                ""
            };
            crate::diag::error(
                "Failed to start the script",
                format!("Running `{what}`: {e}{hint}"),
            )
        })?;
        Ok(Session { child, what })
    }
}

/// A running script, between its health check and its shutdown.
pub struct Session {
    child: Child,
    what: String,
}

/// The outcome of a call that may be refused as "method not found".
pub enum Answer {
    /// The result.
    Result(Json),
    /// JSON-RPC -32601: the script does not implement the method.
    NotFound,
}

impl Session {
    /// Calls `method`; a failure is an error diagnostic saying what the
    /// script was doing and how it failed (its last stderr lines included
    /// when it died).
    pub async fn call(&self, method: &str, params: Json) -> Result<Json, Diagnostic> {
        match self.call_optional(method, params).await? {
            Answer::Result(j) => Ok(j),
            Answer::NotFound => Err(crate::diag::error(
                format!("The script does not implement `{method}`"),
                format!("`{}` answered -32601 (method not found).", self.what),
            )),
        }
    }

    /// Calls `method`, which the script may lack.
    pub async fn call_optional(&self, method: &str, params: Json) -> Result<Answer, Diagnostic> {
        match self.child.peer().call(method, Some(params)).await {
            Ok(j) => Ok(Answer::Result(j)),
            Err(CallError::Remote(e)) if e.code == -32601 => Ok(Answer::NotFound),
            // The script's message and data are its own text: cut short.
            Err(e) => Err(crate::diag::error(
                format!("The script's `{method}` failed"),
                format!(
                    "`{}`: {}",
                    self.what,
                    crate::diag::clip(&e.to_string(), 4_000)
                ),
            )),
        }
    }

    /// Shuts the script down (the `shutdown` call, then a kill after the
    /// grace period); a warning when it did not exit cleanly.
    pub async fn finish(self, diags: &mut Diagnostics) {
        // denobridge's `shutdown` call first, bounded by the grace period;
        // whatever it answers, the process gets the same period to exit.
        let asked = self
            .child
            .peer()
            .call_with_timeout("shutdown", Some(params([])), GRACE)
            .await;
        if let Err(e) = asked {
            log::debug!(target: "denobridge", "{}: shutdown call: {e}", self.what);
        }
        match self.child.stop().await {
            Some(s) if s.success() => {}
            Some(s) => diags.push(crate::diag::warning(
                "The script did not stop cleanly",
                format!("`{}` {s}", self.what),
            )),
            None => diags.push(crate::diag::warning(
                "The script did not stop cleanly",
                format!("`{}`: its exit status is unknown", self.what),
            )),
        }
    }
}

/// Spawns the script, then asks `health` (denobridge's readiness check): a
/// script that does not answer it as healthy (`{"ok": true}`, or any
/// answer without `ok`) is stopped and the reason returned.
async fn start_healthy(opts: ChildOptions) -> Result<Child, CallError> {
    let child =
        Child::spawn(opts, Handlers::new()).map_err(|e| CallError::Closed(e.to_string()))?;
    let failed = match child.peer().call("health", Some(params([]))).await {
        Ok(answer) if answer["ok"] != Json::Bool(false) => return Ok(child),
        // The script's own text: a line's worth of it.
        Ok(answer) => CallError::Closed(format!(
            "the script reported itself unhealthy: {}",
            crate::diag::clip(&answer.to_string(), 300)
        )),
        Err(e) => e,
    };
    child.stop().await;
    Err(failed)
}

/// A JSON object from pairs, for parameters.
pub(crate) fn params<const N: usize>(pairs: [(&str, Json); N]) -> Json {
    let mut o = Object::new();
    for (k, v) in pairs {
        o.insert(k, v);
    }
    Json::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> Script {
        Script {
            path: "/scripts/thing.ts".into(),
            config_file: String::new(),
            permissions: Some(Permissions {
                all: false,
                allow: vec!["read".into(), "net=example.com".into()],
                deny: vec!["env".into()],
            }),
        }
    }

    #[test]
    fn deno_gets_denobridge_s_flags() {
        let r = Runner {
            deno: "/opt/deno".into(),
            ..Runner::default()
        };
        let (program, args) = r.argv(&script());
        assert_eq!(program, PathBuf::from("/opt/deno"));
        assert_eq!(
            args,
            [
                "run",
                "-q",
                "--allow-read",
                "--allow-net=example.com",
                "--deny-env",
                "/scripts/thing.ts"
            ]
        );
        let mut all = script();
        all.permissions.as_mut().unwrap().all = true;
        all.config_file = "/cfg/deno.json".into();
        assert_eq!(
            r.argv(&all).1,
            [
                "run",
                "-q",
                "-c",
                "/cfg/deno.json",
                "--allow-all",
                "/scripts/thing.ts"
            ]
        );
        all.config_file = "/dev/null".into();
        assert_eq!(
            r.argv(&all).1,
            ["run", "-q", "--allow-all", "/scripts/thing.ts"]
        );
    }

    #[test]
    fn a_command_runs_the_script_by_its_path_and_warns_about_deno_settings() {
        let r = Runner {
            command: Some(vec!["python3".into(), "-u".into()]),
            ..Runner::default()
        };
        let (program, args) = r.argv(&script());
        assert_eq!(program, PathBuf::from("python3"));
        assert_eq!(args, ["-u", "/scripts/thing.ts"]);
        assert!(r.unused_settings(&script()).is_some());
        assert!(r
            .unused_settings(&Script {
                path: "x.py".into(),
                ..Script::default()
            })
            .is_none());
    }

    #[test]
    fn a_deno_json_next_to_the_script_is_used_as_denobridge_does() {
        let dir = std::env::temp_dir().join(format!("denobridge-cfg-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("deno.jsonc"), "{}").unwrap();
        let s = Script {
            path: dir.join("sub/x.ts").display().to_string(),
            ..Script::default()
        };
        let args = Runner::default().argv(&s).1;
        assert_eq!(args[2], "-c");
        assert_eq!(args[3], dir.join("deno.jsonc").display().to_string());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
