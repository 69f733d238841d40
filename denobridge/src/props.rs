//! Values to the script's JSON and back, through ctywire's bridge, which is
//! where denobridge's losses are fixed: exact numbers both ways, sets as
//! arrays, unknowns refused rather than zeroed, and answers decoded either
//! at the type Terraform sent (props) or at the type the JSON implies
//! (state, result).

use ctywire::{Path, Type, Value};
use ctywire_bridge::{from_props, to_props, Json, Unknowns};
use sha2::{Digest, Sha256};

use crate::diag::{shorten, Diagnostic};

fn under(attr: &str, inner: &Path) -> Path {
    let mut p = Path::root().attr(attr);
    for s in inner.steps() {
        p.push(s.clone());
    }
    p
}

/// The attribute `attr` of `object` as the script's JSON: numbers as exact
/// decimal text, sets as arrays, null as `null`. An unknown anywhere inside
/// is an error at its path — at apply nothing may be unknown, and a zero
/// value in its place (denobridge's `""`, `false`, `[]`, `"<nil>"`) would be
/// indistinguishable from a real one.
pub fn send(object: &Value, attr: &str) -> Result<Json, Diagnostic> {
    let Some(v) = object.attr(attr) else {
        return Ok(Json::Null);
    };
    to_props(v, Unknowns::Refuse).map(|p| p.json).map_err(|e| {
        crate::diag::error(
            format!("`{attr}` cannot be sent to the script"),
            e.message().to_string(),
        )
        .at(under(attr, e.path()))
    })
}

/// The script's JSON for attribute `attr`, at the type the JSON implies
/// (go-cty's `ImpliedType`): objects are objects, arrays tuples (so mixed
/// arrays work), numbers exact. This is what `state` and `result` get, as
/// denobridge's do (without its float64 rounding and list-of-dynamic crash).
pub fn receive(json: &Json, attr: &str) -> Result<Value, Diagnostic> {
    from_props(json, &Type::Dynamic).map_err(|e| {
        // A sensitive attribute's text never goes into a message: the
        // error's path says where the problem is.
        let detail = if attr.starts_with("sensitive") {
            e.to_string()
        } else {
            format!("{e} (in {})", shorten(&json.to_string()))
        };
        crate::diag::error(format!("The script's `{attr}` cannot be read"), detail)
            .at(under(attr, e.path()))
    })
}

/// The script's props, kept at the type they had (`like`): a tuple stays a
/// tuple, a map a map, a set a set, so that props the script hands back
/// unchanged are equal to the configuration and a re-plan shows no diff.
/// When the JSON no longer fits that type (the script changed the shape),
/// the type the JSON implies is taken: a real change then shows as one.
pub fn receive_like(json: &Json, like: &Value, attr: &str) -> Result<Value, Diagnostic> {
    let ty = like.ty();
    if *ty != Type::Dynamic && !json.is_null() {
        if let Ok(v) = from_props(json, ty) {
            return Ok(v);
        }
    }
    receive(json, attr)
}

/// The sha256 of the write-only props' JSON, in hex (denobridge's
/// `write_only_props_hash`), or `None` when they are null.
pub fn hash(json: &Json) -> Option<String> {
    if json.is_null() {
        return None;
    }
    let digest = Sha256::digest(json.to_string().as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `v` holds an unknown anywhere, and where the first one is.
pub fn first_unknown(v: &Value) -> Option<Path> {
    if v.is_wholly_known() {
        return None;
    }
    let mut found = None;
    // Parents come before their parts, in the value's order: the first
    // unknown met is the one to report. (`f` never fails, so neither does
    // the walk.)
    let _ = v.walk(|path, v| {
        if found.is_none() && !v.is_known() {
            found = Some(path.clone());
        }
        Ok(found.is_none())
    });
    found.or_else(|| Some(Path::root()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_unknown_is_found_at_its_path_in_the_values_order() {
        let known = Value::object([("a", Value::string("x"))]);
        assert_eq!(first_unknown(&known), None);
        let tags = Value::map(
            Type::String,
            vec![
                ("k".to_string(), Value::string("v")),
                ("z".to_string(), Value::unknown(Type::String)),
            ],
        )
        .unwrap();
        let list = Value::list(
            Type::Number,
            vec![Value::number(1), Value::unknown(Type::Number)],
        )
        .unwrap();
        let v = Value::object([("b", tags), ("c", list)]);
        assert_eq!(first_unknown(&v).unwrap().to_string(), r#".b["z"]"#);
        let v = Value::object([
            ("c", Value::unknown(Type::Dynamic)),
            ("d", Value::string("x")),
        ]);
        assert_eq!(first_unknown(&v).unwrap().to_string(), ".c");
        assert_eq!(
            first_unknown(&Value::unknown(Type::String)),
            Some(Path::root())
        );
    }

    fn props(v: Value) -> Value {
        Value::object([("props", v)])
    }

    fn num(text: &str) -> Value {
        Value::number(ctywire::Number::parse(text).unwrap())
    }

    #[test]
    fn numbers_go_out_exactly_past_u64_with_30_decimals_and_past_f64() {
        let v = Value::object([
            ("big", num("123456789012345678901234567890")),
            ("fine", num("0.123456789012345678901234567891")),
            ("huge", num("1e400")),
        ]);
        let json = send(&props(v), "props").unwrap();
        // 1e400 is written out whole, as go-cty writes an integral number.
        assert_eq!(
            json.to_string(),
            format!(
                r#"{{"big":123456789012345678901234567890,"fine":0.123456789012345678901234567891,"huge":1{}}}"#,
                "0".repeat(400)
            )
        );
    }

    #[test]
    fn numbers_come_back_exactly() {
        let json = Json::parse(
            r#"{"big":123456789012345678901234567890,"fine":0.123456789012345678901234567891,"huge":1e400}"#,
        )
        .unwrap();
        let v = receive(&json, "state").unwrap();
        assert_eq!(
            v.attr("big").unwrap(),
            &num("123456789012345678901234567890")
        );
        assert_eq!(
            v.attr("fine").unwrap(),
            &num("0.123456789012345678901234567891")
        );
        assert_eq!(v.attr("huge").unwrap(), &num("1e400"));
    }

    #[test]
    fn sets_go_out_as_arrays() {
        let set = Value::set(Type::String, vec!["b".into(), "a".into()]).unwrap();
        let json = send(&props(Value::object([("tags", set)])), "props").unwrap();
        assert_eq!(json.to_string(), r#"{"tags":["a","b"]}"#);
    }

    #[test]
    fn an_unknown_is_refused_with_its_path_never_sent_as_a_zero_value() {
        let v = Value::object([
            ("name", Value::string("x")),
            ("id", Value::unknown(Type::String)),
        ]);
        let d = send(&props(v), "props").unwrap_err();
        assert_eq!(d.attribute.unwrap().to_string(), ".props.id");
    }

    #[test]
    fn props_come_back_at_the_type_terraform_sent() {
        let tuple = Value::tuple(vec!["x".into(), Value::number(7)]);
        let map = Value::map(Type::String, vec![("k".to_string(), Value::string("v"))]).unwrap();
        let set = Value::set(Type::Number, vec![Value::number(1), Value::number(2)]).unwrap();
        let sent = Value::object([("pair", tuple), ("tags", map), ("ids", set)]);
        let json = send(&props(sent.clone()), "props").unwrap();
        let back = receive_like(&json, &sent, "props").unwrap();
        assert_eq!(back, sent);
        assert_eq!(back.ty(), sent.ty());
    }

    #[test]
    fn props_whose_shape_changed_take_the_type_the_json_implies() {
        let sent = Value::object([("a", Value::number(1))]);
        let json = Json::parse(r#"{"a": 1, "b": [1, "two"]}"#).unwrap();
        let back = receive_like(&json, &sent, "props").unwrap();
        assert_eq!(
            back.attr("b").unwrap().ty().to_json(),
            r#"["tuple",["number","string"]]"#
        );
    }

    #[test]
    fn state_takes_the_types_the_json_implies_and_mixed_arrays_work() {
        let v = receive(
            &Json::parse(r#"{"mixed": [1, "a", {"k": true}]}"#).unwrap(),
            "state",
        )
        .unwrap();
        assert_eq!(
            v.ty().to_json(),
            r#"["object",{"mixed":["tuple",["number","string",["object",{"k":"bool"}]]]}]"#
        );
    }

    #[test]
    fn the_write_only_hash_is_the_sha256_of_the_json() {
        assert_eq!(hash(&Json::Null), None);
        // sha256("{}")
        assert_eq!(
            hash(&Json::parse("{}").unwrap()).unwrap(),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
