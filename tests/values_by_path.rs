//! Reading, replacing, walking and transforming values by path, and the
//! small conveniences around them.

use ctywire::{Error, Path, Type, Value};

fn listener(note: &str) -> Value {
    Value::object([("port", Value::number(80)), ("note", Value::string(note))])
}

/// `{listener = {http = {port = 80, note = "plain"}, https = {...}}, tags = ["a", "b"]}`
fn config() -> Value {
    Value::object([
        (
            "listener",
            Value::map(
                Type::Dynamic,
                [("http", listener("plain")), ("https", listener("tls"))],
            )
            .unwrap(),
        ),
        (
            "tags",
            Value::list(Type::String, vec![Value::string("a"), Value::string("b")]).unwrap(),
        ),
    ])
}

fn path(steps: &[&str]) -> Path {
    steps.iter().fold(Path::root(), |p, s| {
        if let Some(k) = s.strip_prefix('"') {
            p.key(k.trim_end_matches('"'))
        } else if let Ok(i) = s.parse() {
            p.index(i)
        } else {
            p.attr(*s)
        }
    })
}

#[test]
fn get_follows_attributes_keys_and_indexes() {
    let v = config();
    assert_eq!(
        v.get(&path(&["listener", "\"https\"", "note"])).unwrap(),
        &Value::string("tls")
    );
    assert_eq!(v.get(&path(&["tags", "1"])).unwrap(), &Value::string("b"));
    assert_eq!(v.get(&Path::root()).unwrap(), &v);
}

#[test]
fn a_step_that_does_not_exist_is_named_at_the_path_it_was_taken_from() {
    let v = config();
    let cases = [
        (
            path(&["listener", "\"ftp\""]),
            r#".listener: there is no key "ftp""#,
        ),
        (path(&["nope"]), r#"there is no attribute "nope""#),
        (
            path(&["tags", "5"]),
            ".tags: index 5 is out of range (2 elements)",
        ),
        (
            path(&["tags", "0", "x"]),
            r#".tags[0]: a string has no attribute "x""#,
        ),
        (
            path(&["listener", "http"]),
            r#".listener: a map of object has no attribute "http""#,
        ),
    ];
    for (p, want) in cases {
        assert_eq!(v.get(&p).unwrap_err().to_string(), want, "{p}");
    }
    let holes = Value::object([
        ("n", Value::null(Type::list(Type::String))),
        ("u", Value::unknown(Type::list(Type::String))),
    ]);
    assert_eq!(
        holes.get(&path(&["n", "0"])).unwrap_err().to_string(),
        ".n: the value is null (looking for index 0)"
    );
    assert_eq!(
        holes.get(&path(&["u", "0"])).unwrap_err().to_string(),
        ".u: the value is not known yet (looking for index 0)"
    );
}

#[test]
fn with_replaces_one_nested_attribute_and_types_follow() {
    let v = config();
    let note = path(&["listener", "\"http\"", "note"]);
    let changed = v.with(&note, Value::string("redirect")).unwrap();
    assert_eq!(changed.get(&note).unwrap(), &Value::string("redirect"));
    // Everything else is as it was.
    assert_eq!(
        changed.get(&path(&["listener", "\"https\""])).unwrap(),
        &listener("tls")
    );
    assert_eq!(changed.get(&path(&["tags"])), v.get(&path(&["tags"])));
    // An attribute may change its type: the object's type follows.
    let port = path(&["listener", "\"http\"", "port"]);
    let retyped = v.with(&path(&["tags"]), Value::string("none")).unwrap();
    assert_eq!(retyped.ty().attribute_type("tags"), Some(&Type::String));
    // Elements of a map of objects must keep one type.
    let err = v.with(&port, Value::string("eighty")).unwrap_err();
    assert!(err.to_string().starts_with(".listener"), "{err}");
}

#[test]
fn replacing_a_set_element_keeps_the_set_canonical() {
    let s = Value::set(Type::String, vec![Value::string("b"), Value::string("d")]).unwrap();
    let changed = s.with(&path(&["1"]), Value::string("a")).unwrap();
    let elems: Vec<&str> = changed
        .elements()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(elems, ["a", "b"]);
    // Replacing with an equal element merges them.
    let merged = s.with(&path(&["1"]), Value::string("b")).unwrap();
    assert_eq!(merged.len(), Some(1));
}

#[test]
fn a_list_refuses_an_element_of_another_type_at_its_path() {
    let mut v = config();
    let err = v
        .set_at(&path(&["tags", "0"]), Value::number(1))
        .unwrap_err();
    assert!(err.to_string().starts_with(".tags"), "{err}");
    // A failed set leaves the value as it was.
    assert_eq!(v, config());
    v.set_at(&path(&["tags", "0"]), Value::string("z")).unwrap();
    assert_eq!(v.get(&path(&["tags", "0"])).unwrap(), &Value::string("z"));
}

#[test]
fn walk_visits_parents_before_their_parts_and_can_skip() {
    let v = config();
    let mut seen = Vec::new();
    v.walk(|p, _| {
        seen.push(p.to_string());
        // Skip what is inside the "https" listener.
        Ok(p.to_string() != r#".listener["https"]"#)
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            "",
            ".listener",
            r#".listener["http"]"#,
            r#".listener["http"].note"#,
            r#".listener["http"].port"#,
            r#".listener["https"]"#,
            ".tags",
            ".tags[0]",
            ".tags[1]",
        ]
    );
    let err = v
        .walk(|p, v| {
            if v.as_str() == Some("b") {
                return Err(Error::custom("no b allowed").within(p));
            }
            Ok(true)
        })
        .unwrap_err();
    assert_eq!(err.to_string(), ".tags[1]: no b allowed");
}

#[test]
fn transform_plans_computed_nulls_as_unknown_in_a_few_lines() {
    let rule = |note: Option<&str>| {
        Value::object([
            ("port", Value::number(443)),
            (
                "note",
                Value::from_option(note.map(Value::string), Type::String),
            ),
        ])
    };
    let proposed = Value::object([
        ("id", Value::null(Type::String)),
        (
            "rule",
            Value::list(rule(None).ty().clone(), vec![rule(Some("x")), rule(None)]).unwrap(),
        ),
    ]);
    let computed = |p: &Path| {
        let s = p.to_string();
        s == ".id" || (s.starts_with(".rule[") && s.ends_with("].note"))
    };
    let planned = proposed
        .transform(|p, v| {
            Ok(if v.is_null() && computed(p) {
                Value::unknown(v.ty().clone())
            } else {
                v
            })
        })
        .unwrap();
    assert!(!planned.attr("id").unwrap().is_known());
    assert_eq!(
        planned.get(&path(&["rule", "0", "note"])).unwrap(),
        &Value::string("x")
    );
    assert!(!planned
        .get(&path(&["rule", "1", "note"]))
        .unwrap()
        .is_known());
    // Parts come first: a parent sees its transformed parts.
    let mut order = Vec::new();
    config()
        .transform(|p, v| {
            order.push(p.to_string());
            Ok(v)
        })
        .unwrap();
    assert_eq!(
        order.first().map(String::as_str),
        Some(r#".listener["http"].note"#)
    );
    assert_eq!(order.last().map(String::as_str), Some(""));
}

#[test]
fn owned_access_takes_parts_out_without_cloning() {
    let v = config();
    let attrs = v.into_attributes().unwrap();
    let names: Vec<&str> = attrs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["listener", "tags"]);
    let mut attrs = attrs.into_iter();
    let (_, listeners) = attrs.next().unwrap();
    let (_, tags) = attrs.next().unwrap();
    let keys: Vec<String> = listeners
        .into_entries()
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, ["http", "https"]);
    assert_eq!(tags.into_elements().unwrap().len(), 2);
    assert_eq!(Value::string("x").into_elements(), None);
}

#[test]
fn every_integer_type_converts_exactly() {
    assert_eq!(Value::from(u128::MAX).to_string(), u128::MAX.to_string());
    assert_eq!(Value::from(i128::MIN).to_string(), i128::MIN.to_string());
    assert_eq!(Value::from(usize::MAX).as_u64(), Some(usize::MAX as u64));
    assert_eq!(Value::from(-3i8).as_i64(), Some(-3));
    assert_eq!(Value::from(7u16).as_f64(), Some(7.0));
    assert_eq!(Value::from(u64::MAX).as_i64(), None);
    assert!(Value::from_f64(f64::NAN).is_err());
    assert_eq!(Value::from_f64(0.5).unwrap().as_f64(), Some(0.5));
}

#[test]
fn setting_an_attribute_in_place_equals_rebuilding_the_object() {
    let v = Value::object([
        ("a", Value::string("x")),
        (
            "b",
            Value::list(Type::Number, vec![Value::number(1), Value::number(2)]).unwrap(),
        ),
        ("c", Value::number(1)),
    ]);
    for (name, new) in [
        ("a", Value::unknown(Type::String)),
        ("b", Value::null(Type::list(Type::Number))),
        // Another type: the object's type follows it.
        ("c", Value::string("now a string")),
    ] {
        let mut in_place = v.clone();
        in_place.set_attr(name, new.clone()).unwrap();
        let rebuilt = Value::object(
            v.attributes()
                .unwrap()
                .map(|(n, old)| (n, if n == name { new.clone() } else { old.clone() })),
        );
        assert_eq!(in_place, rebuilt, "{name}");
        assert_eq!(in_place.ty(), rebuilt.ty(), "{name}");
        assert_eq!(v.with_attr(name, new).unwrap(), rebuilt, "{name}");
    }
}
