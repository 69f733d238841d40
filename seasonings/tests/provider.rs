//! `resources.getSchema` read into the framework's schema types: the
//! shapes of `terraform providers schema -json`, and errors naming the
//! field at fault.

use ctywire::schema::NestingMode;
use ctywire::Type;
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_provider::schema::Presence;
use ctywire_seasonings::protocol::Fields;
use ctywire_seasonings::provider::read_schemas;

// The e2e support carries the one rule for a missing interpreter, which
// the plugins' support uses.
#[path = "../../e2e/tests/support/mod.rs"]
mod e2e;
mod support;

const TRUE: u8 = 0xc3;

fn map(entries: &[(&str, Raw)]) -> Raw {
    let mut f = Fields::new();
    for (k, v) in entries {
        f.insert_raw(k, v.clone());
    }
    f.encode()
}

fn s(text: &str) -> Raw {
    let mut f = Fields::new();
    f.insert_str("x", text);
    f.get("x").cloned().unwrap()
}

fn strs(items: &[&str]) -> Raw {
    let mut f = Fields::new();
    f.insert_strs("x", items.iter().copied());
    f.get("x").cloned().unwrap()
}

fn yes() -> Raw {
    Raw(vec![TRUE])
}

fn result(resource_block: Raw) -> Fields {
    let mut f = Fields::new();
    f.insert_raw(
        "resource_schemas",
        map(&[(
            "thing",
            map(&[("block", resource_block), ("plan_change", yes())]),
        )]),
    );
    f
}

#[test]
fn a_resource_schema_reads_into_the_frameworks_block() {
    let block = map(&[
        (
            "attributes",
            map(&[
                ("name", map(&[("type", s("string")), ("required", yes())])),
                (
                    "tags",
                    map(&[
                        ("type", strs(&["map", "string"])),
                        ("optional", yes()),
                        ("computed", yes()),
                        ("sensitive", yes()),
                    ]),
                ),
                (
                    "ports",
                    map(&[
                        (
                            "nested_type",
                            map(&[
                                ("nesting_mode", s("list")),
                                (
                                    "attributes",
                                    map(&[(
                                        "port",
                                        map(&[("type", s("number")), ("required", yes())]),
                                    )]),
                                ),
                            ]),
                        ),
                        ("optional", yes()),
                    ]),
                ),
            ]),
        ),
        (
            "block_types",
            map(&[(
                "rule",
                map(&[
                    ("nesting_mode", s("set")),
                    ("max_items", Raw(vec![3])),
                    (
                        "block",
                        map(&[(
                            "attributes",
                            map(&[("note", map(&[("type", s("string")), ("optional", yes())]))]),
                        )]),
                    ),
                ]),
            )]),
        ),
        ("description", s("A thing.")),
    ]);
    let schemas = read_schemas(&result(block)).unwrap();
    assert!(schemas.data_sources.is_empty());
    let thing = &schemas.resources["thing"];
    assert!(thing.plan_change);
    assert_eq!(thing.version, 0);
    let b = &thing.block;
    assert_eq!(b.description, "A thing.");
    assert_eq!(b.attribute("name").unwrap().presence, Presence::Required);
    let tags = b.attribute("tags").unwrap();
    assert_eq!(tags.presence, Presence::OptionalComputed);
    assert!(tags.sensitive);
    assert_eq!(tags.ty, Type::map(Type::String));
    let ports = b.attribute("ports").unwrap();
    assert_eq!(ports.nested.as_ref().unwrap().nesting, NestingMode::List);
    let rule = b.block("rule").unwrap();
    assert_eq!((rule.nesting, rule.max_items), (NestingMode::Set, 3));
    assert_eq!(b.check(), Ok(()));
    assert_eq!(
        b.implied_type().unwrap(),
        Type::parse(
            r#"["object",{"name":"string","tags":["map","string"],
                "ports":["list",["object",{"port":"number"}]],
                "rule":["set",["object",{"note":"string"}]]}]"#
        )
        .unwrap()
    );
}

#[test]
fn an_attribute_both_required_and_computed_is_refused_at_its_path() {
    let block = map(&[(
        "attributes",
        map(&[(
            "name",
            map(&[
                ("type", s("string")),
                ("required", yes()),
                ("computed", yes()),
            ]),
        )]),
    )]);
    let err = read_schemas(&result(block)).unwrap_err().to_string();
    assert!(
        err.starts_with(".resource_schemas.thing.block.attributes.name:"),
        "{err}"
    );
}

#[test]
fn a_type_that_is_no_type_is_refused_at_its_path() {
    let block = map(&[(
        "attributes",
        map(&[(
            "name",
            map(&[("type", strs(&["list"])), ("required", yes())]),
        )]),
    )]);
    let err = read_schemas(&result(block)).unwrap_err().to_string();
    assert!(
        err.starts_with(".resource_schemas.thing.block.attributes.name.type:"),
        "{err}"
    );
}

#[test]
fn a_group_nesting_is_for_blocks_only() {
    let block = map(&[(
        "attributes",
        map(&[(
            "n",
            map(&[
                (
                    "nested_type",
                    map(&[("nesting_mode", s("group")), ("attributes", map(&[]))]),
                ),
                ("optional", yes()),
            ]),
        )]),
    )]);
    let err = read_schemas(&result(block)).unwrap_err().to_string();
    assert!(
        err.starts_with(".resource_schemas.thing.block.attributes.n.nested_type.nesting_mode:"),
        "{err}"
    );
}

mod served {
    //! The host provider in the framework's in-process Terraform core,
    //! against tests/resource_plugins/broken.py: a broken answer is an
    //! error naming the plugin, the method and the path, and an answer
    //! that refuses the apply keeps the prior state.

    use std::path::PathBuf;
    use std::sync::Arc;

    use ctywire_provider_testing::Harness;
    use ctywire_seasonings::host::{Plugin, PluginOptions};
    use ctywire_seasonings::provider::builder;
    use serde_json::json;

    use crate::support::plugins::python;

    /// The plugin on a runtime of its own (its pipes are driven there
    /// while the harness blocks), served in the harness.
    fn harness() -> Option<(tokio::runtime::Runtime, Harness)> {
        let py = python()?;
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/resource_plugins/broken.py");
        let rt = tokio::runtime::Runtime::new().unwrap();
        let provider = rt.block_on(async {
            let plugin =
                Plugin::spawn(py, [script.display().to_string()], PluginOptions::default())
                    .await
                    .expect("broken.py starts");
            builder(Arc::new(plugin)).await.expect("its schemas read")
        });
        let tf = Harness::new(provider.build().expect("its schemas are valid")).unwrap();
        Some((rt, tf))
    }

    #[test]
    fn an_apply_answer_of_the_wrong_type_names_the_plugin_the_method_and_the_path() {
        let Some((_rt, mut tf)) = harness() else {
            return;
        };
        tf.resource("broken_note.a", json!({ "content": "wrong type" }))
            .unwrap();
        let err = format!("{:?}", tf.apply().unwrap_err());
        assert!(
            err.contains(r#"plugin \"broken\", resources.applyChange"#),
            "{err}"
        );
        assert!(err.contains(".new_state.content"), "{err}");
        assert!(
            tf.state().unwrap().addresses().is_empty(),
            "nothing was created: {err}"
        );
    }

    #[test]
    fn an_apply_refused_as_a_whole_keeps_the_prior_state() {
        let Some((_rt, mut tf)) = harness() else {
            return;
        };
        tf.resource("broken_note.a", json!({ "content": "one" }))
            .unwrap();
        tf.apply().unwrap();
        let id = tf.state().unwrap().values("broken_note.a")["id"].clone();
        tf.resource("broken_note.a", json!({ "content": "refuse" }))
            .unwrap();
        let err = format!("{:?}", tf.apply().unwrap_err());
        assert!(err.contains("this content is refused"), "{err}");
        assert!(
            err.contains("Attr(\"content\")"),
            "the plugin's path: {err}"
        );
        let state = tf.state().unwrap();
        assert_eq!(
            state.values("broken_note.a")["content"],
            "one",
            "the prior state stays"
        );
        assert_eq!(state.values("broken_note.a")["id"], id);
    }
}

mod arbitrary {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever a plugin answers, reading its schemas gives a value or
        /// an error, never a panic.
        #[test]
        fn reading_any_answer_as_schemas_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(fields) = Fields::read(&bytes) {
                let _ = read_schemas(&fields);
            }
        }

        /// The same for answers shaped like schemas, with arbitrary leaves.
        #[test]
        fn reading_schema_shaped_answers_never_panics(
            leaf in proptest::collection::vec(any::<u8>(), 0..16),
            key in "(type|required|optional|computed|nested_type|nesting_mode|attributes|block_types|block|deprecated|version)",
        ) {
            let leaf = Raw(leaf);
            let attr = map(&[(&key, leaf.clone()), ("type", s("string"))]);
            let block = map(&[("attributes", map(&[("a", attr)])), (&key, leaf)]);
            let _ = read_schemas(&result(block));
        }
    }
}

#[test]
fn a_schema_nested_deeper_than_the_limit_is_refused_not_a_stack_overflow() {
    // {block_types: {a: {nesting_mode: "single", block: ...}}}, 10,000
    // deep: each level is a prefix of the next, so the bytes are built
    // flat, and reading stops at the limit instead of recursing on.
    let level = {
        let mut f = Vec::new();
        rmp::encode::write_map_len(&mut f, 1).unwrap();
        rmp::encode::write_str(&mut f, "block_types").unwrap();
        rmp::encode::write_map_len(&mut f, 1).unwrap();
        rmp::encode::write_str(&mut f, "a").unwrap();
        rmp::encode::write_map_len(&mut f, 2).unwrap();
        rmp::encode::write_str(&mut f, "nesting_mode").unwrap();
        rmp::encode::write_str(&mut f, "single").unwrap();
        rmp::encode::write_str(&mut f, "block").unwrap();
        f
    };
    let mut bytes = level.repeat(10_000);
    bytes.push(0x80);
    let err = read_schemas(&result(Raw(bytes))).unwrap_err().to_string();
    assert!(err.contains("nest more than 64 deep"), "{err}");
    assert!(
        err.starts_with(".resource_schemas.thing.block.block_types.a.block"),
        "{err}"
    );
}
