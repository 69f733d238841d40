//! Logging to Terraform's log with no setup, for every provider served
//! here ([`serve`](crate::serve) installs it unless
//! [`ServeOptions::log_to_terraform`](crate::ServeOptions::log_to_terraform)
//! is off): events from the `log` crate (`log::info!` and the rest, in the
//! provider and in every library it uses) are written to stderr as
//! go-hclog's JSON lines, which go-plugin's client in Terraform reads and
//! logs at their level under `TF_LOG` (or `TF_LOG_PROVIDER`).

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The level Terraform asks providers to log at: `TF_LOG_PROVIDER`, else
/// `TF_LOG`, as Terraform reads them (`JSON` means trace); unset or
/// unrecognised means off, since Terraform would discard the lines.
fn level_from_env(provider: Option<&str>, global: Option<&str>) -> LevelFilter {
    let setting = provider.filter(|s| !s.is_empty()).or(global).unwrap_or("");
    match setting.trim().to_ascii_uppercase().as_str() {
        "TRACE" | "JSON" => LevelFilter::Trace,
        "DEBUG" => LevelFilter::Debug,
        "INFO" => LevelFilter::Info,
        "WARN" => LevelFilter::Warn,
        "ERROR" => LevelFilter::Error,
        _ => LevelFilter::Off,
    }
}

/// Installs the logger, unless logging is off or the program installed
/// its own (which then stays).
pub(crate) fn init() {
    let level = level_from_env(
        std::env::var("TF_LOG_PROVIDER").ok().as_deref(),
        std::env::var("TF_LOG").ok().as_deref(),
    );
    if level == LevelFilter::Off {
        return;
    }
    if log::set_boxed_logger(Box::new(HclogLogger { level })).is_ok() {
        log::set_max_level(level);
    }
}

struct HclogLogger {
    level: LevelFilter,
}

impl Log for HclogLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = hclog_line(
            record.level(),
            record.target(),
            &record.args().to_string(),
            SystemTime::now(),
        );
        // One write per line, so lines from concurrent calls don't interleave.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

/// go-hclog's level names.
fn hclog_level(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn => "warn",
        Level::Info => "info",
        Level::Debug => "debug",
        Level::Trace => "trace",
    }
}

/// One log line as go-hclog's JSON format writes it, newline included.
fn hclog_line(level: Level, module: &str, message: &str, at: SystemTime) -> String {
    let mut line = String::with_capacity(96 + message.len());
    line.push_str("{\"@level\":\"");
    line.push_str(hclog_level(level));
    line.push_str("\",\"@message\":");
    json_string(&mut line, message);
    line.push_str(",\"@module\":");
    json_string(&mut line, module);
    line.push_str(",\"@timestamp\":\"");
    line.push_str(&timestamp(at));
    line.push_str("\"}\n");
    line
}

/// `s` as a JSON string.
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// RFC 3339 in UTC with microseconds, as go-hclog writes `@timestamp`
/// (and lock information's `Created`, which Go reads back).
pub fn timestamp(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_micros()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn terraform_levels_are_read_as_terraform_reads_them() {
        assert_eq!(level_from_env(None, Some("debug")), LevelFilter::Debug);
        assert_eq!(level_from_env(None, Some("JSON")), LevelFilter::Trace);
        assert_eq!(
            level_from_env(Some("WARN"), Some("TRACE")),
            LevelFilter::Warn
        );
        assert_eq!(level_from_env(Some(""), Some("INFO")), LevelFilter::Info);
        assert_eq!(level_from_env(None, None), LevelFilter::Off);
        assert_eq!(level_from_env(None, Some("loud")), LevelFilter::Off);
    }

    #[test]
    fn a_line_is_hclog_json() {
        // 2026-11-25T12:01:04.5Z
        let at = UNIX_EPOCH + Duration::from_millis(1_795_608_064_500);
        let line = hclog_line(Level::Info, "kv", "wrote \"a\"\n", at);
        assert_eq!(
            line,
            "{\"@level\":\"info\",\"@message\":\"wrote \\\"a\\\"\\n\",\"@module\":\"kv\",\"@timestamp\":\"2026-11-25T12:01:04.500000Z\"}\n"
        );
    }

    #[test]
    fn dates_follow_the_gregorian_calendar() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2000-02-29, a leap day of a year divisible by 400.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        // 2100 is not a leap year: 2100-02-28 is followed by 03-01.
        assert_eq!(civil_from_days(47_540), (2100, 2, 28));
        assert_eq!(civil_from_days(47_541), (2100, 3, 1));
    }
}
