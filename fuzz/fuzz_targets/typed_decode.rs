//! Arbitrary bytes, as msgpack or JSON, into a fixed provider-like struct
//! holding every wrapper (Option, Unknowable, Value, sets, maps, nested
//! blocks): never a panic; straight from the bytes accepts exactly what
//! `decode` + `from_value` accept; what is read writes back; text lent
//! out of the input (`&str`, `Cow`) reads as the owned strings do.
#![no_main]

mod common;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use ctywire::{from_value, json, msgpack, IgnoredAttributes, Number, Type, Unknowable, Value};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Rule {
    port: u16,
    note: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Grant {
    who: Option<String>,
    level: Option<Number>,
    scopes: Option<BTreeMap<String, String>>,
}

#[derive(Serialize, Deserialize)]
struct Thing {
    name: String,
    size: Option<i64>,
    ratio: Unknowable<Option<f64>>,
    exact: Option<Number>,
    tags: BTreeMap<String, String>,
    ports: BTreeSet<u16>,
    id: Unknowable<String>,
    rule: Vec<Rule>,
    pair: Option<(String, bool)>,
    grants: Option<Vec<Option<Grant>>>,
    extra: Value,
}

/// `Thing`'s text, lent by the input.
#[derive(Deserialize)]
struct Lent<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    tags: BTreeMap<&'a str, &'a str>,
    #[serde(flatten)]
    _rest: IgnoredAttributes,
}

/// Where the input reads both as `Lent` and as `Thing` (`Thing` may refuse
/// what `Lent` ignores; `Lent` refuses text that must be normalized or
/// unescaped), both hold the same text.
fn lent_agrees(lent: ctywire::Result<Lent>, owned: &ctywire::Result<Thing>) {
    if let (Ok(l), Ok(t)) = (lent, owned) {
        assert_eq!(l.name, t.name, "lent and owned names differ");
        assert!(
            l.tags.iter().eq(t
                .tags
                .iter()
                .map(|(k, v)| (&k[..], &v[..]))
                .collect::<BTreeMap<_, _>>()
                .iter()),
            "lent and owned tags differ"
        );
    }
}

fn thing_type() -> &'static Type {
    static TY: OnceLock<Type> = OnceLock::new();
    TY.get_or_init(|| {
        Type::parse(
            r#"["object",{"name":"string","size":"number","ratio":"number","exact":"number",
            "tags":["map","string"],"ports":["set","number"],"id":"string",
            "rule":["list",["object",{"port":"number","note":"string"}]],
            "pair":["tuple",["string","bool"]],"extra":"dynamic",
            "grants":["set",["object",{"who":"string","level":"number","scopes":["map","string"]}]]}]"#,
        )
        .expect("the fuzz type")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&format, payload)) = data.split_first() else {
        return;
    };
    let ty = thing_type();
    let opts = common::options();
    if format & 1 == 0 {
        let direct = msgpack::from_slice_with::<Thing>(payload, ty, &opts);
        lent_agrees(msgpack::from_slice_with(payload, ty, &opts), &direct);
        let plain = msgpack::decode_with(payload, ty, &opts).and_then(|v| from_value::<Thing>(&v));
        assert_eq!(
            direct.is_ok(),
            plain.is_ok(),
            "from_slice and decode + from_value disagree"
        );
        if let (Ok(t), Ok(p)) = (direct, plain) {
            // An f64 may be written back differently (nearest value); the
            // write must still succeed, and both readings write the same
            // (a set read straight from the bytes is in the set's order).
            let bytes = msgpack::to_vec(&t, ty).expect("what was read writes back");
            assert_eq!(
                bytes,
                msgpack::to_vec(&p, ty).expect("writes back"),
                "the readings differ"
            );
        }
    } else {
        let direct = json::from_slice_with::<Thing>(payload, ty, &opts);
        lent_agrees(json::from_slice_with(payload, ty, &opts), &direct);
        let plain = json::decode_with(payload, ty, &opts).and_then(|v| from_value::<Thing>(&v));
        // The one deliberate difference: a repeated attribute, which
        // decode lets the last win, is refused straight into a struct.
        let repeated = matches!(&direct, Err(e) if e.message().starts_with("duplicate attribute"));
        if !repeated {
            assert_eq!(
                direct.is_ok(),
                plain.is_ok(),
                "from_slice and decode + from_value disagree"
            );
        }
        if let Ok(t) = direct {
            // Only an f64 grown to infinity (1e400 is a number) has no
            // JSON form; anything else read writes back.
            if let Err(e) = json::to_vec(&t, ty) {
                assert!(e.message().contains("infinity"), "{e}");
            }
        }
    }
});
