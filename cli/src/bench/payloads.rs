//! Deterministic benchmark payloads with the shape of a real provider state
//! (an AWS-instance-like resource with nested blocks, sets of objects, tag
//! maps, and decimal numbers), plus a large dynamic document and large sets.

#![allow(dead_code)]

use ctywire::{Number, Type, Value};

/// A small deterministic generator (splitmix64), so every run benches the
/// same bytes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn word(&mut self, n: usize) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
        (0..n)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize] as char)
            .collect()
    }
}

fn t(json: &str) -> Type {
    Type::parse(json).expect("benchmark type")
}

pub fn ebs_type() -> Type {
    t(
        r#"["object",{"delete_on_termination":"bool","device_name":"string","encrypted":"bool",
        "iops":"number","kms_key_id":"string","snapshot_id":"string","tags":["map","string"],
        "throughput":"number","volume_id":"string","volume_size":"number","volume_type":"string"}]"#,
    )
}

pub fn instance_type() -> Type {
    let ebs = ebs_type().to_json();
    t(&format!(
        r#"["object",{{"ami":"string","arn":"string","associate_public_ip_address":"bool",
        "availability_zone":"string","cpu_core_count":"number","cpu_threads_per_core":"number",
        "disable_api_termination":"bool","ebs_optimized":"bool","get_password_data":"bool",
        "hibernation":"bool","host_id":"string","iam_instance_profile":"string","id":"string",
        "instance_state":"string","instance_type":"string","ipv6_address_count":"number",
        "ipv6_addresses":["list","string"],"key_name":"string","monitoring":"bool",
        "outpost_arn":"string","password_data":"string","placement_group":"string",
        "primary_network_interface_id":"string","private_dns":"string","private_ip":"string",
        "public_dns":"string","public_ip":"string","secondary_private_ips":["set","string"],
        "security_groups":["set","string"],"source_dest_check":"bool","subnet_id":"string",
        "tags":["map","string"],"tags_all":["map","string"],"tenancy":"string",
        "user_data":"string","user_data_base64":"string","vpc_security_group_ids":["set","string"],
        "ebs_block_device":["set",{ebs}],"root_block_device":["list",{ebs}],
        "credit_specification":["list",["object",{{"cpu_credits":"string"}}]],
        "metadata_options":["list",["object",{{"http_endpoint":"string","http_put_response_hop_limit":"number",
            "http_tokens":"string","instance_metadata_tags":"string"}}]],
        "timeouts":["object",{{"create":"string","delete":"string","update":"string"}}]}}]"#
    ))
}

/// A value of type `ty` with the distribution of the reference generator:
/// strings of 4–40 characters, integers and 3-decimal fractions, lists of
/// 0–4, sets of 1–6, maps of 3–12 entries, 10% null attributes.
pub fn value(rng: &mut Rng, ty: &Type, int_only: bool) -> Value {
    match ty {
        Type::String => {
            let n = rng.range(4, 40) as usize;
            Value::string(rng.word(n))
        }
        Type::Number => {
            let choice = rng.below(if int_only { 2 } else { 3 });
            match choice {
                0 => Value::number(rng.range(0, 5000)),
                1 => Value::number(rng.range(-10, 10)),
                _ => {
                    let thousandths = rng.range(0, 100_000);
                    let text = format!("{}.{:03}", thousandths / 1000, thousandths % 1000);
                    Value::number(text.parse::<Number>().expect("decimal"))
                }
            }
        }
        Type::Bool => Value::bool(rng.chance(0.5)),
        Type::List(e) => {
            let n = rng.range(0, 4);
            Value::list(
                (**e).clone(),
                (0..n).map(|_| value(rng, e, int_only)).collect(),
            )
            .expect("list")
        }
        Type::Set(e) => {
            let n = rng.range(1, 6);
            let items = if **e == Type::String {
                (0..n).map(|_| Value::string(rng.word(12))).collect()
            } else {
                (0..n).map(|_| value(rng, e, int_only)).collect()
            };
            Value::set((**e).clone(), items).expect("set")
        }
        Type::Map(e) => {
            let n = rng.range(3, 12);
            let entries: Vec<(String, Value)> = (0..n)
                .map(|_| (rng.word(6), value(rng, e, int_only)))
                .collect();
            Value::map((**e).clone(), entries).expect("map")
        }
        Type::Object(o) => Value::object(o.attributes().map(|(name, aty)| {
            let v = if rng.chance(0.1) {
                Value::null(aty.clone())
            } else {
                value(rng, aty, int_only)
            };
            (name, v)
        })),
        other => unreachable!("no generator for {other}"),
    }
}

/// One benchmark case: a name, a type, and a value of it.
pub struct Case {
    pub name: &'static str,
    pub ty: Type,
    pub value: Value,
}

/// (a) one instance state.
pub fn instance() -> Case {
    let ty = instance_type();
    let value = value(&mut Rng::new(7), &ty, false);
    Case {
        name: "instance",
        ty,
        value,
    }
}

/// (b) a fleet of `n` instance states.
pub fn fleet(n: usize) -> Case {
    let ity = instance_type();
    let mut rng = Rng::new(11);
    let items = (0..n).map(|_| value(&mut rng, &ity, false)).collect();
    Case {
        name: "fleet",
        ty: Type::list(ity.clone()),
        value: Value::list(ity, items).expect("fleet"),
    }
}

/// (c) a dynamic attribute holding a large nested document (500 policies).
pub fn dynamic_document() -> Case {
    let doc = t(
        r#"["object",{"Version":"string","Statement":["list",["object",{"Sid":"string","Effect":"string",
        "Action":["list","string"],"Resource":["list","string"],"Condition":["map",["map","string"]]}]]}]"#,
    );
    let mut rng = Rng::new(13);
    let docs = (0..500).map(|_| value(&mut rng, &doc, false)).collect();
    let policies = Value::list(doc, docs).expect("docs");
    let ty = t(r#"["object",{"policies":"dynamic"}]"#);
    Case {
        name: "dynamic",
        ty,
        value: Value::object([("policies", policies)]),
    }
}

/// (d) a set of `n` distinct strings.
pub fn string_set(n: usize) -> Case {
    let mut rng = Rng::new(17);
    let items = (0..n)
        .map(|i| Value::string(format!("{}-{i}", rng.word(10))))
        .collect();
    Case {
        name: "set-of-strings",
        ty: Type::set(Type::String),
        value: Value::set(Type::String, items).expect("set"),
    }
}

/// (d) a set of `n` distinct objects.
pub fn object_set(n: usize) -> Case {
    let ety = t(
        r#"["object",{"cidr":"string","from_port":"number","protocol":"string","self":"bool","to_port":"number"}]"#,
    );
    let mut rng = Rng::new(19);
    let items = (0..n)
        .map(|i| {
            Value::object([
                (
                    "cidr",
                    Value::string(format!("10.{}.{}.0/24", i / 256, i % 256)),
                ),
                ("from_port", Value::number(rng.range(0, 65535))),
                (
                    "protocol",
                    Value::string(if rng.chance(0.5) { "tcp" } else { "udp" }),
                ),
                ("self", Value::bool(rng.chance(0.1))),
                ("to_port", Value::number(rng.range(0, 65535))),
            ])
        })
        .collect();
    Case {
        name: "set-of-objects",
        ty: Type::set(ety.clone()),
        value: Value::set(ety, items).expect("set"),
    }
}

/// (e) a map of `n` short strings (keys of 8–13 bytes, values of 4–16),
/// as tags, labels or a flattened config carry them.
pub fn string_map(n: usize) -> Case {
    let mut rng = Rng::new(23);
    let entries: Vec<(String, Value)> = (0..n)
        .map(|i| {
            let len = rng.range(4, 16) as usize;
            (format!("{}{i}", rng.word(6)), Value::string(rng.word(len)))
        })
        .collect();
    Case {
        name: "map-of-strings",
        ty: Type::map(Type::String),
        value: Value::map(Type::String, entries).expect("map"),
    }
}

/// (f) a Kubernetes-style manifest under a dynamic attribute (as
/// `kubernetes_manifest` carries one): a `List` of `n` Deployments, whose
/// env entries sit ten levels below the dynamic value (manifest → items →
/// Deployment → spec → template → spec → containers → container → env →
/// entry → valueFrom → secretKeyRef → key).
pub fn manifest(n: usize) -> Case {
    let mut rng = Rng::new(29);
    let s = |v: String| Value::string(v);
    let list = |items: Vec<Value>| {
        let ety = items[0].ty().clone();
        Value::list(ety, items).expect("homogeneous list")
    };
    let labels = |rng: &mut Rng| {
        let n = rng.range(2, 6);
        let entries: Vec<(String, Value)> = (0..n)
            .map(|_| {
                let k = format!("app.kubernetes.io/{}", rng.word(6));
                let len = rng.range(4, 20) as usize;
                (k, Value::string(rng.word(len)))
            })
            .collect();
        Value::map(Type::String, entries).expect("labels")
    };
    let deployment = |rng: &mut Rng, i: usize| {
        let name = format!("{}-{i}", rng.word(8));
        let containers = (0..rng.range(1, 3))
            .map(|_| {
                let env = (0..rng.range(2, 8))
                    .map(|_| {
                        let secret_ref = Value::object([
                            ("key", s(rng.word(10))),
                            ("name", s(format!("{}-secret", rng.word(8)))),
                        ]);
                        Value::object([
                            ("name", s(rng.word(12).to_uppercase())),
                            ("valueFrom", Value::object([("secretKeyRef", secret_ref)])),
                        ])
                    })
                    .collect();
                let args = (0..rng.range(1, 4))
                    .map(|_| s(format!("--{}={}", rng.word(8), rng.word(6))))
                    .collect();
                let ports = (0..rng.range(1, 2))
                    .map(|_| {
                        Value::object([
                            ("containerPort", Value::number(rng.range(1024, 9000))),
                            ("protocol", s("TCP".into())),
                        ])
                    })
                    .collect();
                let resources = |rng: &mut Rng| {
                    Value::map(
                        Type::String,
                        [
                            ("cpu", s(format!("{}m", rng.range(100, 2000)))),
                            ("memory", s(format!("{}Mi", rng.range(64, 4096)))),
                        ],
                    )
                    .expect("resources")
                };
                Value::object([
                    ("args", list(args)),
                    ("env", list(env)),
                    (
                        "image",
                        s(format!(
                            "registry.example.com/{}:{}",
                            rng.word(10),
                            rng.word(7)
                        )),
                    ),
                    ("name", s(rng.word(10))),
                    ("ports", list(ports)),
                    (
                        "resources",
                        Value::object([("limits", resources(rng)), ("requests", resources(rng))]),
                    ),
                ])
            })
            .collect();
        let match_labels = labels(rng);
        Value::object([
            ("apiVersion", s("apps/v1".into())),
            ("kind", s("Deployment".into())),
            (
                "metadata",
                Value::object([
                    ("annotations", labels(rng)),
                    ("labels", match_labels.clone()),
                    ("name", s(name)),
                    ("namespace", s(rng.word(8))),
                ]),
            ),
            (
                "spec",
                Value::object([
                    ("replicas", Value::number(rng.range(1, 5))),
                    (
                        "selector",
                        Value::object([("matchLabels", match_labels.clone())]),
                    ),
                    (
                        "template",
                        Value::object([
                            ("metadata", Value::object([("labels", match_labels)])),
                            ("spec", Value::object([("containers", list(containers))])),
                        ]),
                    ),
                ]),
            ),
        ])
    };
    let items = (0..n).map(|i| deployment(&mut rng, i)).collect();
    let doc = Value::object([
        ("apiVersion", s("v1".into())),
        ("items", list(items)),
        ("kind", s("List".into())),
    ]);
    Case {
        name: "manifest",
        ty: Type::parse(r#"["object",{"manifest":"dynamic"}]"#).expect("manifest type"),
        value: Value::object([("manifest", doc)]),
    }
}

/// How many elements a case scales by: the collection's length, or for
/// the manifest the number of items in it.
pub fn elements(case: &Case) -> usize {
    if case.name == "manifest" {
        let doc = case.value.attr("manifest").expect("manifest");
        return doc.attr("items").and_then(|v| v.len()).unwrap_or(0);
    }
    case.value.len().unwrap_or(1)
}
