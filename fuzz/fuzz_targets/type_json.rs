//! Type-constraint JSON: never a panic; a parsed type prints and parses
//! back to itself.
#![no_main]

use ctywire::{DecodeOptions, Type};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(ty) = Type::parse_with(data, &DecodeOptions::new().max_depth(128)) {
        let text = ty.to_json();
        assert_eq!(
            Type::parse(&text).expect("printed type parses"),
            ty,
            "{text}"
        );
    }
});
