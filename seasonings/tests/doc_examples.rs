//! The example exchange of `docs/seasonings.md` §4, read out of the doc at
//! test time (so the doc cannot drift from the code): every block decodes
//! with the protocol module to what its JSON says, and what the protocol
//! module writes canonically is byte for byte the doc's hex.

use ctywire::{Type, Value};
use ctywire_bridge::msgpack_rpc::{Message, Raw};
use ctywire_seasonings::protocol::{
    canonical_method, code, method, Capability, ErrorObject, Fields, InitParams, InitResult,
    ProtocolVersion,
};

// The doc's examples are read by one reader, shared with the SDK's
// conformance test (tests/plugin.rs).
#[path = "support/doc.rs"]
mod doc;
use doc::{example, examples, examples_in};

#[test]
fn the_doc_has_all_eleven_examples_and_each_is_one_whole_message() {
    let all = examples();
    assert_eq!(
        all.len(),
        11,
        "{:#?}",
        all.iter().map(|(h, _)| h).collect::<Vec<_>>()
    );
    for (heading, bytes) in &all {
        Message::decode(bytes).unwrap_or_else(|e| panic!("{heading}: {e}"));
    }
}

fn request(bytes: &[u8]) -> (u32, String, Fields) {
    match Message::decode(bytes).unwrap() {
        Message::Request { id, method, params } => (
            id,
            canonical_method(&method).into_owned(),
            Fields::from_param_list(&params).unwrap(),
        ),
        other => panic!("not a request: {other:?}"),
    }
}

fn response(bytes: &[u8]) -> (u32, Raw, Raw) {
    match Message::decode(bytes).unwrap() {
        Message::Response { id, error, result } => (id, error, result),
        other => panic!("not a response: {other:?}"),
    }
}

#[test]
fn init_request_reads_and_is_written_byte_for_byte() {
    let bytes = example("\"init\"");
    let (id, m, params) = request(&bytes);
    assert_eq!((id, m.as_str()), (1, method::INIT));
    let init = InitParams::read(&params).unwrap();
    assert_eq!(
        init,
        InitParams {
            protocol_version: ProtocolVersion::CURRENT,
            host_name: "ctywire-seasonings".into(),
            host_version: "0.1.0".into(),
            capabilities: vec![
                Capability::Functions,
                Capability::Resources,
                Capability::Log
            ],
        }
    );
    let written = Message::Request {
        id: 1,
        method: method::INIT.into(),
        params: init.encode().into_params(),
    };
    assert_eq!(written.encode(), bytes);
}

#[test]
fn init_result_reads_and_is_written_byte_for_byte() {
    let bytes = example("\"name\": \"slugs\"");
    let (id, error, result) = response(&bytes);
    assert!(error.is_nil());
    let info = InitResult::read(&Fields::read(&result.0).unwrap()).unwrap();
    assert_eq!(
        (id, info.name.as_str(), info.version.as_str()),
        (1, "slugs", "1.2.0")
    );
    assert_eq!(
        info.capabilities,
        [Capability::Functions, Capability::Resources]
    );
    assert_eq!(
        ProtocolVersion::CURRENT.negotiate(info.protocol_version, true),
        Ok(ProtocolVersion::CURRENT)
    );
    assert_eq!(info.encode().encode(), result);
}

#[test]
fn ping_and_its_answer() {
    let (id, m, params) = request(&example("\"ping\""));
    assert_eq!(
        (id, m.as_str(), params.keys().count()),
        (2, method::PING, 0)
    );
    let (id, error, result) = response(&example("\"status\": \"ok\""));
    assert!(error.is_nil());
    assert_eq!(id, 2);
    assert_eq!(
        Fields::read(&result.0).unwrap().str("status").unwrap(),
        "ok"
    );
}

#[test]
fn a_function_call_with_an_unknown_argument_and_its_unknown_result() {
    let (id, m, params) = request(&example("\"slug\""));
    assert_eq!((id, m.as_str()), (3, method::FUNCTIONS_CALL));
    assert_eq!(params.str("name").unwrap(), "slug");
    let args = params
        .list("arguments", |b| ctywire::msgpack::decode(b, &Type::String))
        .unwrap();
    assert_eq!(args[0], Value::string("Hello World"));
    assert_eq!(args[1], Value::unknown(Type::String));

    let bytes = example("[1, 3, null");
    let (id, error, result) = response(&bytes);
    assert!(error.is_nil());
    let result = Fields::read(&result.0).unwrap();
    assert_eq!(id, 3);
    assert_eq!(
        result.value("result", &Type::String).unwrap(),
        Value::unknown(Type::String)
    );
    // Written back: the same bytes.
    let mut f = Fields::new();
    f.insert_value("result", &Value::unknown(Type::String), &Type::String)
        .unwrap();
    let written = Message::Response {
        id: 3,
        error: Raw::nil(),
        result: f.encode(),
    };
    assert_eq!(written.encode(), bytes);
}

#[test]
fn a_log_notification() {
    let Message::Notification { method: m, params } = Message::decode(&example("\"log\"")).unwrap()
    else {
        panic!("a notification")
    };
    assert_eq!(m, method::LOG);
    let f = Fields::from_param_list(&params).unwrap();
    assert_eq!(f.str("level").unwrap(), "info");
    assert_eq!(f.str("message").unwrap(), "made slug");
    assert_eq!(
        f.fields("fields").unwrap().str("input").unwrap(),
        "Hello World"
    );
}

/// An error response: the error read, and written back byte for byte.
fn error_example(heading_part: &str) -> (u32, ErrorObject, Raw) {
    let (id, error, result) = response(&example(heading_part));
    assert!(result.is_nil());
    let e = ErrorObject::read(&error.0);
    assert_eq!(e.encode(), error, "written canonically as the doc has it");
    (id, e, error)
}

#[test]
fn a_function_error_naming_its_argument() {
    let (id, e, _) = error_example("\"Invalid separator\"");
    assert_eq!(id, 4);
    assert_eq!(e.code, code::REQUEST_FAILED);
    assert_eq!(e.message, "Invalid separator");
    assert_eq!(
        e.detail.as_deref(),
        Some("the separator must be one character")
    );
    assert_eq!(e.function_argument, Some(1));
}

#[test]
fn a_dynamic_argument_carries_its_type() {
    let (id, _, params) = request(&example("\"describe\""));
    assert_eq!(id, 5);
    let args = params
        .list("arguments", |b| ctywire::msgpack::decode(b, &Type::Dynamic))
        .unwrap();
    assert_eq!(args, [Value::string("hi")]);
    assert_eq!(args[0].ty(), &Type::String);
}

#[test]
fn method_not_found() {
    let (id, e, _) = error_example("-32601");
    assert_eq!((id, e.code), (6, code::METHOD_NOT_FOUND));
    assert_eq!(
        e.detail.as_deref(),
        Some("this plugin has no method \"storage.read\"")
    );
}

#[test]
fn a_version_mismatch_names_both_versions_as_negotiation_writes_it() {
    let (id, e, _) = error_example("-32001");
    assert_eq!(id, 1);
    // A 1.0 plugin refusing a 2.0 host writes exactly the doc's error.
    let host = ProtocolVersion::parse("2.0").unwrap();
    let refusal = ProtocolVersion::CURRENT.negotiate(host, false).unwrap_err();
    assert_eq!(refusal, e);
}

#[test]
fn every_prefix_and_every_byte_flip_of_every_example_reads_without_panicking() {
    for (heading, bytes) in examples() {
        for n in 0..bytes.len() {
            read_everything(&bytes[..n]);
        }
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x10, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                read_everything(&b);
            }
        }
        let _ = heading;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// Arbitrary bytes, and arbitrary bytes spliced into a real message.
    #[test]
    fn no_reader_panics_on_arbitrary_bytes(
        noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..96),
        which in 0usize..11,
        at in 0usize..256,
    ) {
        read_everything(&noise);
        let (_, mut bytes) = examples().swap_remove(which);
        let at = at.min(bytes.len());
        bytes.splice(at..at, noise);
        read_everything(&bytes);
    }
}

/// Every reader of the protocol module on `b`, results ignored: only a
/// panic (or a hang) fails.
fn read_everything(b: &[u8]) {
    let _ = ErrorObject::read(b);
    let _ = Fields::from_params(b);
    let _ = ctywire_seasonings::protocol::read_path(b);
    let _ = ctywire_seasonings::protocol::read_capabilities(b);
    let _ = ctywire_seasonings::protocol::read_type(b);
    let _ = ctywire_seasonings::protocol::FunctionSignature::read(b);
    let _ = ctywire_seasonings::protocol::Diagnostic::read(b);
    if let Ok(Message::Request { params, .. } | Message::Notification { params, .. }) =
        Message::decode(b)
    {
        if let Ok(f) = Fields::from_param_list(&params) {
            let _ = InitParams::read(&f);
            let _ = InitResult::read(&f);
            let _ = ctywire_seasonings::protocol::read_function_schemas(&f);
            let _ = ctywire_seasonings::protocol::read_diagnostics(&f);
            for k in f.keys() {
                let _ = f.value(k, &Type::Dynamic);
            }
        }
    }
    if let Ok(Message::Response { error, result, .. }) = Message::decode(b) {
        let _ = ErrorObject::read(&error.0);
        if let Ok(f) = Fields::read(&result.0) {
            let _ = InitResult::read(&f);
        }
    }
}

/// §8's storage exchange: every block one whole message, each request a
/// storage method with its params, states as `bin`, and the `held`
/// answer the lock info the request carried.
#[test]
fn the_storage_examples_read_as_the_section_says() {
    let all = examples_in("## 8. Level 2: storage");
    assert_eq!(all.len(), 9);
    let mut lock_info = None;
    for (heading, bytes) in &all {
        match Message::decode(bytes).unwrap_or_else(|e| panic!("{heading}: {e}")) {
            Message::Request { method, params, .. } => {
                assert!(method.starts_with("storage."), "{heading}");
                assert!(heading.contains(&format!("{method:?}")), "{heading}");
                let f = Fields::from_param_list(&params).unwrap();
                if method == method::STORAGE_WRITE {
                    assert_eq!(f.str("state_id").unwrap(), "default");
                    assert_eq!(f.get("state").unwrap().0[0], 0xc4, "bin 8");
                }
                if method == method::STORAGE_LOCK {
                    lock_info = Some(f.fields("info").unwrap());
                }
            }
            Message::Response { error, result, .. } => {
                assert!(error.is_nil(), "{heading}");
                let f = Fields::read(&result.0).unwrap();
                if f.get("held").is_some() {
                    assert_eq!(Some(f.fields("held").unwrap()), lock_info);
                    assert_eq!(
                        f.fields("held").unwrap().str("ID").unwrap(),
                        "9f1c1f64-4c8e-4a47-8f0e-2b1a5d3e7c10"
                    );
                }
            }
            other => panic!("{heading}: {other:?}"),
        }
    }
    assert!(lock_info.is_some());
}
