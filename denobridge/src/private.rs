//! Private state: the bytes Terraform keeps for a resource beside its state
//! and hands back on the next plan, apply and read.
//!
//! The resource's private state uses terraform-plugin-framework's layout,
//! so states written by denobridge keep working: a JSON object whose values
//! are base64 strings of JSON documents (a Go `map[string][]byte`).
//! denobridge keeps `write_only_props_hash` there as `{"hash":"<hex>"}`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ctywire_bridge::{Json, Object};

/// The framework's private state: key → JSON.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Private(Object);

impl Private {
    /// Reads the bytes; anything unreadable counts as empty (private state
    /// is the provider's own cache, and an unreadable one must not stop a
    /// plan: at worst the write-only version is bumped once more).
    pub fn parse(bytes: &[u8]) -> Private {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Private::default();
        };
        let Ok(Json::Object(outer)) = Json::parse(text) else {
            return Private::default();
        };
        let mut out = Object::new();
        for (k, v) in outer.iter() {
            let decoded = match v {
                // The framework's form: base64 of the JSON.
                Json::String(b64) => STANDARD
                    .decode(b64)
                    .ok()
                    .and_then(|raw| String::from_utf8(raw).ok())
                    .and_then(|t| Json::parse(&t).ok()),
                // Tolerated: the JSON itself.
                other => Some(other.clone()),
            };
            if let Some(j) = decoded {
                out.insert(k, j);
            }
        }
        Private(out)
    }

    /// The JSON under `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.0.get(key)
    }

    /// Sets `key`.
    pub fn set(&mut self, key: &str, value: Json) {
        self.0.insert(key, value);
    }

    /// The bytes, in the framework's layout (empty when there is nothing).
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.0.is_empty() {
            return Vec::new();
        }
        let outer: Object = self
            .0
            .iter()
            .map(|(k, v)| (k, Json::String(STANDARD.encode(v.to_string()))))
            .collect();
        Json::Object(outer).to_vec()
    }

    /// denobridge's `write_only_props_hash`.
    pub fn write_only_hash(&self) -> Option<&str> {
        self.get(WRITE_ONLY_HASH)?.get("hash")?.as_str()
    }

    /// Sets denobridge's `write_only_props_hash`.
    pub fn set_write_only_hash(&mut self, hash: &str) {
        let mut o = Object::new();
        o.insert("hash", Json::String(hash.to_string()));
        self.set(WRITE_ONLY_HASH, Json::Object(o));
    }
}

const WRITE_ONLY_HASH: &str = "write_only_props_hash";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_only_hash_reads_and_writes_the_framework_s_layout() {
        // What terraform-plugin-framework writes for denobridge:
        // {"write_only_props_hash": base64(`{"hash":"abc"}`)}
        let bytes = br#"{"write_only_props_hash":"eyJoYXNoIjoiYWJjIn0="}"#;
        let p = Private::parse(bytes);
        assert_eq!(p.write_only_hash(), Some("abc"));
        let mut q = Private::default();
        q.set_write_only_hash("abc");
        assert_eq!(q.to_bytes(), bytes.to_vec());
        assert_eq!(Private::parse(b"garbage"), Private::default());
        assert!(Private::default().to_bytes().is_empty());
    }
}
