//! Serde deserialization out of [`Json`]: [`from_json`], and `Deserialize`
//! for [`Json`] and [`JsonNumber`].
//!
//! Exactness: [`Json`] and [`JsonNumber`] ask for a newtype struct of a
//! private name. ctywire's deserializer answers that request, and only
//! that one, with a number's text, as an enum variant of a private name
//! (JSON has no enums, so no document can be mistaken for it, unlike a
//! map with a magic key); any other request (a user's `f64`, an untagged
//! enum buffering its input) sees plain `u64` / `i64` / `f64` visits. Any
//! other deserializer treats the name as an ordinary newtype and hands
//! over whatever its numbers are.

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;

use crate::json::{Json, JsonNumber, Object, Primitive};
use ctywire::PathStep;
use ctywire::{Error, Result};

/// The newtype name [`Json`] and [`JsonNumber`] deserialize through.
const JSON_TOKEN: &str = "$ctywire::private::Json";
// The variant name that carries a number's text to them.
use crate::ser::NUMBER_TOKEN;

/// A `Deserialize` type read out of a [`Json`] document, as
/// `serde_json::from_value` does; [`Json`] and [`JsonNumber`] fields get
/// their numbers exactly. An error names the path of the offending part.
///
/// ```
/// use ctywire_bridge::{from_json, Json};
/// #[derive(serde::Deserialize, Debug)]
/// #[serde(tag = "kind")]
/// enum Shape { Circle { r: f64 }, Label { text: Json } }
/// let doc: Json = r#"[{"kind":"Circle","r":2.5},{"kind":"Label","text":"hi"}]"#.parse()?;
/// let shapes: Vec<Shape> = from_json(&doc)?;
/// assert!(matches!(shapes[0], Shape::Circle { r } if r == 2.5));
///
/// #[derive(serde::Deserialize, Debug)]
/// struct Msg { id: u8, props: Json }
/// let m: Msg = from_json(&r#"{"id":1,"props":{"n":0.10000000000000000001}}"#.parse()?)?;
/// assert_eq!(m.props["n"].to_string(), "0.10000000000000000001");
/// let err = from_json::<Vec<Msg>>(&r#"[{"id":300,"props":null}]"#.parse()?).unwrap_err();
/// assert_eq!(err.to_string(), "[0].id: invalid value: integer `300`, expected u8");
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn from_json<T: DeserializeOwned>(json: &Json) -> Result<T> {
    T::deserialize(JsonDeserializer { json, exact: false })
}

/// Reads one [`Json`] node. `exact` is set when the node is wanted by a
/// [`Json`] or [`JsonNumber`] (it asked for [`JSON_TOKEN`]), and only then
/// does a number travel as its text.
struct JsonDeserializer<'a> {
    json: &'a Json,
    exact: bool,
}

fn visit_number<'de, V: Visitor<'de>>(n: &JsonNumber, visitor: V) -> Result<V::Value> {
    match n.to_primitive() {
        Some(Primitive::U64(u)) => visitor.visit_u64(u),
        Some(Primitive::I64(i)) => visitor.visit_i64(i),
        Some(Primitive::F64(f)) => visitor.visit_f64(f),
        None => Err(Error::data(format!(
            "{n} is beyond the range of a 64-bit float"
        ))),
    }
}

impl<'de> de::Deserializer<'de> for JsonDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.json {
            Json::Null => visitor.visit_unit(),
            Json::Bool(b) => visitor.visit_bool(*b),
            Json::Number(n) if self.exact => visitor.visit_enum(NumberAccess(n.as_str())),
            Json::Number(n) => visit_number(n, visitor),
            Json::String(s) => visitor.visit_str(s),
            Json::Array(items) => visit_seq(items, visitor),
            Json::Object(o) => visit_object(o, visitor, false),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.json {
            Json::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == JSON_TOKEN {
            return visitor.visit_newtype_struct(JsonDeserializer {
                json: self.json,
                exact: true,
            });
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.json {
            Json::Object(o) => visit_object(o, visitor, true),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.json {
            Json::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Json::Object(o) if o.len() == 1 => {
                let (variant, value) = o.iter().next().ok_or_else(|| Error::data("empty"))?;
                visitor
                    .visit_enum(EnumAccess { variant, value })
                    .map_err(|e| e.under(PathStep::Attr(variant.to_string())))
            }
            other => Err(Error::data(format!(
                "an enum is a string or an object of one member, not {}",
                other.kind()
            ))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    // 128-bit integers are exact too: beyond u64/i64, deserialize_any
    // would offer only the nearest f64.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.json.as_number().and_then(|n| n.as_str().parse().ok()) {
            Some(i) => visitor.visit_i128(i),
            None => self.deserialize_any(visitor),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.json.as_number().and_then(|n| n.as_str().parse().ok()) {
            Some(u) => visitor.visit_u128(u),
            None => self.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

fn visit_seq<'de, V: Visitor<'de>>(items: &[Json], visitor: V) -> Result<V::Value> {
    let mut access = SeqItems {
        items: items.iter(),
        at: 0,
    };
    let v = visitor.visit_seq(&mut access)?;
    if access.items.len() != 0 {
        return Err(de::Error::invalid_length(items.len(), &"fewer elements"));
    }
    Ok(v)
}

fn visit_object<'de, V: Visitor<'de>>(o: &Object, visitor: V, fields: bool) -> Result<V::Value> {
    visitor.visit_map(Members {
        members: o.iter(),
        value: None,
        fields,
    })
}

struct SeqItems<'a> {
    items: std::slice::Iter<'a, Json>,
    at: u64,
}

impl<'de> SeqAccess<'de> for &mut SeqItems<'_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(json) = self.items.next() else {
            return Ok(None);
        };
        let step = PathStep::Index(self.at);
        self.at += 1;
        seed.deserialize(JsonDeserializer { json, exact: false })
            .map(Some)
            .map_err(|e| e.under(step))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's members, each value's errors under its key (an attribute
/// when the object is read as a struct, a map key otherwise).
struct Members<'a, I> {
    members: I,
    value: Option<(&'a str, &'a Json)>,
    fields: bool,
}

impl<'de, 'a, I: Iterator<Item = (&'a str, &'a Json)>> MapAccess<'de> for Members<'a, I> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((k, v)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some((k, v));
        seed.deserialize(KeyDeserializer(k)).map(Some)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        let (k, json) = self
            .value
            .take()
            .ok_or_else(|| Error::data("a map value was read before its key"))?;
        let step = if self.fields {
            PathStep::Attr(k.to_string())
        } else {
            PathStep::Key(k.to_string())
        };
        seed.deserialize(JsonDeserializer { json, exact: false })
            .map_err(|e| e.under(step))
    }
}

/// An object key: a string, which a map with number or bool keys reads as
/// its text (as serde_json does: `{"2": "x"}` is a `BTreeMap<u32, _>`).
struct KeyDeserializer<'a>(&'a str);

macro_rules! key_parsed {
    ($($method:ident => $visit:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0.parse() {
                Ok(v) => visitor.$visit(v),
                // Not that kind of text: the visitor names what it wanted.
                Err(_) => visitor.visit_str(self.0),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_str(self.0)
    }

    key_parsed!(deserialize_bool => visit_bool, deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16, deserialize_i32 => visit_i32, deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128, deserialize_u8 => visit_u8, deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32, deserialize_u64 => visit_u64, deserialize_u128 => visit_u128,
        deserialize_f32 => visit_f32, deserialize_f64 => visit_f64);

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

struct EnumAccess<'a> {
    variant: &'a str,
    value: &'a Json,
}

impl<'de, 'a> de::EnumAccess<'de> for EnumAccess<'a> {
    type Error = Error;
    type Variant = JsonDeserializer<'a>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let v = seed.deserialize(self.variant.into_deserializer())?;
        Ok((
            v,
            JsonDeserializer {
                json: self.value,
                exact: false,
            },
        ))
    }
}

impl<'de> de::VariantAccess<'de> for JsonDeserializer<'_> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        match self.json {
            Json::Null => Ok(()),
            other => Err(Error::data(format!(
                "a unit variant has no value, not {}",
                other.kind()
            ))),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

/// The enum variant `NUMBER_TOKEN(text)` by which an exact number reaches
/// [`Json`]'s visitor.
struct NumberAccess<'a>(&'a str);

impl<'de, 'a> de::EnumAccess<'de> for NumberAccess<'a> {
    type Error = Error;
    type Variant = NumberAccess<'a>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(NUMBER_TOKEN.into_deserializer())?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for NumberAccess<'_> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        Err(Error::data("a number is not a unit variant"))
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.0.into_deserializer())
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_str(self.0)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Json, D::Error> {
        d.deserialize_newtype_struct(JSON_TOKEN, JsonVisitor)
    }
}

impl<'de> Deserialize<'de> for JsonNumber {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<JsonNumber, D::Error> {
        match Json::deserialize(d)? {
            Json::Number(n) => Ok(n),
            other => Err(de::Error::invalid_type(
                unexpected(&other),
                &"a JSON number",
            )),
        }
    }
}

fn unexpected(j: &Json) -> de::Unexpected<'_> {
    match j {
        Json::Null => de::Unexpected::Unit,
        Json::Bool(b) => de::Unexpected::Bool(*b),
        Json::Number(_) => de::Unexpected::Other("number"),
        Json::String(s) => de::Unexpected::Str(s),
        Json::Array(_) => de::Unexpected::Seq,
        Json::Object(_) => de::Unexpected::Map,
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Json, D::Error> {
        Json::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Json, E> {
        Ok(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Json, E> {
        Ok(v.into())
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> std::result::Result<Json, E> {
        Ok(v.into())
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> std::result::Result<Json, E> {
        Ok(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Json, E> {
        JsonNumber::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom(format!("{v} has no JSON form")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Json, A::Error> {
        let mut o = Object::new();
        while let Some(key) = map.next_key::<String>()? {
            let value: Json = map.next_value()?;
            o.insert(key, value);
        }
        Ok(Json::Object(o))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> std::result::Result<Json, A::Error> {
        use de::VariantAccess;
        let (name, variant): (String, A::Variant) = data.variant()?;
        if name != NUMBER_TOKEN {
            // A format with enums of its own (not JSON) sent one.
            return Err(de::Error::invalid_type(
                de::Unexpected::Enum,
                &"a JSON value",
            ));
        }
        let text: String = variant.newtype_variant()?;
        JsonNumber::parse(&text)
            .map(Json::Number)
            .map_err(de::Error::custom)
    }
}
