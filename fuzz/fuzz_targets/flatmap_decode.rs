//! A legacy flatmap state (`RawState.flatmap`, what UpgradeResourceState
//! reads from a state written before Terraform 0.12) as a value of a type:
//! the input's first line is the type's JSON, each further line one
//! `key=value` entry. Never a panic, never an allocation a count asks for
//! beyond the limits; a value that comes out is of the type.
#![no_main]

mod common;

use std::collections::BTreeMap;

use ctywire::schema::flatmap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((ty, rest)) = common::split(data) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let state: BTreeMap<String, String> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    if let Ok(v) = flatmap::decode_with(&state, &ty, &common::options()) {
        assert!(v.ty().conforms_to(&ty), "{v} is not a {ty}");
    }
});
