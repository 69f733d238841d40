//! The protocol module on its own: liberal reading, canonical writing,
//! and errors that name the field.

use ctywire::{Path, Type};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_seasonings::protocol::{
    canonical_method, code, read_capabilities, read_diagnostics, read_function_schemas, read_path,
    read_type, write_path, Capability, Diagnostic, ErrorObject, Fields, InitResult,
    ProtocolVersion, Severity,
};

/// msgpack bytes from a compact description, to keep tests readable.
fn str_(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_str(&mut out, s).unwrap();
    out
}

fn map(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_map_len(&mut out, entries.len() as u32).unwrap();
    for (k, v) in entries {
        out.extend(str_(k));
        out.extend_from_slice(v);
    }
    out
}

fn array(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_array_len(&mut out, items.len() as u32).unwrap();
    items.iter().for_each(|i| out.extend_from_slice(i));
    out
}

fn int(n: i64) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_sint(&mut out, n).unwrap();
    out
}

#[test]
fn method_names_are_dotted_and_slashes_are_accepted() {
    assert_eq!(canonical_method("functions/call"), "functions.call");
    assert_eq!(canonical_method("functions.call"), "functions.call");
}

#[test]
fn params_are_one_map_in_an_array_and_a_bare_map_or_nothing_is_read_too() {
    let m = map(&[("name", str_("slug"))]);
    for params in [array(std::slice::from_ref(&m)), m.clone()] {
        assert_eq!(
            Fields::from_params(&params).unwrap().str("name").unwrap(),
            "slug"
        );
    }
    for empty in [array(&[]), array(&[vec![0xc0]]), array(&[map(&[])])] {
        assert_eq!(Fields::from_params(&empty).unwrap().keys().count(), 0);
    }
    let e = Fields::from_params(&array(&[m.clone(), m])).unwrap_err();
    assert!(
        e.to_string().contains("one map in an array, not 2 values"),
        "{e}"
    );
    let e = Fields::from_params(&array(&[str_("x")])).unwrap_err();
    assert_eq!(e.to_string(), "[0]: a map is required, not a string");
}

#[test]
fn reading_a_field_names_it_in_the_error() {
    let f = Fields::read(&map(&[("name", int(3)), ("n", str_("x"))])).unwrap();
    assert_eq!(
        f.str("name").unwrap_err().to_string(),
        ".name: a string is required, not an integer"
    );
    assert_eq!(
        f.str("missing").unwrap_err().to_string(),
        ".missing: required, but missing"
    );
    let e = f.value("n", &Type::Number).unwrap_err();
    assert!(e.to_string().starts_with(".n:"), "{e}");
    let e = Fields::read(&map(&[("a", int(1)), ("a", int(2))])).unwrap_err();
    assert_eq!(e.to_string(), ".a: the key appears twice");
}

#[test]
fn length_headers_larger_than_the_bytes_are_errors_not_allocations() {
    // A map and an array claiming 4 billion entries, with two bytes of them.
    for b in [
        vec![0xdf, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02],
        vec![0xdd, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02],
        vec![0xdb, 0xff, 0xff, 0xff, 0xff, b'a'],
    ] {
        assert!(Fields::from_params(&b).is_err());
        assert!(read_path(&b).is_err());
        assert!(read_type(&b).is_err());
        let e = ErrorObject::read(&b);
        assert_eq!(e.code, code::INTERNAL_ERROR);
    }
}

#[test]
fn paths_read_all_step_forms_and_are_written_canonically() {
    let b = array(&[
        str_("rule"),
        int(0),
        map(&[("key", str_("env"))]),
        map(&[("attr", str_("port"))]),
        map(&[("index", int(2))]),
    ]);
    let p = read_path(&b).unwrap();
    assert_eq!(p.to_string(), r#".rule[0]["env"].port[2]"#);
    let canonical = array(&[
        str_("rule"),
        int(0),
        map(&[("key", str_("env"))]),
        str_("port"),
        int(2),
    ]);
    assert_eq!(write_path(&p).0, canonical);
    assert_eq!(read_path(&canonical).unwrap(), p);
    assert_eq!(write_path(&Path::root()).0, [0x90]);
    let e = read_path(&array(&[str_("a"), int(-1)])).unwrap_err();
    assert_eq!(e.to_string(), "[1]: an index is not negative (-1 given)");
    let e = read_path(&array(&[map(&[("other", int(1))])])).unwrap_err();
    assert!(e.to_string().starts_with("[0]: a path step is"), "{e}");
}

#[test]
fn errors_are_read_from_a_map_a_string_or_neovims_pair() {
    let e = ErrorObject::read(&str_("boom"));
    assert_eq!((e.code, e.message.as_str()), (code::INTERNAL_ERROR, "boom"));
    let e = ErrorObject::read(&array(&[int(0), str_("Vim:E492")]));
    assert_eq!((e.code, e.message.as_str()), (0, "Vim:E492"));
    let e = ErrorObject::read(&int(7));
    assert_eq!(e.code, code::INTERNAL_ERROR);
    assert!(e.message.contains("not a map: 07"), "{}", e.message);
    let e = ErrorObject::read(&map(&[
        ("code", int(1)),
        ("message", str_("bad")),
        ("path", array(&[str_("tags"), map(&[("key", str_("env"))])])),
    ]));
    assert_eq!(e.path.unwrap().to_string(), r#".tags["env"]"#);
}

#[test]
fn a_malformed_error_field_is_left_out_and_said_in_the_detail() {
    let e = ErrorObject::read(&map(&[
        ("code", str_("one")),
        ("message", str_("bad")),
        ("function_argument", int(-1)),
    ]));
    assert_eq!((e.code, e.message.as_str()), (code::INTERNAL_ERROR, "bad"));
    assert_eq!(e.function_argument, None);
    let detail = e.detail.unwrap();
    assert!(
        detail.contains(".code") && detail.contains(".function_argument"),
        "{detail}"
    );
}

#[test]
fn errors_are_written_canonically_and_read_back() {
    let mut e = ErrorObject::new(code::INVALID_PARAMS, "Invalid value").with_detail("no");
    e.path = Some(Path::root().attr("a").index(1).key("k"));
    e.function_argument = Some(2);
    assert_eq!(ErrorObject::read(&e.encode().0), e);
    assert_eq!(
        e.to_string(),
        r#"Invalid value (code -32602) at .a[1]["k"] (argument 2): no"#
    );
}

#[test]
fn diagnostics_read_with_their_paths_and_round_trip() {
    let d = map(&[
        ("severity", str_("warning")),
        ("summary", str_("Deprecated")),
        ("path", array(&[str_("size")])),
    ]);
    let result = Fields::read(&map(&[("diagnostics", array(std::slice::from_ref(&d)))])).unwrap();
    let ds = read_diagnostics(&result).unwrap();
    assert_eq!(ds[0].severity, Severity::Warning);
    assert_eq!(ds[0].path.as_ref().unwrap().to_string(), ".size");
    assert_eq!(Diagnostic::read(&ds[0].encode().0).unwrap(), ds[0]);
    let bad = map(&[("severity", str_("fatal")), ("summary", str_("x"))]);
    let result = Fields::read(&map(&[("diagnostics", array(&[d, bad]))])).unwrap();
    let e = read_diagnostics(&result).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#".diagnostics[1].severity: "error" or "warning", not "fatal""#
    );
    assert!(read_diagnostics(&Fields::new()).unwrap().is_empty());
}

#[test]
fn capabilities_take_aliases_and_ignore_unknown_names() {
    let b = array(&[
        str_("managed_resources"),
        str_("state_caching"),
        str_("functions"),
        str_("middleware_hooks"),
        str_("state_storage"),
        str_("resources"),
    ]);
    assert_eq!(
        read_capabilities(&b).unwrap(),
        [
            Capability::Resources,
            Capability::Functions,
            Capability::Hooks,
            Capability::Storage
        ]
    );
}

#[test]
fn versions_negotiate_to_the_lower_minor_of_the_same_major() {
    let v = |s| ProtocolVersion::parse(s).unwrap();
    assert_eq!(v("1.3").negotiate(v("1.1"), true).unwrap(), v("1.1"));
    assert_eq!(v("1").to_string(), "1.0");
    let e = v("1.0").negotiate(v("3.2"), true).unwrap_err();
    assert_eq!(e.code, code::UNSUPPORTED_VERSION);
    assert_eq!(
        e.detail.unwrap(),
        "the host speaks Seasonings 1.0; this plugin speaks 3.2"
    );
    for bad in ["", "1.", "a.b", "1.0.0", "-1.0", "99999999999.0"] {
        assert!(ProtocolVersion::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn the_successor_drafts_init_result_is_read_too() {
    let b = map(&[
        ("protocol_version", str_("1.0")),
        ("supported_capabilities", array(&[str_("functions")])),
        (
            "provider_info",
            map(&[("name", str_("p")), ("version", str_("2"))]),
        ),
    ]);
    let info = InitResult::read(&Fields::read(&b).unwrap()).unwrap();
    assert_eq!((info.name.as_str(), info.version.as_str()), ("p", "2"));
    assert_eq!(info.capabilities, [Capability::Functions]);
    let b = map(&[("protocol_version", str_("1.0")), ("name", str_("p"))]);
    let e = InitResult::read(&Fields::read(&b).unwrap()).unwrap_err();
    assert_eq!(e.to_string(), ".version: required, but missing");
}

#[test]
fn types_are_their_json_as_msgpack() {
    let t = read_type(&array(&[
        str_("object"),
        map(&[
            ("a", str_("string")),
            ("b", array(&[str_("list"), str_("number")])),
        ]),
        array(&[str_("b")]),
    ]))
    .unwrap();
    assert_eq!(
        t,
        Type::object_with_optional(
            [("a", Type::String), ("b", Type::list(Type::Number))],
            ["b"]
        )
        .unwrap()
    );
    assert!(read_type(&int(1)).is_err());
    // Depth is bounded: 10,000 nested arrays are refused, not recursed into.
    let mut deep = vec![0x91; 10_000];
    deep.extend(str_("string"));
    assert!(read_type(&deep).is_err());
}

#[test]
fn function_schema_errors_name_the_function_and_the_parameter() {
    let param = |t: Vec<u8>| map(&[("name", str_("x")), ("type", t)]);
    let schema = |p: Vec<u8>| {
        map(&[
            ("parameters", array(&[param(str_("string")), p])),
            ("return_type", str_("string")),
        ])
    };
    let result = Fields::read(&map(&[(
        "functions",
        map(&[("slug", schema(param(str_("strin"))))]),
    )]))
    .unwrap();
    let e = read_function_schemas(&result).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(".functions.slug.parameters[1].type:"),
        "{e}"
    );
    let result = Fields::read(&map(&[(
        "functions",
        map(&[("slug", schema(param(str_("bool"))))]),
    )]))
    .unwrap();
    let f = read_function_schemas(&result).unwrap();
    assert_eq!(f["slug"].parameters[1].ty, Type::Bool);
    assert!(f["slug"].parameter_of(2).is_none());
}

#[test]
fn fields_write_what_they_read() {
    let mut f = Fields::new();
    f.insert_str("a", "x");
    f.insert_raw("b", Raw(int(5)));
    f.insert_str("a", "y");
    let back = Fields::read(&f.encode().0).unwrap();
    assert_eq!(back, f);
    assert_eq!(back.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(f.into_params().len(), 1);
}

#[test]
fn a_missing_method_is_known_by_its_code_or_by_the_generic_libraries_string() {
    let by_code = ErrorObject::read(&map(&[
        ("code", int(code::METHOD_NOT_FOUND)),
        ("message", str_("Method not found")),
    ]));
    assert!(by_code.is_method_not_found());
    // What generic msgpack-rpc libraries (and the bridge) answer: a bare
    // string, read as an internal error.
    let bare = ErrorObject::read(&str_("method not found: resources.validateConfig"));
    assert_eq!(bare.code, code::INTERNAL_ERROR);
    assert!(bare.is_method_not_found());
    let other = ErrorObject::read(&str_("method failed"));
    assert!(!other.is_method_not_found());
}

#[test]
fn a_map_with_many_keys_reads_in_linear_time_and_a_repeated_key_is_refused() {
    // 200,000 keys: a scan per key would take minutes.
    let n = 200_000;
    let mut out = Vec::new();
    rmp::encode::write_map_len(&mut out, n).unwrap();
    for i in 0..n {
        out.extend(str_(&format!("k{i}")));
        out.push(0xc0);
    }
    let f = Fields::read(&out).unwrap();
    assert_eq!(f.iter().count(), n as usize);
    let twice = map(&[("a", int(1)), ("a", int(2))]);
    let e = Fields::read(&twice).unwrap_err();
    assert!(e.to_string().contains("appears twice"), "{e}");
}
