//! The bridge to child processes: what denobridge gets wrong, done right;
//! props round trips; sensitive splitting; JSON-RPC validation and framing;
//! and what the example provider side relies on.

// The core's generators and helpers, shared rather than copied.
#[path = "../../tests/support/mod.rs"]
mod support;

use support::ty;

use ctywire::{json, msgpack, Category, Number, Path, Type, Value};
use ctywire_bridge::jsonrpc::{code, Id, LineReader, Message};
use ctywire_bridge::{
    from_json, from_props, merge_sensitive, resolve_prop_path, split_sensitive, to_json, to_props,
    Json, PropSegment, Unknowns,
};
use proptest::prelude::*;

/// A JSON document from its text, for writing props in tests as they look
/// on the wire.
fn j(text: &str) -> Json {
    Json::parse(text).unwrap()
}

// ---- the denobridge defects ---------------------------------------------

#[test]
fn sets_are_sent_as_arrays_in_canonical_order_not_as_strings() {
    let v = Value::set(Type::String, vec![Value::string("b"), Value::string("a")]).unwrap();
    assert_eq!(
        to_props(&v, Unknowns::Refuse).unwrap().json,
        j(r#"["a", "b"]"#)
    );
    let back = from_props(&j(r#"["b", "a", "b"]"#), &ty(r#"["set","string"]"#)).unwrap();
    assert_eq!(back, v);
}

#[test]
fn unknowns_are_never_silently_replaced() {
    let v = Value::object([
        ("name", Value::unknown(Type::String)),
        ("ok", Value::unknown(Type::Bool)),
        ("tags", Value::unknown(Type::set(Type::String))),
        ("any", Value::unknown(Type::Dynamic)),
    ]);
    let err = to_props(&v, Unknowns::Refuse).unwrap_err();
    assert_eq!(
        (err.category(), err.to_string()),
        (
            Category::Unrepresentable,
            ".any: value is not known yet".to_string()
        )
    );
    let props = to_props(&v, Unknowns::NullAndReport).unwrap();
    assert_eq!(
        props.json,
        j(r#"{"any": null, "name": null, "ok": null, "tags": null}"#)
    );
    let reported: Vec<String> = props.unknown.iter().map(Path::to_string).collect();
    assert_eq!(reported, [".any", ".name", ".ok", ".tags"]);
}

#[test]
fn numbers_are_exact_not_float64() {
    // Each number's exact decimal written out by hand (float64 would make
    // the first 9007199254740992, the third 0.1000000000000000055511151…,
    // and have no 1e400 at all). Both directions are held to the literal,
    // never to the library's own rendering of what it parsed.
    let exact = [
        ("9007199254740993", "9007199254740993".to_string()),
        (
            "123456789012345678901234567890123456789012",
            "123456789012345678901234567890123456789012".to_string(),
        ),
        ("0.1", "0.1".to_string()),
        ("-1e-30", "-0.000000000000000000000000000001".to_string()),
        ("1e400", format!("1{}", "0".repeat(400))),
    ];
    for (text, decimal) in &exact {
        let v = Value::number(text.parse::<Number>().unwrap());
        let props = to_props(&v, Unknowns::Refuse).unwrap().json;
        assert_eq!(props.to_string(), *decimal, "{text} to props");
        let back = from_props(&j(decimal), &Type::Number).unwrap();
        assert_eq!(back.to_string(), *decimal, "{decimal} from props");
        assert_eq!(back, v, "{text}");
    }
    let from_string = from_props(&j(r#""9007199254740993""#), &Type::Number).unwrap();
    assert_eq!(from_string.to_string(), "9007199254740993");
    assert!(to_props(&Value::number(Number::infinity(false)), Unknowns::Refuse).is_err());
}

#[test]
fn mixed_arrays_in_dynamic_positions_become_tuples_terraform_accepts() {
    let v = from_props(
        &j(r#"{"mixed": [1, "a", {"k": true}], "same": ["x", "y"]}"#),
        &Type::Dynamic,
    )
    .unwrap();
    assert_eq!(
        v.ty().to_json(),
        r#"["object",{"mixed":["tuple",["number","string",["object",{"k":"bool"}]]],"same":["tuple",["string","string"]]}]"#
    );
    // And it encodes, and decodes as Terraform would read it.
    let bytes = msgpack::encode(&v, &Type::Dynamic).unwrap();
    assert_eq!(msgpack::decode(&bytes, &Type::Dynamic).unwrap(), v);
}

#[test]
fn diagnostic_paths_are_resolved_by_type_never_guessed() {
    let t = ty(r#"["object",{"props":"dynamic"}]"#);
    let v = from_props(
        &j(r#"{"props": {"items": [{"name": "a"}], "tags": {"123": "x", "name": "y"}}}"#),
        &t,
    )
    .unwrap();
    let name = |s: &str| PropSegment::Name(s.into());
    let p = resolve_prop_path(
        &v,
        &[
            name("props"),
            name("items"),
            PropSegment::Index(0),
            name("name"),
        ],
    )
    .unwrap();
    assert_eq!(
        p.steps(),
        Path::root()
            .attr("props")
            .attr("items")
            .index(0)
            .attr("name")
            .steps()
    );
    // "123" under an object built from a JSON object is an attribute...
    let p = resolve_prop_path(&v, &[name("props"), name("tags"), name("123")]).unwrap();
    assert_eq!(p.to_string(), ".props.tags.123");
    // ...and a map key under a map, never an index.
    let m = Value::object([(
        "tags",
        Value::map(Type::String, [("123", Value::string("x"))]).unwrap(),
    )]);
    let p = resolve_prop_path(&m, &[name("tags"), name("123")]).unwrap();
    assert_eq!(p.to_string(), r#".tags["123"]"#);
    assert!(resolve_prop_path(&m, &[name("tags"), PropSegment::Index(123)]).is_err());
    let err = resolve_prop_path(&v, &[name("nextProps")]).unwrap_err();
    assert!(
        err.message()
            .contains("there is no attribute \"nextProps\""),
        "{err}"
    );
    let err =
        resolve_prop_path(&v, &[name("props"), name("items"), PropSegment::Index(5)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        ".props.items: index 5 is out of range (length 1)"
    );
    assert!(resolve_prop_path(&v, &[name("props"), name("items"), name("-1")]).is_err());
}

#[test]
fn props_for_objects_refuse_unknown_keys_and_name_the_valid_ones() {
    let t = ty(r#"["object",{"a":"string","b":"number"}]"#);
    let err = from_props(&j(r#"{"a": "x", "c": 1}"#), &t).unwrap_err();
    assert_eq!(
        err.message(),
        r#"unexpected attribute "c"; the attributes are ["a", "b"]"#
    );
    let v = from_props(&j(r#"{"a": "x"}"#), &t).unwrap();
    assert!(v.attr("b").unwrap().is_null());
    let err = from_props(&j(r#"{"a": "x", "b": [1]}"#), &t).unwrap_err();
    assert_eq!(err.to_string(), ".b: a number is required, not a tuple");
}

// ---- the Json document and serde -------------------------------------------

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind")]
enum Shape {
    Circle { r: f64 },
    Square { side: u32 },
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum Either {
    Num(f64),
    Text(String),
}

/// Messages shaped like denobridge's `create` params and result: a typed
/// message with props inside, and one whose fields are checked.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateParams {
    props: Json,
    #[serde(skip_serializing_if = "Option::is_none")]
    write_only_props: Option<Json>,
}

#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)] // read only to check what deserializing refuses
struct CreateResult {
    id: String,
    diagnostics: Option<Vec<ChildDiagnostic>>,
}

#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)]
struct ChildDiagnostic {
    severity: ChildSeverity,
    summary: String,
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum ChildSeverity {
    Error,
    Warning,
}

#[test]
fn numbers_stay_exact_through_props_and_typed_messages() {
    let v = Value::object([
        (
            "big",
            Value::number(
                "123456789012345678901234567890.25"
                    .parse::<Number>()
                    .unwrap(),
            ),
        ),
        ("tiny", Value::number("1e-30".parse::<Number>().unwrap())),
    ]);
    let props = to_props(&v, Unknowns::Refuse).unwrap().json;
    let params = to_json(&CreateParams {
        props,
        write_only_props: None,
    })
    .unwrap();
    let wire = params.to_string();
    assert_eq!(
        wire,
        r#"{"props":{"big":123456789012345678901234567890.25,"tiny":0.000000000000000000000000000001}}"#
    );
    let back: CreateParams = from_json(&Json::parse(&wire).unwrap()).unwrap();
    let t = ty(r#"["object",{"big":"number","tiny":"number"}]"#);
    assert_eq!(from_props(&back.props, &t).unwrap(), v);
}

#[test]
fn typed_messages_report_the_path_of_a_bad_field() {
    let bad = j(
        r#"{"id":"x","diagnostics":[{"severity":"warning","summary":"a"},{"severity":"fatal","summary":"b"}]}"#,
    );
    let err = from_json::<CreateResult>(&bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        ".diagnostics[1].severity: unknown variant `fatal`, expected `error` or `warning`"
    );
    let err = from_json::<CreateResult>(&j(r#"{"id":7}"#)).unwrap_err();
    assert_eq!(
        err.to_string(),
        ".id: invalid type: integer `7`, expected a string"
    );
    let err = from_json::<CreateResult>(&j(r#"{}"#)).unwrap_err();
    assert_eq!(err.to_string(), "missing field `id`");
}

#[test]
fn tagged_and_untagged_enums_of_plain_numbers_work_through_from_json() {
    let shapes: Vec<Shape> = from_json(&j(
        r#"[{"kind":"Circle","r":2.5},{"kind":"Square","side":3}]"#,
    ))
    .unwrap();
    assert_eq!(
        shapes,
        [Shape::Circle { r: 2.5 }, Shape::Square { side: 3 }]
    );
    let either: Vec<Either> = from_json(&j(r#"[2.5, "x", 7]"#)).unwrap();
    assert_eq!(
        either,
        [Either::Num(2.5), Either::Text("x".into()), Either::Num(7.0)]
    );
    assert_eq!(
        to_json(&shapes).unwrap().to_string(),
        r#"[{"kind":"Circle","r":2.5},{"kind":"Square","side":3}]"#
    );
}

#[test]
fn json_degrades_to_plain_numbers_through_other_serde_formats() {
    let doc = j(r#"{"b":[18446744073709551615,-5,0.5,123456789012345678901234567890],"a":null}"#);
    // serde_json without arbitrary_precision: u64/i64 when they fit, else
    // the nearest f64. Written straight out, members keep their order.
    assert_eq!(
        serde_json::to_string(&doc).unwrap(),
        r#"{"b":[18446744073709551615,-5,0.5,1.2345678901234568e+29],"a":null}"#
    );
    assert_eq!(serde_json::to_string(&j("-0")).unwrap(), "-0.0");
    assert_eq!(serde_json::to_string(&j("1e400")).unwrap(), r#""1e400""#);
    let from_serde_json: Json = serde_json::from_str(r#"{"x":[1,2.5,"s",true]}"#).unwrap();
    assert_eq!(from_serde_json, j(r#"{"x":[1,2.5,"s",true]}"#));
}

#[test]
fn no_document_is_mistaken_for_the_private_number_form() {
    // The names ctywire uses inside serde are plain strings to a document.
    for text in [
        r#"{"$ctywire::private::JsonNumber":"12"}"#,
        r#"{"$ctywire::private::Json":12}"#,
    ] {
        let doc = j(text);
        assert_eq!(from_json::<Json>(&doc).unwrap(), doc);
        assert_eq!(to_json(&doc).unwrap(), doc);
        let via_serde_json: Json = serde_json::from_str(text).unwrap();
        assert_eq!(via_serde_json, doc);
    }
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Every {
    Unit,
    Newtype(i8),
    Tuple(u16, String),
    Struct { a: Option<bool>, b: Vec<f32> },
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Many {
    every: Vec<Every>,
    keyed: std::collections::BTreeMap<u32, char>,
    unit: (),
    nothing: Option<String>,
    big: u128,
    small: i64,
    bytes: Vec<u8>,
}

#[test]
fn serde_shapes_are_written_as_serde_json_writes_them_and_read_back() {
    let v = Many {
        every: vec![
            Every::Unit,
            Every::Newtype(-3),
            Every::Tuple(7, "t".into()),
            Every::Struct {
                a: None,
                b: vec![0.1, 2.0],
            },
        ],
        keyed: [(2, 'x'), (10, '"')].into(),
        unit: (),
        nothing: None,
        big: u128::MAX,
        small: i64::MIN,
        bytes: vec![0, 255],
    };
    let j = to_json(&v).unwrap();
    assert_eq!(j.to_string(), serde_json::to_string(&v).unwrap());
    assert_eq!(from_json::<Many>(&j).unwrap(), v);
}

#[test]
fn serialization_errors_name_the_field() {
    let mut m = std::collections::BTreeMap::new();
    m.insert("k", vec![1.0, f64::INFINITY]);
    let err = to_json(&Every::Struct {
        a: None,
        b: vec![f32::NAN],
    })
    .unwrap_err();
    assert_eq!(err.to_string(), ".Struct.b[0]: NaN has no JSON form");
    let err = to_json(&m).unwrap_err();
    assert_eq!(err.to_string(), r#"["k"][1]: infinity has no JSON form"#);
    let err = to_json(&std::collections::BTreeMap::from([((1, 2), 3)])).unwrap_err();
    assert!(err.message().contains("map key"), "{err}");
}

fn arb_json() -> impl Strategy<Value = Json> {
    let number = prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        "-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?",
    ];
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        number.prop_map(|t| Json::Number(t.parse().unwrap())),
        "\\PC{0,8}|[\"\\\\\n\t\u{0}-\u{1f}]{0,4}".prop_map(Json::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Json::Array),
            prop::collection::vec(("[a-z]{0,3}", inner), 0..6)
                .prop_map(|members| Json::Object(members.into_iter().collect())),
        ]
    })
}

// ---- properties ------------------------------------------------------------

/// `t` has no `dynamic` anywhere (plain JSON cannot say which collection
/// type a dynamic value had).
fn static_type() -> impl Strategy<Value = Type> {
    support::arb_type().prop_filter("no dynamic", |t| !t.has_dynamic())
}

fn all_paths(v: &Value, here: Path, out: &mut Vec<Path>) {
    out.push(here.clone());
    if let (Some(items), false) = (v.elements(), matches!(v.ty(), Type::Set(_))) {
        for (i, e) in items.iter().enumerate() {
            all_paths(e, here.clone().index(i as u64), out);
        }
    }
    if let Some(entries) = v.entries() {
        for (k, e) in entries {
            all_paths(e, here.clone().key(k), out);
        }
    }
    if let Some(attrs) = v.attributes() {
        for (k, e) in attrs {
            all_paths(e, here.clone().attr(k), out);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn props_and_back_is_the_identity_for_known_values(
        (t, v) in static_type().prop_flat_map(|t| (Just(t.clone()), support::known(t))),
    ) {
        prop_assume!(v.is_wholly_known());
        let props = match to_props(&v, Unknowns::Refuse) {
            Ok(p) => p,
            Err(e) => { prop_assert_eq!(e.message(), "infinity has no JSON form"); return Ok(()); }
        };
        prop_assert!(props.unknown.is_empty());
        let back = from_props(&props.json, &t).unwrap();
        // The same value, but that a null comes back at its type without
        // optional-attribute markers (as go-cty's conversion makes it), and
        // a number as the decimal the props carried: so compare the JSON
        // Terraform would receive, which writes every number exactly.
        prop_assert_eq!(
            json::encode(&back, &t).unwrap(),
            json::encode(&v, &t).unwrap(),
            "props {}", props.json
        );
    }

    #[test]
    fn json_documents_survive_text_and_serde_unchanged(doc in arb_json()) {
        let text = doc.to_string();
        prop_assert_eq!(&Json::parse(&text).unwrap(), &doc);
        prop_assert_eq!(Json::parse(&doc.to_string_pretty()).unwrap().to_string(), text.clone());
        prop_assert_eq!(&to_json(&doc).unwrap(), &doc);
        prop_assert_eq!(&from_json::<Json>(&doc).unwrap(), &doc);
    }

    #[test]
    fn big_numbers_survive_props((digits, scale) in ("[1-9][0-9]{40,80}", 0u32..20)) {
        let text = if scale == 0 { digits.clone() } else { format!("{digits}e-{scale}") };
        let v = Value::number(text.parse::<Number>().unwrap());
        let props = to_props(&v, Unknowns::Refuse).unwrap().json;
        prop_assert_eq!(from_props(&props, &Type::Number).unwrap(), v);
    }

    #[test]
    fn splitting_off_sensitive_parts_and_merging_them_back_is_lossless(
        (_, v) in support::typed_value(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut paths = Vec::new();
        all_paths(&v, Path::root(), &mut paths);
        let chosen: Vec<Path> = picks.iter().map(|i| paths[i.index(paths.len())].clone()).collect();
        let (state, secret) = split_sensitive(&v, &chosen).unwrap();
        prop_assert_eq!(merge_sensitive(&state, &secret).unwrap(), v);
    }
}

// ---- JSON-RPC ----------------------------------------------------------------

#[test]
fn json_rpc_messages_are_validated_strictly() {
    let code_of = |text: &str| match Message::parse(text) {
        Ok(m) => panic!("{text} parsed as {m:?}"),
        Err(resp) => match *resp {
            Message::Response {
                outcome: Err(e),
                id,
            } => (e.code, id),
            other => panic!("{other:?}"),
        },
    };
    assert_eq!(code_of("{").0, code::PARSE_ERROR);
    assert_eq!(
        code_of(r#"{"id":1,"method":"x"}"#),
        (code::INVALID_REQUEST, Id::Number(1.into()))
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#).0,
        code::INVALID_REQUEST
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#).0,
        code::INVALID_REQUEST
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":1}"#).0,
        code::INVALID_REQUEST
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":[1],"method":"x"}"#),
        (code::INVALID_REQUEST, Id::Null)
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","method":"x","params":3}"#).0,
        code::INVALID_REQUEST
    );
    assert_eq!(
        code_of(r#"[{"jsonrpc":"2.0","method":"x"}]"#).0,
        code::INVALID_REQUEST
    );
    assert_eq!(
        code_of(r#"{"jsonrpc":"2.0","id":"a","error":{"code":"x","message":"m"}}"#).0,
        code::INVALID_REQUEST
    );
    assert!(matches!(
        Message::parse(r#"{"jsonrpc":"2.0","method":"shutdown"}"#),
        Ok(Message::Notification { .. })
    ));
    assert!(matches!(
        Message::parse(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#),
        Ok(Message::Request { id: Id::Null, .. })
    ));
    let big =
        Message::parse(r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":null}"#)
            .unwrap();
    assert_eq!(
        big.to_json()["id"].to_string(),
        "123456789012345678901234567890"
    );
    let err = Message::parse(
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope","data":[1]}}"#,
    )
    .unwrap();
    assert_eq!(
        err.to_json(),
        j(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope","data":[1]}}"#)
    );
}

#[test]
fn json_rpc_lines_nest_as_deep_as_values_may_and_no_deeper() {
    let nested = |depth: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"m","params":{}1{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    // 200 levels: past serde_json's recursion limit of 128. The message
    // itself is one level.
    let m = Message::parse(&nested(200)).unwrap();
    assert_eq!(m.to_json().to_string(), nested(200));
    let resp = Message::parse(&nested(ctywire::DEFAULT_MAX_DEPTH)).unwrap_err();
    let err = resp.to_json();
    assert_eq!(err["error"]["code"].as_i64(), Some(code::PARSE_ERROR));
    let text = err["error"]["message"].as_str().unwrap();
    assert!(text.contains("depth") && text.contains("at byte"), "{text}");
}

#[test]
fn line_framing_skips_blank_lines_and_bounds_long_ones() {
    let long = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}", "x".repeat(100));
    let input = format!("\r\n  \n{{\"jsonrpc\":\"2.0\",\"method\":\"a\"}}\r\n{long}\n{{\"jsonrpc\":\"2.0\",\"method\":\"b\"}}");
    let mut r = LineReader::new(input.as_bytes(), 64);
    let names: Vec<String> = std::iter::from_fn(|| r.read().unwrap())
        .map(|m| match m {
            Ok(Message::Notification { method, .. }) => method,
            Ok(other) => format!("{other:?}"),
            Err(resp) => format!("error {}", resp.to_json()["error"]["code"]),
        })
        .collect();
    assert_eq!(names, ["a", "error -32600", "b"]);
    let mut r = LineReader::new(&b"\xff\xfe\n"[..], 64);
    let resp = r.read().unwrap().unwrap().unwrap_err();
    assert_eq!(
        resp.to_json()["error"]["code"].as_i64(),
        Some(code::PARSE_ERROR)
    );
}

#[test]
fn a_prop_path_that_misses_names_a_few_attributes_not_all_of_them() {
    // An object of 5,000 attributes: the error lists ten and counts the
    // rest, so that a script's bad paths cannot make messages as long as
    // the value.
    let attrs: Vec<(String, Value)> = (0..5_000)
        .map(|i| (format!("attribute_{i:04}"), Value::bool(true)))
        .collect();
    let v = Value::object(attrs);
    let err = resolve_prop_path(&v, &[PropSegment::Name("nope".into())]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("there is no attribute \"nope\""), "{text}");
    assert!(text.contains("and 4990 more"), "{text}");
    assert!(text.len() < 400, "{} bytes", text.len());
}

#[test]
fn a_message_written_straight_is_the_text_of_its_json_document() {
    use ctywire_bridge::jsonrpc::ErrorObject;
    let data = j(r#"{"why":[1,2.50,"x\n"],"n":null}"#);
    let messages = [
        Message::request(Id::Number(7.into()), "create", Some(data.clone())),
        Message::request(Id::String("a\"b".into()), "health", None),
        Message::notification("progress", Some(j("[1]"))),
        Message::notification("shutdown", None),
        Message::success(Id::Null, data.clone()),
        Message::failure(
            Id::Number(8.into()),
            ErrorObject {
                code: -32042,
                message: "it failed: \u{1}".into(),
                data: Some(data),
            },
        ),
        Message::failure(
            Id::Number(9.into()),
            ErrorObject::new(code::METHOD_NOT_FOUND, "no"),
        ),
    ];
    for m in messages {
        let mut straight = Vec::new();
        m.write_into(&mut straight);
        assert_eq!(
            String::from_utf8(straight.clone()).unwrap(),
            m.to_json().to_string()
        );
        // And it reads back as the same message.
        assert_eq!(
            Message::parse(std::str::from_utf8(&straight).unwrap()).unwrap(),
            m
        );
    }
}
