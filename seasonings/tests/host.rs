//! The host against real plugins in each language: the Python ones
//! (examples/seasonings/python/slugs.py, tests/plugins/misbehaving.py, on
//! Python with the `msgpack` package) and the Node ones (examples/seasonings/
//! node/slugs.mjs, tests/plugins/misbehaving.mjs, on the machine's `node`
//! with `@msgpack/msgpack`): every test runs once per language, in modules
//! `python` and `node`. `bash scripts/seasonings-peers.sh` installs both
//! packages under target/peers.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ctywire::{Number, Type, Value};
use ctywire_seasonings::host::{ErrorKind, Plugin, PluginError, PluginOptions};
use ctywire_seasonings::protocol::{code, Capability, Fields};
use support::plugins::workspace;

// The e2e support carries the one rule for a missing component; the
// plugins' support finds the interpreters with it.
#[path = "../../e2e/tests/support/mod.rs"]
mod e2e;
mod support;

/// The language a plugin is written in, and how to run it.
#[derive(Clone, Copy, Debug)]
enum Lang {
    Python,
    Node,
    Rust,
}

/// A program that runs plugins, and what it needs in its environment.
struct Runtime {
    program: PathBuf,
    env: Vec<(String, String)>,
}

impl Lang {
    /// The runtime, when it and its msgpack package are installed; none →
    /// SKIPPED (a failure under CI).
    fn runtime(self) -> Option<Runtime> {
        match self {
            Lang::Python => support::plugins::python().map(|program| Runtime {
                program,
                env: Vec::new(),
            }),
            Lang::Node => support::plugins::node().map(|env| Runtime {
                program: PathBuf::from("node"),
                env,
            }),
            // An executable of its own: `spawn` runs it.
            Lang::Rust => None,
        }
    }

    /// A plugin's file in this language: `dir/stem.py` or `dir/stem.mjs`.
    fn script(self, dir: &Path, stem: &str) -> String {
        let ext = match self {
            Lang::Python => "py",
            Lang::Node => "mjs",
            Lang::Rust => return support::plugins::rust_plugin(stem).display().to_string(),
        };
        dir.join(format!("{stem}.{ext}")).display().to_string()
    }

    fn examples(self) -> PathBuf {
        let sub = match self {
            Lang::Python => "python",
            Lang::Node => "node",
            Lang::Rust => "rust",
        };
        workspace().join("examples/seasonings").join(sub)
    }

    async fn spawn(
        self,
        script: String,
        args: &[&str],
        mut options: PluginOptions,
    ) -> Option<Result<Plugin, PluginError>> {
        if let Lang::Rust = self {
            let args = args.iter().map(|a| a.to_string());
            return Some(Plugin::spawn(script, args, options).await);
        }
        let rt = self.runtime()?;
        options.env.extend(rt.env);
        let args = std::iter::once(script).chain(args.iter().map(|a| a.to_string()));
        Some(Plugin::spawn(rt.program, args, options).await)
    }
}

async fn slugs(lang: Lang) -> Option<Plugin> {
    let script = lang.script(&lang.examples(), "slugs");
    let p = lang.spawn(script, &[], PluginOptions::default()).await?;
    Some(p.expect("the slugs plugin starts"))
}

async fn misbehaving(
    lang: Lang,
    mode: &str,
    options: PluginOptions,
) -> Option<Result<Plugin, PluginError>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/plugins");
    lang.spawn(lang.script(&dir, "misbehaving"), &[mode], options)
        .await
}

fn big(s: &str) -> Value {
    Value::number(Number::parse(s).unwrap())
}

/// Waits (at most 5 s) until process `pid` is gone, or a zombie until it
/// is reaped: it no longer runs.
async fn assert_ends(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .chars()
            .next();
        if matches!(state, None | Some('Z')) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "process {pid} still runs: {stat}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The processes, children of this one, whose command line holds all of
/// `words` and which still run (not zombies).
fn running_children(words: &[&str]) -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let mut rest = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let (state, ppid) = (rest.next(), rest.next().and_then(|p| p.parse::<u32>().ok()));
        if ppid != Some(me) || state == Some("Z") {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if words.iter().all(|w| args.iter().any(|a| a.ends_with(w))) {
            found.push(pid);
        }
    }
    found
}

/// Starts the misbehaving plugin in `mode`, which the host must refuse:
/// the error, once it is checked that no process is left behind.
async fn refused_at_start(lang: Lang, mode: &str) -> Option<PluginError> {
    let r = misbehaving(lang, mode, PluginOptions::default()).await?;
    let e = r.err().expect("refused at start");
    let file = lang.script(Path::new(""), "misbehaving");
    let left = running_children(&[&file, mode]);
    assert!(
        left.is_empty(),
        "processes {left:?} ({file} {mode}) still run"
    );
    Some(e)
}

/// Calls the misbehaving plugin's `function`, which must end it: the call
/// fails promptly, naming the plugin and the method; later calls fail the
/// same way at once; the process no longer runs. The call's error.
async fn a_call_that_ends_the_plugin(p: &Plugin, function: &str, arg: Value) -> PluginError {
    let pid = p.id().await.unwrap();
    let started = Instant::now();
    let e = p.call_function(function, vec![arg]).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(matches!(e.kind(), ErrorKind::Closed(_)), "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("plugin \"misbehaving\", functions.call:"),
        "{text}"
    );
    let later = p.ping().await.unwrap_err();
    assert!(matches!(later.kind(), ErrorKind::Closed(_)), "{later}");
    assert_ends(pid).await;
    e
}

/// The error's text holds `part`.
fn assert_says(e: &PluginError, part: &str) {
    let text = e.to_string();
    assert!(text.contains(part), "{part:?} not in {text:?}");
}

/// Collects what reaches the `log` crate.
struct Capture(Mutex<Vec<String>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, r: &log::Record) {
        let line = format!("{} {} {}", r.level(), r.target(), r.args());
        self.0.lock().unwrap().push(line);
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

/// Starts capturing (once per test binary; every test may call it).
fn capture_logs() {
    let _ = log::set_logger(&CAPTURE);
    log::set_max_level(log::LevelFilter::Trace);
}

fn assert_logged(line: &str) {
    let lines = CAPTURE.0.lock().unwrap().clone();
    assert!(
        lines.iter().any(|l| l == line),
        "{line:?} not in {lines:#?}"
    );
}

/// Each test once per language: `async fn name(lang: Lang)` becomes the
/// tests `python::name` and `node::name`.
macro_rules! per_language {
    ($(async fn $name:ident($lang:ident: Lang) $body:block)*) => {
        $(async fn $name($lang: Lang) $body)*

        mod python {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Lang::Python).await
                }
            )*
        }

        mod node {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Lang::Node).await
                }
            )*
        }
    };
}

per_language! {
    async fn init_reports_the_plugins_name_version_and_capabilities_and_ping_answers(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        assert_eq!(p.info().name, "slugs");
        assert_eq!(p.info().version, "1.2.0");
        assert_eq!(p.info().capabilities, [Capability::Functions]);
        assert_eq!(p.protocol_version().to_string(), "1.0");
        p.ping().await.unwrap();
        p.shutdown().await;
    }

    async fn get_schema_gives_typed_signatures(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let f = p.functions().await.unwrap();
        assert_eq!(f.keys().collect::<Vec<_>>(), ["slug", "sum", "wrap"]);
        let slug = &f["slug"];
        assert_eq!(slug.return_type, Type::String);
        assert_eq!(slug.parameters.len(), 2);
        assert!(!slug.parameters[0].allow_unknown_values);
        assert!(slug.parameters[1].allow_unknown_values);
        assert_eq!(
            slug.summary.as_deref(),
            Some("Lower-case words joined by a separator")
        );
        let sum = &f["sum"];
        assert!(sum.parameters.is_empty());
        assert_eq!(sum.variadic_parameter.as_ref().unwrap().ty, Type::Number);
        assert_eq!(f["wrap"].parameters[0].ty, Type::Dynamic);
        assert!(f["wrap"].parameters[0].is_nullable);
        p.shutdown().await;
    }

    async fn known_arguments_give_the_functions_result(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let v = p
            .call_function(
                "slug",
                vec![Value::string("Hello, World 42"), Value::string("_")],
            )
            .await
            .unwrap();
        assert_eq!(v.as_str(), Some("hello_world_42"));
        p.shutdown().await;
    }

    async fn an_unknown_argument_where_allowed_reaches_the_plugin_which_answers_unknown(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let v = p
            .call_function(
                "slug",
                vec![Value::string("Hello World"), Value::unknown(Type::String)],
            )
            .await
            .unwrap();
        assert!(!v.is_known());
        assert_eq!(v.ty(), &Type::String);
        p.shutdown().await;
    }

    async fn an_unknown_argument_where_not_allowed_makes_the_result_unknown_without_calling(lang: Lang) {
        let Some(Ok(p)) = misbehaving(lang, "", PluginOptions::default()).await else {
            return;
        };
        // echo turns anything it receives into a known string, so an unknown
        // result proves the plugin was not called.
        let v = p
            .call_function("echo", vec![Value::unknown(Type::String)])
            .await
            .unwrap();
        assert!(!v.is_known(), "{v:?}");
        let v = p
            .call_function("echo", vec![Value::string("x")])
            .await
            .unwrap();
        assert_eq!(v.as_str(), Some("called with 'x'"));
        p.shutdown().await;
    }

    async fn a_null_argument_where_not_nullable_is_refused_naming_the_argument(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let e = p
            .call_function("slug", vec![Value::string("a"), Value::null(Type::String)])
            .await
            .unwrap_err();
        assert_eq!(e.function_argument(), Some(1));
        assert!(matches!(e.kind(), ErrorKind::Refused { .. }), "{e}");
        assert_says(&e, "\"sep\" must not be null");
        p.shutdown().await;
    }

    async fn thirty_digit_numbers_stay_exact_both_ways(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let v = p
            .call_function(
                "sum",
                vec![big("123456789012345678901234567890"), big("1"), big("0.5")],
            )
            .await
            .unwrap();
        assert_eq!(v, big("123456789012345678901234567891.5"));
        let v = p.call_function("sum", vec![]).await.unwrap();
        assert_eq!(v, big("0"));
        p.shutdown().await;
    }

    async fn integers_beyond_two_to_the_53_and_decimals_stay_exact(lang: Lang) {
        // 2^53 + 1 and 2^63 + 5 travel as msgpack integers, which a
        // language with float numbers would round; 0.1 and 0.2 travel as
        // decimal strings, whose float sum is 0.30000000000000004.
        let Some(p) = slugs(lang).await else { return };
        let v = p
            .call_function("sum", vec![big("9007199254740993")])
            .await
            .unwrap();
        assert_eq!(v, big("9007199254740993"));
        let v = p
            .call_function("sum", vec![big("9223372036854775813"), big("-1")])
            .await
            .unwrap();
        assert_eq!(v, big("9223372036854775812"));
        // Beyond 64 bits an integer result is the exact decimal string.
        let thirty = "123456789012345678901234567890";
        let v = p
            .call_function("sum", vec![big(thirty), big(thirty)])
            .await
            .unwrap();
        assert_eq!(v, big("246913578024691357802469135780"));
        let v = p
            .call_function("sum", vec![big("0.1"), big("0.2")])
            .await
            .unwrap();
        assert_eq!(v, big("0.3"));
        p.shutdown().await;
    }

    async fn dynamic_values_carry_their_types_both_ways(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let v = p
            .call_function("wrap", vec![Value::string("hi")])
            .await
            .unwrap();
        assert_eq!(v, Value::object([("value", Value::string("hi"))]));
        let list = Value::list(Type::Number, vec![big("123456789012345678901234567890")]).unwrap();
        let v = p.call_function("wrap", vec![list.clone()]).await.unwrap();
        assert_eq!(v, Value::object([("value", list)]));
        assert_eq!(v.ty(), &Type::object([("value", Type::list(Type::Number))]));
        let v = p
            .call_function("wrap", vec![Value::null(Type::Dynamic)])
            .await
            .unwrap();
        assert!(v.is_null());
        p.shutdown().await;
    }

    async fn a_function_error_names_the_argument_at_fault(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let e = p
            .call_function("slug", vec![Value::string("a b"), Value::string("--")])
            .await
            .unwrap_err();
        let remote = e.remote().expect("the plugin's error");
        assert_eq!(remote.code, code::REQUEST_FAILED);
        assert_eq!(remote.message, "Invalid separator");
        assert_eq!(e.function_argument(), Some(1));
        let text = e.to_string();
        assert!(
            text.starts_with("plugin \"slugs\", functions.call: Invalid separator"),
            "{text}"
        );
        // The plugin still serves after a failed function.
        p.ping().await.unwrap();
        p.shutdown().await;
    }

    async fn a_method_the_plugin_does_not_have_is_method_not_found(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let e = p.call("storage.read", Fields::new()).await.unwrap_err();
        assert_eq!(e.remote().unwrap().code, code::METHOD_NOT_FOUND);
        assert_says(&e, "storage.read");
        p.shutdown().await;
    }

    async fn a_plugin_of_another_major_version_refuses_init_naming_both(lang: Lang) {
        let Some(e) = refused_at_start(lang, "speaks2").await else {
            return;
        };
        assert_eq!(e.method(), "init");
        assert_eq!(e.remote().unwrap().code, code::UNSUPPORTED_VERSION);
        assert_says(&e, "Seasonings 1.0");
        assert_says(&e, "speaks 2.0");
    }

    async fn the_host_refuses_a_plugin_that_answers_another_major_version(lang: Lang) {
        let Some(e) = refused_at_start(lang, "answers2").await else {
            return;
        };
        assert!(matches!(e.kind(), ErrorKind::Incompatible(_)), "{e}");
        assert_says(&e, "the host speaks Seasonings 1.0; this plugin speaks 2.0");
    }

    async fn a_plugin_that_exits_mid_call_fails_the_call_with_its_stderr_tail(lang: Lang) {
        let Some(Ok(p)) = misbehaving(lang, "", PluginOptions::default()).await else {
            return;
        };
        let e = a_call_that_ends_the_plugin(&p, "crash", Value::string("on purpose")).await;
        assert_says(&e, "about to crash: on purpose");
        assert_says(&e, "exit status: 3");
    }

    async fn garbage_on_stdout_is_fatal_and_says_where(lang: Lang) {
        let Some(e) = refused_at_start(lang, "garbage").await else {
            return;
        };
        assert_eq!(e.method(), "init");
        assert!(matches!(e.kind(), ErrorKind::Closed(_)), "{e}");
        assert_says(&e, "not msgpack-rpc (at byte 0 of the stream)");
    }

    async fn a_call_that_is_never_answered_times_out(lang: Lang) {
        let opts = PluginOptions {
            call_timeout: Duration::from_millis(500),
            ..PluginOptions::default()
        };
        let Some(Ok(p)) = misbehaving(lang, "", opts).await else {
            return;
        };
        let started = Instant::now();
        let e = p
            .call_function("hang", vec![Value::string("x")])
            .await
            .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Timeout(_)), "{e}");
        assert_says(&e, "no answer within 500ms");
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid = p.id().await.unwrap();
        let started = Instant::now();
        p.shutdown().await;
        // The plugin is stuck in the function: shutdown waits its grace and kills.
        assert!(started.elapsed() < Duration::from_secs(8));
        assert_ends(pid).await;
    }

    async fn a_thousand_concurrent_calls_are_all_answered_within_the_in_flight_bound(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let p = Arc::new(p);
        // Watches how many calls are in flight while they run.
        let most = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let watch = {
            let (p, most) = (p.clone(), most.clone());
            tokio::spawn(async move {
                loop {
                    most.fetch_max(p.in_flight(), std::sync::atomic::Ordering::Relaxed);
                    tokio::task::yield_now().await;
                }
            })
        };
        let started = Instant::now();
        let calls = (0..1000).map(|i| {
            let p = p.clone();
            tokio::spawn(async move {
                let text = format!("Call Number {i}");
                let v = p
                    .call_function("slug", vec![Value::string(text), Value::string("-")])
                    .await
                    .unwrap();
                assert_eq!(v.as_str(), Some(format!("call-number-{i}").as_str()));
            })
        });
        for c in calls.collect::<Vec<_>>() {
            c.await.unwrap();
        }
        eprintln!("1000 calls in {:?}", started.elapsed());
        watch.abort();
        let _ = watch.await;
        let most = most.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            most > 1 && most <= 64,
            "at most {most} calls were in flight"
        );
        let p = Arc::try_unwrap(p).ok().unwrap();
        p.shutdown().await;
    }

    async fn shutdown_ends_the_process_cleanly(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let pid = p.id().await.unwrap();
        assert!(PathBuf::from(format!("/proc/{pid}")).exists());
        let status = p.shutdown().await.expect("an exit status");
        assert!(status.success(), "{status}");
        assert!(!PathBuf::from(format!("/proc/{pid}")).exists());
    }

    async fn a_result_that_does_not_fit_the_return_type_names_the_path(lang: Lang) {
        let Some(Ok(p)) = misbehaving(lang, "", PluginOptions::default()).await else {
            return;
        };
        let e = p.call_function("wrong_type", vec![]).await.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::BadAnswer(_)), "{e}");
        assert_says(&e, ".result");
        // Deep inside: the path goes down to the element.
        let e = p.call_function("wrong_nested", vec![]).await.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::BadAnswer(_)), "{e}");
        let text = e.to_string();
        assert!(
            text.starts_with("plugin \"misbehaving\", functions.call: the answer does not fit: .result.items[1]:"),
            "{text}"
        );
        // A wrong answer is the plugin's mistake, not a broken stream: it
        // still serves, and ends when asked.
        p.ping().await.unwrap();
        let pid = p.id().await.unwrap();
        p.shutdown().await;
        assert_ends(pid).await;
    }

    async fn a_ten_megabyte_answer_within_the_message_limit_is_taken_whole(lang: Lang) {
        // The limit is 64 MiB a message (docs/seasonings.md §1): a 10 MB
        // value is an ordinary answer.
        let Some(Ok(p)) = misbehaving(lang, "", PluginOptions::default()).await else {
            return;
        };
        let size: usize = 10_000_000;
        let v = p
            .call_function("big", vec![Value::number(Number::from_u64(size as u64))])
            .await
            .unwrap();
        let s = v.as_str().expect("a string");
        assert_eq!(s.len(), size);
        assert!(s.bytes().all(|b| b == b'x'));
        p.ping().await.unwrap();
        p.shutdown().await;
    }

    async fn an_answer_beyond_the_message_limit_fails_the_call_and_ends_the_plugin(lang: Lang) {
        let opts = PluginOptions {
            max_message: 1 << 20,
            ..PluginOptions::default()
        };
        let Some(Ok(p)) = misbehaving(lang, "", opts).await else {
            return;
        };
        // The stream cannot be read past it: the plugin is stopped.
        let size = Value::number(Number::from_u64(10_000_000));
        let e = a_call_that_ends_the_plugin(&p, "big", size).await;
        assert_says(&e, "1048576");
    }

    async fn log_notifications_reach_the_log_crate_under_the_plugins_name(lang: Lang) {
        capture_logs();
        let Some(p) = slugs(lang).await else { return };
        p.call_function("slug", vec![Value::string("Log Me"), Value::string("-")])
            .await
            .unwrap();
        // The notification comes before the answer on the same stream.
        assert_logged("INFO ctywire_seasonings::plugin slugs: made slug input=\"Log Me\"");
        p.shutdown().await;
    }

    async fn a_log_notification_whose_params_are_a_bare_map_is_taken_too(lang: Lang) {
        capture_logs();
        let Some(Ok(p)) = misbehaving(lang, "", PluginOptions::default()).await else {
            return;
        };
        let v = p
            .call_function("log_bare", vec![Value::string("bare map params")])
            .await
            .unwrap();
        assert_eq!(v.as_str(), Some("logged"));
        assert_logged("WARN ctywire_seasonings::plugin misbehaving: bare map params");
        p.shutdown().await;
    }

    async fn dropping_a_plugin_kills_its_process(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let pid = p.id().await.unwrap();
        drop(p);
        // Killed at once.
        assert_ends(pid).await;
    }

    async fn arguments_that_do_not_fit_are_refused_before_anything_is_sent(lang: Lang) {
        let Some(p) = slugs(lang).await else { return };
        let e = p
            .call_function(
                "slug",
                vec![
                    Value::string("a"),
                    Value::list(Type::String, vec![]).unwrap(),
                ],
            )
            .await
            .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Refused { .. }), "{e}");
        assert_eq!(e.function_argument(), Some(1));
        let e = p
            .call_function("slug", vec![Value::string("a")])
            .await
            .unwrap_err();
        assert_says(&e, "takes 2 arguments, 1 given");
        let e = p.call_function("nope", vec![]).await.unwrap_err();
        assert_says(&e, "no function \"nope\"");
        p.ping().await.unwrap();
        p.shutdown().await;
    }
}

/// The Rust SDK's `slugs` plugin (examples/seasonings/rust) runs each test
/// above that needs no misbehaving plugin: the SDK's answers are typed, so
/// it cannot be made to send garbage or a value of the wrong type.
macro_rules! rust_too {
    ($($name:ident),* $(,)?) => {
        mod rust {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Lang::Rust).await
                }
            )*
        }
    };
}

rust_too!(
    init_reports_the_plugins_name_version_and_capabilities_and_ping_answers,
    get_schema_gives_typed_signatures,
    known_arguments_give_the_functions_result,
    an_unknown_argument_where_allowed_reaches_the_plugin_which_answers_unknown,
    a_null_argument_where_not_nullable_is_refused_naming_the_argument,
    thirty_digit_numbers_stay_exact_both_ways,
    integers_beyond_two_to_the_53_and_decimals_stay_exact,
    dynamic_values_carry_their_types_both_ways,
    a_function_error_names_the_argument_at_fault,
    a_method_the_plugin_does_not_have_is_method_not_found,
    a_thousand_concurrent_calls_are_all_answered_within_the_in_flight_bound,
    shutdown_ends_the_process_cleanly,
    log_notifications_reach_the_log_crate_under_the_plugins_name,
    dropping_a_plugin_kills_its_process,
    arguments_that_do_not_fit_are_refused_before_anything_is_sent,
);
