//! A child process that speaks JSON-RPC or msgpack-rpc on its stdin and
//! stdout.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::BufReader;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex as AsyncMutex;

use super::handlers::{Handlers, MsgpackHandlers};
use super::json_peer::{CloseReason, JsonRpcPeer};
use super::lines::{read_line, Line};
use super::msgpack_peer::MsgpackRpcPeer;
use super::PeerOptions;

/// How to start a child.
#[derive(Clone, Debug)]
pub struct ChildOptions {
    /// The program (found on `PATH` when it has no slash).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the environment it inherits.
    pub env: Vec<(String, String)>,
    /// Its working directory (default: this process's).
    pub cwd: Option<PathBuf>,
    /// The peer's limits and call timeout.
    pub peer: PeerOptions,
    /// How many of its last stderr lines to keep for error messages
    /// (default 20).
    pub stderr_lines: usize,
    /// How long [`Child::stop`] waits for it to exit before killing it
    /// (default 5 s).
    pub grace: Duration,
}

impl ChildOptions {
    /// Runs `program` with `args`, with the defaults.
    pub fn new(
        program: impl Into<PathBuf>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        ChildOptions {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            peer: PeerOptions::default(),
            stderr_lines: 20,
            grace: Duration::from_secs(5),
        }
    }
}

/// A running child and the JSON-RPC peer on its stdio. Its stderr is
/// forwarded line by line to `log` (target `ctywire_bridge::child`, level info)
/// and its last lines are kept; when it exits or closes its stdout, every
/// call in flight fails at once with its exit status and those lines.
/// Dropping a `Child` kills the process, so nothing is left running.
///
/// ```no_run
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use ctywire_bridge::runtime::{Child, ChildOptions, Handlers};
/// let child = Child::spawn(ChildOptions::new("deno", ["run", "main.ts"]), Handlers::new())?;
/// let answer = child.peer().call("read", None).await?;
/// let status = child.stop().await;
/// # Ok(()) }
/// ```
pub struct Child {
    peer: JsonRpcPeer,
    process: Arc<AsyncMutex<tokio::process::Child>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    grace: Duration,
}

impl Child {
    /// Starts the child (within a tokio runtime) with `handlers` serving
    /// what it calls.
    pub fn spawn(opts: ChildOptions, handlers: Handlers) -> std::io::Result<Child> {
        let (started, stdin, stdout, reason) = Process::start(&opts)?;
        let peer = JsonRpcPeer::start(stdout, stdin, handlers, opts.peer, Some(reason));
        Ok(Child {
            peer,
            process: started.process,
            stderr: started.tail,
            grace: opts.grace,
        })
    }

    /// The peer on the child's stdio.
    pub fn peer(&self) -> &JsonRpcPeer {
        &self.peer
    }

    /// The last lines the child wrote to stderr, oldest first.
    pub fn stderr_tail(&self) -> Vec<String> {
        lock(&self.stderr).iter().cloned().collect()
    }

    /// Waits up to the grace period for the child to exit (after asking it
    /// to in its own protocol, if it has a way), and kills it if it has
    /// not. The exit status, when there is one.
    pub async fn stop(&self) -> Option<ExitStatus> {
        Process {
            process: self.process.clone(),
            tail: self.stderr.clone(),
        }
        .stop(self.grace)
        .await
    }

    /// Kills the child now.
    pub async fn kill(&self) -> std::io::Result<()> {
        self.process.lock().await.kill().await
    }

    /// The child's process id, while it runs.
    pub async fn id(&self) -> Option<u32> {
        self.process.lock().await.id()
    }
}

/// A started process: what both kinds of child keep of it.
struct Process {
    process: Arc<AsyncMutex<tokio::process::Child>>,
    tail: Arc<Mutex<VecDeque<String>>>,
}

impl Process {
    /// Starts the program with piped stdio, forwards its stderr, and
    /// makes the reason its stdout closed (exit status and stderr tail).
    fn start(
        opts: &ChildOptions,
    ) -> std::io::Result<(Process, ChildStdin, ChildStdout, CloseReason)> {
        let name = opts.program.display().to_string();
        let mut cmd = Command::new(&opts.program);
        cmd.args(&opts.args)
            .envs(opts.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &opts.cwd {
            cmd.current_dir(dir);
        }
        let mut process = cmd
            .spawn()
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start {name}: {e}")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (
            process.stdin.take(),
            process.stdout.take(),
            process.stderr.take(),
        ) else {
            return Err(std::io::Error::other("the child's stdio was not piped"));
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_done = tokio::spawn(forward_stderr(
            stderr,
            name.clone(),
            tail.clone(),
            opts.stderr_lines,
        ));
        let process = Arc::new(AsyncMutex::new(process));
        let reason: CloseReason = {
            let process = process.clone();
            let tail = tail.clone();
            let stderr_done = Arc::new(AsyncMutex::new(Some(stderr_done)));
            Arc::new(move || {
                let (process, tail, name, stderr_done) = (
                    process.clone(),
                    tail.clone(),
                    name.clone(),
                    stderr_done.clone(),
                );
                Box::pin(async move {
                    // Its stdout closed: calls in flight fail now, so only
                    // give it a moment to exit (a crash usually has), and
                    // its stderr a moment to drain, to say what happened.
                    let status = {
                        let mut p = process.lock().await;
                        tokio::time::timeout(EXIT_WAIT, p.wait()).await
                    };
                    if let (Ok(_), Some(t)) = (&status, stderr_done.lock().await.take()) {
                        let _ = tokio::time::timeout(EXIT_WAIT, t).await;
                    }
                    let what = match status {
                        Ok(Ok(s)) => format!("{name} exited ({s})"),
                        Ok(Err(e)) => {
                            format!("{name} closed its stdout; waiting for it failed: {e}")
                        }
                        Err(_) => format!("{name} closed its stdout but is still running"),
                    };
                    with_tail(what, &tail)
                })
            })
        };
        Ok((Process { process, tail }, stdin, stdout, reason))
    }

    /// Waits up to `grace` for the process to exit, then kills it.
    async fn stop(&self, grace: Duration) -> Option<ExitStatus> {
        let mut p = self.process.lock().await;
        match tokio::time::timeout(grace, p.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => {
                let _ = p.kill().await;
                p.wait().await.ok()
            }
        }
    }
}

/// A running child and the msgpack-rpc peer on its stdio (a Seasonings
/// plugin, a Neovim): what [`Child`] is for JSON-RPC, with the same
/// stderr handling and the same guarantee that dropping it kills the
/// process. Bytes on its stdout that are not msgpack-rpc close the peer
/// (msgpack cannot resynchronise); calls in flight then fail saying where
/// in the stream, how the child ended, and its last stderr lines.
pub struct MsgpackChild {
    peer: Option<MsgpackRpcPeer>,
    process: Process,
    grace: Duration,
}

impl MsgpackChild {
    /// Starts the child (within a tokio runtime) with `handlers` serving
    /// what it sends.
    pub fn spawn(opts: ChildOptions, handlers: MsgpackHandlers) -> std::io::Result<MsgpackChild> {
        let (process, stdin, stdout, reason) = Process::start(&opts)?;
        let peer = MsgpackRpcPeer::start(stdout, stdin, handlers, opts.peer, Some(reason));
        Ok(MsgpackChild {
            peer: Some(peer),
            process,
            grace: opts.grace,
        })
    }

    /// The peer on the child's stdio; `None` once [`close_stdin`](Self::close_stdin)
    /// let go of it.
    pub fn peer(&self) -> Option<&MsgpackRpcPeer> {
        self.peer.as_ref()
    }

    /// Drops this handle's peer, which closes the child's stdin (the peer's
    /// writer owns it) once no clone of the peer is left: the way to tell
    /// a stdio program that nothing more comes.
    pub fn close_stdin(&mut self) {
        self.peer = None;
    }

    /// The last lines the child wrote to stderr, oldest first.
    pub fn stderr_tail(&self) -> Vec<String> {
        lock(&self.process.tail).iter().cloned().collect()
    }

    /// Waits up to the grace period for the child to exit, then kills it.
    pub async fn stop(&self) -> Option<ExitStatus> {
        self.process.stop(self.grace).await
    }

    /// Kills the child now.
    pub async fn kill(&self) -> std::io::Result<()> {
        self.process.process.lock().await.kill().await
    }

    /// The child's process id, while it runs.
    pub async fn id(&self) -> Option<u32> {
        self.process.process.lock().await.id()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn with_tail(what: String, tail: &Mutex<VecDeque<String>>) -> String {
    let lines = lock(tail);
    if lines.is_empty() {
        return format!("{what}; it wrote nothing to stderr");
    }
    let mut s = format!("{what}; its last stderr lines:");
    for l in lines.iter() {
        s.push_str("\n  ");
        s.push_str(l);
    }
    s
}

/// How long a child whose stdout closed is given to exit (and its stderr
/// to drain) before calls fail saying it still runs.
const EXIT_WAIT: Duration = Duration::from_millis(250);

/// The longest stderr line kept whole; the rest of a longer one is cut.
const MAX_STDERR_LINE: usize = 4096;

async fn forward_stderr(
    stderr: ChildStderr,
    name: String,
    tail: Arc<Mutex<VecDeque<String>>>,
    keep: usize,
) {
    let mut r = BufReader::new(stderr);
    loop {
        // Bounded: a line that never ends is not held whole.
        let line = match read_line(&mut r, MAX_STDERR_LINE).await {
            Ok(Some(Line::Text(line))) => String::from_utf8_lossy(&line).into_owned(),
            Ok(Some(Line::TooLong(n))) => format!("(a line of {n} bytes, not kept)"),
            Ok(None) | Err(_) => break,
        };
        let line = line.trim_end_matches('\r');
        log::info!(target: "ctywire_bridge::child", "{name}: {line}");
        let mut t = lock(&tail);
        if keep > 0 {
            if t.len() >= keep {
                t.pop_front();
            }
            t.push_back(line.to_string());
        }
    }
}
