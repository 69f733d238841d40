//! Shared by the tests: the one rule for a test whose real component (Deno,
//! Python) is missing. On a user's machine it says `SKIPPED: <tool> is
//! missing: <why>` and passes; under `CI=true` it fails with that message,
//! so CI can never pass by skipping what it is meant to run.

use std::io::Write;

/// Whether this run is CI's: the environment variable `CI` is `true` (or `1`).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// `tool` is missing (`why`: what would provide it). Writes the SKIPPED
/// line straight to stderr, past the test harness's capture, so it shows
/// where the test ran even when it passes; under CI, panics.
pub fn missing(tool: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: {tool} is missing: {why}");
    if under_ci() {
        panic!("SKIPPED under CI=true: {tool} is missing: {why}");
    }
}
