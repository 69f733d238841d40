//! Type-constraint JSON: never a panic; a parsed type prints and parses
//! back to itself.
#![no_main]

use ctywire::Type;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(ty) = Type::parse_bytes(data, 128) {
        let text = ty.to_json();
        assert_eq!(
            Type::parse(&text).expect("printed type parses"),
            ty,
            "{text}"
        );
    }
});
