//! `denobridge_datasource` (`read`) and `denobridge_ephemeral_resource`
//! (`open`, `renew`, `close`).
//!
//! A failed call is an error diagnostic here; denobridge records the error
//! and then reads the diagnostics of the answer it did not get, which
//! panics the provider.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ctywire::Value;
use ctywire_bridge::{Json, Object};

use crate::diag::{self, Diagnostic, Diagnostics};
use crate::props::{receive, send};
use crate::script::{params, Answer, Permissions, Runner, Script};

/// What a data source read or an ephemeral open produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Read {
    /// The configuration with `result` and `sensitive_result` set (the
    /// configuration itself when it failed).
    pub state: Value,
    /// Problems.
    pub diags: Diagnostics,
}

/// What `OpenEphemeralResource` answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    /// The ephemeral resource's value.
    pub result: Value,
    /// Private state for `renew` and `close`.
    pub private: Vec<u8>,
    /// When to call `renew`.
    pub renew_at: Option<SystemTime>,
    /// Problems.
    pub diags: Diagnostics,
}

/// What `RenewEphemeralResource` answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Renewed {
    /// Private state from now on.
    pub private: Vec<u8>,
    /// When to call `renew` again.
    pub renew_at: Option<SystemTime>,
    /// Problems.
    pub diags: Diagnostics,
}

fn with_results(config: &Value, result: &Json) -> Result<Value, Diagnostic> {
    let field = |k: &str| result.get(k).unwrap_or(&Json::Null);
    let r = receive(field("result"), "result")?;
    let s = receive(field("sensitiveResult"), "sensitive_result")?;
    let mut v = config.clone();
    for (n, x) in [("result", r), ("sensitive_result", s)] {
        v.set_attr(n, x).map_err(|e| {
            crate::diag::error(
                "The configuration has an unexpected shape",
                format!("Setting `{n}`: {e}"),
            )
        })?;
    }
    Ok(v)
}

/// `renewAt` as a time. The protocol says Unix seconds, its guide shows
/// milliseconds (`1735891200000`): a value past 10^11 (the year 5138 in
/// seconds) is taken as milliseconds.
fn renew_at(j: Option<&Json>, diags: &mut Diagnostics) -> Option<SystemTime> {
    let j = j.filter(|j| !j.is_null())?;
    let Some(n) = j.as_i64() else {
        diags.push(crate::diag::error(
            "The script's renewAt is not a whole number",
            format!(
                "renewAt must be Unix seconds; it is {}",
                diag::shorten(&j.to_string())
            ),
        ));
        return None;
    };
    let n = n.max(0) as u64;
    let d = if n >= 100_000_000_000 {
        Duration::from_millis(n)
    } else {
        Duration::from_secs(n)
    };
    UNIX_EPOCH.checked_add(d)
}

/// The ephemeral resource's private state: how to run its script again,
/// and the script's `privateData`. (It lives only as long as one Terraform
/// run, so its layout is this provider's own.)
fn ephemeral_private(script: &Script, data: Option<&Json>) -> Vec<u8> {
    let mut config = Object::new();
    config.insert("path", Json::String(script.path.clone()));
    config.insert("config_file", Json::String(script.config_file.clone()));
    let permissions = match &script.permissions {
        None => Json::Null,
        Some(p) => {
            let mut o = Object::new();
            o.insert("all", Json::Bool(p.all));
            let list =
                |xs: &[String]| Json::Array(xs.iter().map(|s| Json::String(s.clone())).collect());
            o.insert("allow", list(&p.allow));
            o.insert("deny", list(&p.deny));
            Json::Object(o)
        }
    };
    config.insert("permissions", permissions);
    let mut o = Object::new();
    o.insert("config", Json::Object(config));
    if let Some(d) = data {
        o.insert("data", d.clone());
    }
    Json::Object(o).to_vec()
}

fn parse_private(bytes: &[u8]) -> Result<(Script, Option<Json>), Diagnostic> {
    let bad = |why: &str| {
        crate::diag::error(
            "The ephemeral resource's private state cannot be read",
            why.to_string(),
        )
    };
    let text = std::str::from_utf8(bytes).map_err(|_| bad("it is not UTF-8"))?;
    let json = Json::parse(text).map_err(|e| bad(&e.to_string()))?;
    let config = json.get("config").ok_or_else(|| bad("it has no config"))?;
    let s = |k: &str| {
        config
            .get(k)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let list = |p: &Json, k: &str| -> Vec<String> {
        p.get(k)
            .and_then(Json::as_array)
            .map(|xs| {
                xs.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let permissions = config
        .get("permissions")
        .filter(|p| !p.is_null())
        .map(|p| Permissions {
            all: p.get("all").and_then(Json::as_bool).unwrap_or(false),
            allow: list(p, "allow"),
            deny: list(p, "deny"),
        });
    let script = Script {
        path: s("path"),
        config_file: s("config_file"),
        permissions,
    };
    Ok((script, json.get("data").cloned()))
}

fn private_params(data: Option<Json>) -> Json {
    let mut o = Object::new();
    if let Some(d) = data {
        o.insert("privateData", d);
    }
    Json::Object(o)
}

impl Runner {
    /// `ReadDataSource`: the script's `read {props}`; `result` and
    /// `sensitive_result` take the types the JSON implies.
    pub async fn read_data_source(&self, config: &Value) -> Read {
        let mut diags = Diagnostics::new();
        let state = self
            .open_or_read(config, "read", &mut diags)
            .await
            .map(|(state, _)| state)
            .unwrap_or_else(|()| config.clone());
        Read { state, diags }
    }

    /// `OpenEphemeralResource`: the script's `open {props}`.
    pub async fn open_ephemeral(&self, config: &Value) -> Opened {
        let mut diags = Diagnostics::new();
        match self.open_or_read(config, "open", &mut diags).await {
            Ok((result, answer)) => {
                let renew = renew_at(answer.get("renewAt"), &mut diags);
                let script = Script::from_value(config).unwrap_or_default();
                let data = answer.get("privateData").filter(|d| !d.is_null());
                Opened {
                    result,
                    private: ephemeral_private(&script, data),
                    renew_at: renew,
                    diags,
                }
            }
            Err(()) => Opened {
                result: config.clone(),
                private: Vec::new(),
                renew_at: None,
                diags,
            },
        }
    }

    async fn open_or_read(
        &self,
        config: &Value,
        method: &str,
        diags: &mut Diagnostics,
    ) -> Result<(Value, Json), ()> {
        let script = Script::from_value(config).map_err(|d| diags.push(d))?;
        if let Some(d) = self.unused_settings(&script) {
            diags.push(d);
        }
        // Terraform defers reads and opens whose configuration is not
        // wholly known; should one come anyway, it is refused at the
        // unknown's path rather than sent as a zero value.
        let props = send(config, "props").map_err(|d| diags.push(d))?;
        let result = self
            .run(&script, method, params([("props", props)]), diags)
            .await?;
        let state = with_results(config, &result);
        let target = state.as_ref().unwrap_or(config);
        diags.extend(diag::from_child(result.get("diagnostics"), target));
        let state = state.map_err(|d| diags.push(d))?;
        if diags.has_errors() {
            return Err(());
        }
        Ok((state, result))
    }

    /// `RenewEphemeralResource`: the script's `renew {privateData}`.
    pub async fn renew_ephemeral(&self, private: &[u8]) -> Renewed {
        let mut diags = Diagnostics::new();
        let out = |private: Vec<u8>, renew_at, diags| Renewed {
            private,
            renew_at,
            diags,
        };
        let (script, data) = match parse_private(private) {
            Ok(x) => x,
            Err(d) => return out(private.to_vec(), None, d.into()),
        };
        let Ok(result) = self
            .run(&script, "renew", private_params(data.clone()), &mut diags)
            .await
        else {
            return out(private.to_vec(), None, diags);
        };
        diags.extend(diag::from_child(
            result.get("diagnostics"),
            &Value::null(ctywire::Type::Dynamic),
        ));
        let renew = renew_at(result.get("renewAt"), &mut diags);
        let data = result
            .get("privateData")
            .filter(|d| !d.is_null())
            .cloned()
            .or(data);
        out(ephemeral_private(&script, data.as_ref()), renew, diags)
    }

    /// `CloseEphemeralResource`: the script's `close {privateData}`, which
    /// it may lack (-32601) or answer with `null`; otherwise `done` must be
    /// true.
    pub async fn close_ephemeral(&self, private: &[u8]) -> Diagnostics {
        let mut diags = Diagnostics::new();
        let (script, data) = match parse_private(private) {
            Ok(x) => x,
            Err(d) => return d.into(),
        };
        let session = match self.start(&script).await {
            Ok(s) => s,
            Err(d) => return d.into(),
        };
        let answer = session.call_optional("close", private_params(data)).await;
        session.finish(&mut diags).await;
        match answer {
            Err(d) => diags.push(d),
            Ok(Answer::NotFound) | Ok(Answer::Result(Json::Null)) => {}
            Ok(Answer::Result(r)) => {
                diags.extend(diag::from_child(
                    r.get("diagnostics"),
                    &Value::null(ctywire::Type::Dynamic),
                ));
                if !diags.has_errors() && r.get("done") != Some(&Json::Bool(true)) {
                    diags.push(crate::diag::error(
                        "Failed to close the ephemeral resource",
                        "The script did not report the operation as done (`done: true`).",
                    ));
                }
            }
        }
        diags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renew_at_takes_seconds_and_the_guide_s_milliseconds() {
        let mut d = Diagnostics::new();
        let at = |text: &str, d: &mut Diagnostics| renew_at(Some(&Json::parse(text).unwrap()), d);
        let want = UNIX_EPOCH + Duration::from_secs(1_735_891_200);
        assert_eq!(at("1735891200", &mut d), Some(want));
        assert_eq!(at("1735891200000", &mut d), Some(want));
        assert!(d.is_empty());
        assert_eq!(at("1.5", &mut d), None);
        assert!(d.has_errors());
        assert_eq!(renew_at(Some(&Json::Null), &mut d), None);
    }
}
