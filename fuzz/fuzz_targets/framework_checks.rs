//! The framework's checks on a schema made from the input and on prior,
//! config, proposed and new values of it (arbitrary: null, unknown,
//! known, of the schema's types or not): validation of the config, the
//! plan engine with core's AssertPlanValid after it, ProposedNewState,
//! and AssertObjectCompatible of a new state against the plan. Never a
//! panic: always a value or an error.
#![no_main]

use ctywire::schema::NestingMode;
use ctywire::{Number, Type, Value};
use ctywire_provider::fuzzing;
use ctywire_provider::schema::{Attribute, Block, Nested, NestedBlock, Presence, Validator};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 6] = ["a", "b", "c", "id", "name", "tags"];
const NESTINGS: [NestingMode; 5] = [
    NestingMode::Single,
    NestingMode::Group,
    NestingMode::List,
    NestingMode::Set,
    NestingMode::Map,
];

fn primitive(u: &mut Unstructured) -> Result<Type> {
    Ok(match u.int_in_range(0..=7)? {
        0 => Type::String,
        1 => Type::Number,
        2 => Type::Bool,
        3 => Type::list(Type::String),
        4 => Type::set(Type::Number),
        5 => Type::map(Type::String),
        6 => Type::Dynamic,
        _ => Type::object([("x", Type::String), ("y", Type::Number)]),
    })
}

fn presence(u: &mut Unstructured) -> Result<Presence> {
    Ok(*u.choose(&[
        Presence::Required,
        Presence::Optional,
        Presence::Computed,
        Presence::OptionalComputed,
    ])?)
}

/// A block of up to four attributes and two nested block types, `depth`
/// levels from the root.
fn block(u: &mut Unstructured, depth: usize) -> Result<Block> {
    let mut b = Block::default();
    let mut names = NAMES.iter();
    for _ in 0..u.int_in_range(0..=4)? {
        let Some(name) = names.next() else { break };
        let mut a = Attribute::new(*name, Type::String);
        a.presence = presence(u)?;
        if depth < 2 && u.ratio(1, 4)? {
            let nesting = *u.choose(&[
                NestingMode::Single,
                NestingMode::List,
                NestingMode::Set,
                NestingMode::Map,
            ])?;
            let nested = Nested {
                nesting,
                block: block(u, depth + 1)?,
            };
            let Ok(ty) = nested.implied_type() else {
                return Err(libfuzzer_sys::arbitrary::Error::IncorrectFormat);
            };
            a.ty = ty;
            a.nested = Some(nested);
        } else {
            a.ty = primitive(u)?;
        }
        a.sensitive = u.ratio(1, 8)?;
        a.plan.requires_replace = u.ratio(1, 8)?;
        if a.presence.is_computed() {
            a.plan.keep_state = u.ratio(1, 8)?;
        }
        if a.ty == Type::String && u.ratio(1, 4)? {
            a.validators.push(Validator::Length {
                min: Some(1),
                max: Some(3),
            });
        }
        if a.ty == Type::Number && u.ratio(1, 4)? {
            a.validators.push(Validator::Range {
                min: Some(Number::from_i64(0)),
                max: Some(Number::from_i64(10)),
                whole: u.arbitrary()?,
            });
        }
        b.attributes.push(a);
    }
    if depth < 2 {
        for _ in 0..u.int_in_range(0..=2)? {
            let Some(name) = names.next() else { break };
            let nesting = *u.choose(&NESTINGS)?;
            let (min_items, max_items) = match nesting {
                NestingMode::List | NestingMode::Set => {
                    (u.int_in_range(0..=1)?, u.int_in_range(0..=3)?)
                }
                _ => (0, 0),
            };
            b.blocks.push(NestedBlock {
                name: (*name).to_string(),
                nesting,
                block: block(u, depth + 1)?,
                min_items,
                max_items,
                validators: Vec::new(),
            });
        }
    }
    Ok(b)
}

/// A value of `ty`: null, unknown or known, collections of up to three.
/// Now and then a value of another type, which every check must refuse
/// cleanly.
fn value(u: &mut Unstructured, ty: &Type, depth: usize) -> Result<Value> {
    match u.int_in_range(0..=15)? {
        0 => return Ok(Value::null(ty.clone())),
        1 => return Ok(Value::unknown(ty.clone())),
        2 if u.ratio(1, 8)? => return Ok(Value::string("wrong")),
        _ => {}
    }
    let len = |u: &mut Unstructured| u.int_in_range(0..=3usize);
    Ok(match ty {
        Type::String => Value::string(*u.choose(&["", "a", "bb", "cccc", "é"])?),
        Type::Number => Value::number(u.int_in_range(-2..=12i64)?),
        Type::Bool => Value::bool(u.arbitrary()?),
        Type::Dynamic => {
            let concrete = primitive(u)?;
            if concrete == Type::Dynamic || depth > 4 {
                Value::null(Type::Dynamic)
            } else {
                value(u, &concrete, depth + 1)?
            }
        }
        Type::List(e) | Type::Set(e) => {
            let mut elems = Vec::new();
            for _ in 0..len(u)? {
                elems.push(value(u, e, depth + 1)?);
            }
            let built = if matches!(ty, Type::List(_)) {
                Value::list((**e).clone(), elems)
            } else {
                Value::set((**e).clone(), elems)
            };
            built.unwrap_or_else(|_| Value::null(ty.clone()))
        }
        Type::Map(e) => {
            let mut entries = Vec::new();
            for i in 0..len(u)? {
                entries.push((["k", "l", "m"][i].to_string(), value(u, e, depth + 1)?));
            }
            Value::map((**e).clone(), entries).unwrap_or_else(|_| Value::null(ty.clone()))
        }
        Type::Object(o) => {
            let mut attrs = Vec::new();
            for (name, t) in o.attributes() {
                attrs.push((name, value(u, t, depth + 1)?));
            }
            Value::object(attrs)
        }
        Type::Tuple(ts) => {
            let mut elems = Vec::new();
            for t in ts.iter() {
                elems.push(value(u, t, depth + 1)?);
            }
            Value::tuple(elems)
        }
    })
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let schema = block(&mut u, 0)?;
    if schema.check().is_err() {
        // The framework refuses such a schema when the provider is built.
        return Ok(());
    }
    let Ok(ty) = schema.implied_type() else {
        return Ok(());
    };
    let prior = if u.arbitrary()? {
        Value::null(ty.clone())
    } else {
        value(&mut u, &ty, 0)?
    };
    let config = value(&mut u, &ty, 0)?;
    let _ = fuzzing::validate(&schema, &config);
    // What core proposes from them, or an arbitrary proposal.
    let proposed = if u.arbitrary()? {
        fuzzing::proposed_new(&schema, &prior, &config)
    } else {
        value(&mut u, &ty, 0)?
    };
    if let Ok(planned) = fuzzing::plan(&schema, &prior, &config, &proposed) {
        let actual = if u.arbitrary()? {
            planned.clone()
        } else {
            value(&mut u, &ty, 0)?
        };
        let _ = fuzzing::applied(&schema, &planned, &actual);
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
