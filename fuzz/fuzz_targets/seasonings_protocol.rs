//! Arbitrary bytes into every Seasonings message reader (params and
//! results, `init` on both sides, function schemas, error objects, paths,
//! diagnostics, capabilities, types, versions): never a panic, and what
//! was read writes back to what reads the same.
#![no_main]

use ctywire::Type;
use ctywire_seasonings::protocol::{
    canonical_method, read_capabilities, read_diagnostics, read_function_schemas, read_path,
    read_type, write_path, Diagnostic, ErrorObject, Fields, InitParams, InitResult,
    ProtocolVersion,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(path) = read_path(data) {
        assert_eq!(read_path(&write_path(&path).0).ok(), Some(path));
    }
    let error = ErrorObject::read(data);
    assert_eq!(ErrorObject::read(&error.encode().0), error);
    if let Ok(d) = Diagnostic::read(data) {
        assert_eq!(Diagnostic::read(&d.encode().0).ok(), Some(d));
    }
    let _ = read_capabilities(data);
    let _ = read_type(data);
    for fields in [Fields::read(data), Fields::from_params(data)]
        .into_iter()
        .flatten()
    {
        assert_eq!(
            Fields::read(&fields.encode().0).ok().as_ref(),
            Some(&fields)
        );
        if let Ok(p) = InitParams::read(&fields) {
            assert_eq!(InitParams::read(&p.encode()).ok(), Some(p));
        }
        if let Ok(r) = InitResult::read(&fields) {
            assert_eq!(InitResult::read(&r.encode()).ok(), Some(r));
        }
        let _ = read_function_schemas(&fields);
        let _ = read_diagnostics(&fields);
        // What a result's value is read as: every type the host asks for.
        for ty in [Type::Dynamic, Type::String, Type::list(Type::Number)] {
            let _ = fields.value("result", &ty);
        }
        let _ = fields.opt_uint("function_argument");
        let _ = fields.flag("is_nullable");
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(v) = ProtocolVersion::parse(s) {
            let _ = ProtocolVersion::CURRENT.negotiate(v, true);
            assert_eq!(ProtocolVersion::parse(&v.to_string()).ok(), Some(v));
        }
        let _ = canonical_method(s);
    }
});
