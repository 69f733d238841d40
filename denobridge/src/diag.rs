//! Diagnostics as Terraform shows them, and the child's diagnostics turned
//! into them.
//!
//! The child's `diagnostics` are read leniently on purpose: denobridge
//! drops a diagnostic whose severity is neither `"error"` nor
//! `"warning"`, and a typed message would refuse the whole answer for it.
//! Here every diagnostic reaches the
//! user; one with another severity is reported as an error naming the
//! severity, since the script meant something we cannot tell apart from a
//! failure, and an error never lets a broken operation pass silently.

use ctywire::{Path, Value};
use ctywire_bridge::{resolve_prop_path, Json, PropSegment};

pub use ctywire_tfplugin6::{Diagnostic, Diagnostics, Severity};

/// An error with its detail: most of this provider's errors have both.
pub(crate) fn error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
    Diagnostic::error(summary).with_detail(detail)
}

/// A warning with its detail.
pub(crate) fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
    Diagnostic::warning(summary).with_detail(detail)
}

/// Root names the protocol's own examples use for `propPath`, mapped to the
/// attribute that holds that value (the guide writes `["nextProps", ...]`
/// for a `modifyPlan` diagnostic, a root attribute that does not exist).
fn root_alias(name: &str) -> &str {
    match name {
        "nextProps" | "currentProps" => "props",
        "currentState" => "state",
        "sensitiveState" | "currentSensitiveState" => "sensitive_state",
        "sensitiveResult" => "sensitive_result",
        "writeOnlyProps" | "nextWriteOnlyProps" => "write_only_props",
        other => other,
    }
}

/// The child's `diagnostics` field (absent, null or an array) as
/// diagnostics, each `propPath` resolved against `target`: the object of the
/// resource, data source or ephemeral resource the operation is about, so
/// that a name on an object is an attribute, a name on a map a key and a
/// number on a list or tuple an index. A path that does not resolve whole is
/// cut to its longest part that does, and the rest is named in the detail:
/// the diagnostic is never lost for a bad path.
pub fn from_child(diagnostics: Option<&Json>, target: &Value) -> Diagnostics {
    let mut out = Diagnostics::new();
    let items = match diagnostics {
        None | Some(Json::Null) => return out,
        Some(Json::Array(items)) => items,
        Some(other) => {
            out.push(error(
                "The script's diagnostics are not an array",
                format!("It sent `diagnostics: {}`.", shorten(&other.to_string())),
            ));
            return out;
        }
    };
    // A script may send any number of diagnostics, and each one's path
    // is resolved against the value: a bound keeps a hostile or broken
    // answer from costing unbounded time after the call's own timeout.
    for (i, item) in items.iter().take(MAX_DIAGNOSTICS).enumerate() {
        out.push(one(i, item, target));
    }
    if items.len() > MAX_DIAGNOSTICS {
        let rest = &items[MAX_DIAGNOSTICS..];
        let errors = rest
            .iter()
            .filter(|d| {
                !matches!(d.as_object().and_then(|o| o.get("severity")), Some(Json::String(s)) if s == "warning")
            })
            .count();
        let summary = format!(
            "The script sent {} diagnostics; the first {MAX_DIAGNOSTICS} are shown",
            items.len()
        );
        let detail = format!(
            "{} more were left out, {errors} of them not warnings.",
            rest.len()
        );
        // Left-out errors still fail the operation.
        out.push(if errors > 0 {
            error(summary, detail)
        } else {
            warning(summary, detail)
        });
    }
    out
}

/// How many of a script's diagnostics are reported one by one.
const MAX_DIAGNOSTICS: usize = 100;
/// No cty value nests deeper than ctywire's depth limit (256), so a longer
/// `propPath` cannot lead anywhere.
const MAX_PROP_PATH: usize = 257;

fn one(i: usize, item: &Json, target: &Value) -> Diagnostic {
    let Some(obj) = item.as_object() else {
        return error(
            "The script sent a diagnostic that is not an object",
            format!("diagnostics[{i}] is {}", shorten(&item.to_string())),
        );
    };
    let text = |key: &str| match obj.get(key) {
        Some(Json::String(s)) => s.clone(),
        None | Some(Json::Null) => String::new(),
        Some(other) => other.to_string(),
    };
    // Terraform shows these to a person: a page of text each at most.
    let summary = clip(&text("summary"), 1_000);
    let mut detail = clip(&text("detail"), 10_000);
    let severity = match obj.get("severity") {
        Some(Json::String(s)) if s == "error" => Severity::Error,
        Some(Json::String(s)) if s == "warning" => Severity::Warning,
        other => {
            let shown = other.map_or("(none)".to_string(), |j| j.to_string());
            append(
                &mut detail,
                format!(
                    "(The script gave this diagnostic the severity {shown}, which is neither \"error\" nor \"warning\"; it is reported as an error.)"
                ),
            );
            Severity::Error
        }
    };
    let path = match obj.get("propPath") {
        None | Some(Json::Null) => None,
        Some(p) => {
            let (path, note) = prop_path(p, target);
            if let Some(note) = note {
                append(&mut detail, note);
            }
            path
        }
    };
    let d = Diagnostic {
        severity,
        summary: if summary.is_empty() {
            "(the script gave no summary)".into()
        } else {
            summary
        },
        detail,
        attribute: None,
    };
    // Diagnostic::at keeps the one rule for a root path: no attribute.
    match path {
        Some(p) => d.at(p),
        None => d,
    }
}

fn append(detail: &mut String, more: String) {
    if !detail.is_empty() {
        detail.push('\n');
    }
    detail.push_str(&more);
}

/// A `propPath` as a path into `target`, and a note when some of it could
/// not be followed.
fn prop_path(p: &Json, target: &Value) -> (Option<Path>, Option<String>) {
    let Some(items) = p.as_array() else {
        return (
            None,
            Some(format!(
                "(Its propPath {} is not an array.)",
                shorten(&p.to_string())
            )),
        );
    };
    if items.len() > MAX_PROP_PATH {
        return (
            None,
            Some(format!(
                "(Its propPath has {} segments; no value nests that deep.)",
                items.len()
            )),
        );
    }
    let mut segments = Vec::with_capacity(items.len());
    for (n, s) in items.iter().enumerate() {
        let seg = match s {
            Json::String(s) if n == 0 => PropSegment::Name(root_alias(s).to_string()),
            Json::String(s) => PropSegment::Name(s.clone()),
            Json::Number(num) => match num.as_i64() {
                Some(i) => PropSegment::Index(i),
                None => PropSegment::Name(num.to_string()),
            },
            other => PropSegment::Name(other.to_string()),
        };
        segments.push(seg);
    }
    if segments.is_empty() {
        // denobridge blames the whole body for an empty path; so do we,
        // which is what "no path" means to Terraform.
        return (None, None);
    }
    match resolve_prop_path(target, &segments) {
        Ok(path) => (Some(path), None),
        Err(whole) => {
            // The longest prefix that resolves: the diagnostic still points
            // as close as it can.
            let mut best = None;
            for n in (1..segments.len()).rev() {
                if let Ok(path) = resolve_prop_path(target, &segments[..n]) {
                    best = Some(path);
                    break;
                }
            }
            let shown = p.to_string();
            (
                best,
                Some(format!(
                    "(Its propPath {} does not lead into the value: {whole}.)",
                    shorten(&shown)
                )),
            )
        }
    }
}

/// Text from the child, cut short for a message.
pub(crate) fn shorten(s: &str) -> String {
    clip(s, 300)
}

/// `s` cut to at most `max` bytes (at a character boundary), with an
/// ellipsis when cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctywire::Type;
    use ctywire_bridge::from_props;

    fn target() -> Value {
        let props = from_props(
            &Json::parse(r#"{"items": [{"name": "a"}], "tags": {"123": "x"}}"#).unwrap(),
            &Type::Dynamic,
        )
        .unwrap();
        let tags = Value::map(Type::String, vec![("123".to_string(), Value::string("x"))]).unwrap();
        let props = props.with_attr("tags", tags).unwrap();
        Value::object([("props", props), ("state", Value::null(Type::Dynamic))])
    }

    fn diags(text: &str) -> Diagnostics {
        from_child(Some(&Json::parse(text).unwrap()), &target())
    }

    #[test]
    fn a_prop_path_follows_the_value_s_types_not_the_look_of_its_segments() {
        let d = diags(
            r#"[{"severity":"warning","summary":"s","propPath":["props","items","0","name"]},
                {"severity":"warning","summary":"s","propPath":["props","tags","123"]}]"#,
        );
        let paths: Vec<String> = d
            .iter()
            .map(|d| d.attribute.as_ref().unwrap().to_string())
            .collect();
        // An object attribute stays an attribute, and the numeric map key
        // "123" stays a key (denobridge makes it index 123).
        assert_eq!(paths, [".props.items[0].name", r#".props.tags["123"]"#]);
    }

    fn first(d: &Diagnostics) -> &Diagnostic {
        d.iter().next().expect("a diagnostic")
    }

    #[test]
    fn an_unknown_severity_is_reported_as_an_error_naming_it() {
        let d = diags(r#"[{"severity":"fatal","summary":"boom","detail":"d"}]"#);
        assert_eq!(d.len(), 1);
        assert_eq!(first(&d).severity, Severity::Error);
        assert!(first(&d).detail.contains("\"fatal\""), "{:?}", first(&d));
        assert!(d.has_errors());
    }

    #[test]
    fn a_prop_path_that_does_not_resolve_keeps_its_longest_valid_part_and_says_so() {
        let d = diags(r#"[{"severity":"error","summary":"s","propPath":["nextProps","nope"]}]"#);
        assert_eq!(first(&d).attribute.as_ref().unwrap().to_string(), ".props");
        assert!(first(&d).detail.contains("nope"), "{:?}", first(&d));
    }

    #[test]
    fn malformed_diagnostics_become_errors_instead_of_being_ignored() {
        let d = from_child(Some(&Json::parse(r#""oops""#).unwrap()), &target());
        assert!(d.has_errors());
        let d = diags(r#"[3, {"summary": "no severity"}]"#);
        assert_eq!(d.len(), 2);
        assert!(d.has_errors());
    }
}
