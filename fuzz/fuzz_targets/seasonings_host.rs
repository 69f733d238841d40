//! Arbitrary bytes as a Seasonings plugin's stdout into the host, which
//! runs `init`, `ping`, `functions.getSchema` and a call of every function
//! the bytes declare: never a panic and never a hang; every call ends with
//! an answer from the bytes or an error once the stream has ended.
#![no_main]

// Its `options()` and `feed()`; the rest is for peers without a host.
#[allow(dead_code)]
#[path = "common/peer.rs"]
mod peer;

use std::time::Duration;

use ctywire::Value;
use ctywire_seasonings::host::{ErrorKind, Plugin, PluginError, PluginOptions};
use libfuzzer_sys::fuzz_target;

/// How long the whole exchange may take once the bytes are all written:
/// every call after the stream's end fails at once, so only the host's own
/// reaction time is left.
const PROMPTLY: Duration = Duration::from_secs(5);

/// How many declared functions are called (the bytes may declare many).
const CALLS: usize = 4;

fuzz_target!(|data: &[u8]| {
    peer::feed(
        data,
        |r, w| (r, w),
        |(r, w)| async move {
            let run = async {
                // The peer targets' small limits and long call timeout,
                // so that a timeout can never pass for the stream's end.
                let limits = peer::options();
                let options = PluginOptions {
                    call_timeout: limits.call_timeout,
                    max_message: limits.max_message,
                    max_in_flight: 4,
                    ..PluginOptions::default()
                };
                let plugin = Plugin::over_streams("fuzzed", r, w, options).await?;
                let _ = plugin.ping().await.map_err(never_a_timeout);
                let functions = plugin.functions().await?;
                for (name, sig) in functions.iter().take(CALLS) {
                    // Unknown arguments reach the plugin only where allowed;
                    // elsewhere the host answers unknown itself. Nulls reach
                    // it where the parameter is nullable.
                    let n = sig.parameters.len() + usize::from(sig.variadic_parameter.is_some());
                    for make in [Value::unknown, Value::null] {
                        let args = (0..n)
                            .filter_map(|i| sig.parameter_of(i).map(|p| make(p.ty.clone())))
                            .collect();
                        let _ = plugin
                            .call_function(name, args)
                            .await
                            .map_err(never_a_timeout);
                    }
                }
                plugin.shutdown().await;
                Ok::<(), PluginError>(())
            };
            match tokio::time::timeout(PROMPTLY, run).await {
                Err(_) => panic!("the host did not finish within {PROMPTLY:?} of the stream's end"),
                Ok(Err(e)) => never_a_timeout(e),
                Ok(Ok(())) => {}
            }
        },
    );
});

fn never_a_timeout(e: PluginError) {
    assert!(
        !matches!(e.kind(), ErrorKind::Timeout(_)),
        "a call timed out instead of failing at the stream's end: {e}"
    );
    // Every error names the plugin and the method.
    let text = e.to_string();
    assert!(text.starts_with("plugin \""), "{text}");
    assert!(!e.method().is_empty(), "{text}");
}
