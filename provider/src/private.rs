//! Private state: the bytes Terraform keeps beside a resource's state,
//! shows nobody, and hands back on the next plan, apply and read.
//!
//! The layout is terraform-plugin-framework's (`internal/privatestate`),
//! so a provider moved onto this framework keeps reading what it stored
//! before: a JSON object whose values are base64 strings, each of a JSON
//! document (Go's `map[string][]byte`). Keys beginning with `.` are the
//! framework's own (plugin-framework keeps `.import_before_read` there);
//! every other key is the provider's. A resource's private data is one
//! serde type whose fields are the provider's keys, so the framework can
//! add keys of its own later without touching it.
//!
//! The bytes are read only when someone asks: a resource that never uses
//! private state passes whatever Terraform sent through untouched, as
//! core carries it, and bytes it cannot read fail only the call that
//! reads them.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value as Json};

/// What marks a framework key.
const FRAMEWORK_PREFIX: char = '.';

/// Private data read: the framework's keys and the provider's, each key's
/// document already decoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Data {
    framework: Map<String, Json>,
    provider: Map<String, Json>,
}

impl Data {
    /// Reads Terraform's bytes. Empty bytes are no data. A JSON object
    /// that is not a map of base64 strings is another SDK's private data
    /// (terraform-plugin-sdk v2 stores `{"schema_version": "1"}` or
    /// `{"schema_version": 1}`): it is dropped with a warning in the log,
    /// as plugin-framework drops it, since no typed reader could make sense
    /// of it and failing would make every object moved from SDKv2
    /// unreadable. Base64 of something other than JSON is no other SDK's
    /// layout, so it stays an error, as in plugin-framework.
    fn decode(bytes: &[u8]) -> Result<Data, String> {
        if bytes.is_empty() {
            return Ok(Data::default());
        }
        let outer: Map<String, Json> =
            serde_json::from_slice(bytes).map_err(|e| format!("it is not a JSON object ({e})"))?;
        let decoded: Option<Vec<(String, Vec<u8>)>> = outer
            .into_iter()
            .map(|(key, encoded)| match encoded {
                Json::String(encoded) => STANDARD
                    .decode(encoded.as_bytes())
                    .ok()
                    .map(|raw| (key, raw)),
                _ => None,
            })
            .collect();
        let Some(decoded) = decoded else {
            log::warn!("discarding private state written by another SDK");
            return Ok(Data::default());
        };
        let mut data = Data::default();
        for (key, raw) in decoded {
            let doc: Json = serde_json::from_slice(&raw)
                .map_err(|e| format!("the value of {key:?} is not a JSON document ({e})"))?;
            let side = if key.starts_with(FRAMEWORK_PREFIX) {
                &mut data.framework
            } else {
                &mut data.provider
            };
            side.insert(key, doc);
        }
        Ok(data)
    }

    /// The bytes Terraform keeps. Data set empty is `{}`, not no bytes:
    /// Terraform 1.16 sends the plan's private data back on the plan just
    /// before apply, and no bytes there read as "not sent", which would
    /// bring back the prior private data the first plan cleared.
    fn encode(&self) -> Vec<u8> {
        let outer: Map<String, Json> = (self.framework.iter())
            .chain(&self.provider)
            .map(|(k, v)| (k.clone(), Json::String(STANDARD.encode(v.to_string()))))
            .collect();
        Json::Object(outer).to_string().into_bytes()
    }
}

/// The private data of one call: as Terraform sent it until the author
/// sets it.
#[derive(Debug)]
pub(crate) enum Private {
    Received(Vec<u8>),
    Set(Data),
}

impl Default for Private {
    fn default() -> Self {
        Private::Received(Vec::new())
    }
}

impl Private {
    /// The author's private data, typed; `None` when there is none.
    pub(crate) fn get<T: DeserializeOwned>(
        &self,
        type_name: &str,
    ) -> Result<Option<T>, Diagnostics> {
        let data = match self {
            Private::Received(bytes) => {
                &Data::decode(bytes).map_err(|why| unreadable(type_name, &why))?
            }
            Private::Set(data) => data,
        };
        if data.provider.is_empty() {
            return Ok(None);
        }
        serde_json::from_value(Json::Object(data.provider.clone()))
            .map(Some)
            .map_err(|e| {
                Diagnostic::error("Private state does not fit the provider's type")
                    .with_detail(format!(
                        "The private data stored with this {type_name} does not read as the type the provider asks for: {e}. An object written by an older version of the provider may keep data in another shape: this is a bug in the provider."
                    ))
                    .into()
            })
    }

    /// Sets the author's private data (`None`: clears it), keeping the
    /// framework's keys.
    pub(crate) fn set<T: Serialize>(&mut self, value: Option<&T>) -> Result<(), Diagnostics> {
        let provider = match value.map(serde_json::to_value).transpose() {
            Ok(None) => Map::new(),
            Ok(Some(Json::Object(fields))) => fields,
            Ok(Some(other)) => {
                return Err(invalid(format!(
                    "private data is a struct or a map, each field kept under its name; this one is {other}"
                )))
            }
            Err(e) => return Err(invalid(format!("it does not serialize as JSON: {e}"))),
        };
        if let Some(key) = provider.keys().find(|k| k.starts_with(FRAMEWORK_PREFIX)) {
            return Err(invalid(format!(
                "the field {key:?} begins with \"{FRAMEWORK_PREFIX}\", which marks the framework's own keys"
            )));
        }
        // An absent field reads back as `None`: nulls need not be kept.
        let provider = provider.into_iter().filter(|(_, v)| !v.is_null()).collect();
        let framework = match self {
            // Bytes that do not read lose nothing a reader could use.
            Private::Received(bytes) => Data::decode(bytes).unwrap_or_default().framework,
            Private::Set(data) => std::mem::take(&mut data.framework),
        };
        *self = Private::Set(Data {
            framework,
            provider,
        });
        Ok(())
    }

    /// Whether the call set its private data.
    pub(crate) fn is_set(&self) -> bool {
        matches!(self, Private::Set(_))
    }

    /// The bytes to answer Terraform with: what it sent when nobody set
    /// them.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            Private::Received(bytes) => bytes,
            Private::Set(data) => data.encode(),
        }
    }
}

fn unreadable(type_name: &str, why: &str) -> Diagnostics {
    Diagnostic::error("Invalid private state")
        .with_detail(format!(
            "The private data Terraform stored with this {type_name} cannot be read: {why}. Private state is written by the provider alone; bytes of another shape come from another program or a damaged state."
        ))
        .into()
}

fn invalid(why: String) -> Diagnostics {
    Diagnostic::error("Provider set invalid private state")
        .with_detail(format!(
            "The private data cannot be stored: {why}. This is a bug in the provider."
        ))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Seen {
        id: String,
        count: Option<u32>,
    }

    #[test]
    fn the_layout_is_plugin_frameworks_map_of_base64_json() {
        let mut p = Private::default();
        let seen = Seen {
            id: "a".into(),
            count: None,
        };
        p.set(Some(&seen)).unwrap();
        let bytes = p.into_bytes();
        // {"id": base64("\"a\"")}: Go's map[string][]byte of JSON.
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"id":"ImEi"}"#
        );
        let back = Private::Received(bytes).get::<Seen>("t").unwrap();
        assert_eq!(back, Some(seen));
    }

    #[test]
    fn framework_keys_survive_the_authors_set() {
        // {".import_before_read": base64("true"), "id": base64("\"a\"")}
        let received = br#"{".import_before_read":"dHJ1ZQ==","id":"ImEi"}"#.to_vec();
        let mut p = Private::Received(received);
        p.set(Some(&Seen {
            id: "b".into(),
            count: Some(2),
        }))
        .unwrap();
        let out: Map<String, Json> = serde_json::from_slice(&p.into_bytes()).unwrap();
        assert_eq!(out[".import_before_read"], "dHJ1ZQ==");
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn private_data_cleared_is_an_empty_object_not_no_bytes() {
        // No bytes in `planned_private` read as "not sent": the plan before
        // apply would then start again from the prior data.
        let mut p = Private::Received(br#"{"id":"ImEi"}"#.to_vec());
        p.set(None::<&()>).unwrap();
        assert_eq!(p.into_bytes(), b"{}");
    }

    #[test]
    fn untouched_bytes_pass_through_unread() {
        let p = Private::Received(b"\xff not json".to_vec());
        assert_eq!(p.into_bytes(), b"\xff not json");
    }

    #[test]
    fn another_sdks_private_data_reads_as_none() {
        let p = Private::Received(br#"{"schema_version":1,"e2bfb730":{"create":1}}"#.to_vec());
        assert_eq!(p.get::<Seen>("t").unwrap(), None);
        // terraform-plugin-sdk v2's usual shape: every value a string, but
        // not base64.
        let p = Private::Received(br#"{"schema_version":"1"}"#.to_vec());
        assert_eq!(p.get::<Seen>("t").unwrap(), None);
    }

    #[test]
    fn base64_of_something_other_than_json_is_an_error() {
        // base64("not json")
        let p = Private::Received(br#"{"id":"bm90IGpzb24="}"#.to_vec());
        let e = p.get::<Seen>("t").unwrap_err();
        assert!(format!("{e:?}").contains("not a JSON document"), "{e:?}");
    }

    #[test]
    fn a_key_of_the_framework_cannot_be_set_by_the_author() {
        let mut p = Private::default();
        let mut fields = std::collections::BTreeMap::new();
        fields.insert(".mine", 1);
        let e = p.set(Some(&fields)).unwrap_err();
        assert!(format!("{e:?}").contains("framework's own keys"), "{e:?}");
        let e = p.set(Some(&5)).unwrap_err();
        assert!(format!("{e:?}").contains("struct or a map"), "{e:?}");
    }
}
