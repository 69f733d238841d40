//! Serde serialization into [`Json`]: [`to_json`], and `Serialize` for
//! [`Json`] and [`JsonNumber`].
//!
//! Exactness: serde's data model has no "number as decimal text", so a
//! [`JsonNumber`] recognises ctywire's own serializer (below) and hands it
//! the text under a private newtype name; any other serializer gets the
//! number as serde primitives (`u64`/`i64` when it fits, else the nearest
//! `f64`, else its text as a string for numbers beyond `f64`'s range).

use serde::ser::{self, Impossible, Serialize};

use crate::json::{Json, JsonNumber, Object, Primitive};
use ctywire::PathStep;
use ctywire::{Error, Result};

/// The newtype name under which a [`JsonNumber`] passes its text to
/// [`JsonSerializer`]. Private: nothing else sends it.
pub(super) const NUMBER_TOKEN: &str = "$ctywire::private::JsonNumber";

/// Any `Serialize` value as a [`Json`] document, as `serde_json::to_value`
/// does, but with [`Json`]'s exact numbers passed through untouched and
/// members in the order they are serialized. A map key must serialize as a
/// string, number, bool or char (numbers and bools become their text);
/// NaN and infinities are errors, naming the field they are in.
///
/// ```
/// use ctywire_bridge::{to_json, Json};
/// #[derive(serde::Serialize)]
/// struct Msg { id: u64, props: Json, ratio: f64 }
/// let props: Json = r#"{"n": 12345678901234567890123.5}"#.parse()?;
/// let j = to_json(&Msg { id: 7, props, ratio: 0.5 })?;
/// assert_eq!(j.to_string(), r#"{"id":7,"props":{"n":12345678901234567890123.5},"ratio":0.5}"#);
/// let err = to_json(&Msg { id: 7, props: Json::Null, ratio: f64::NAN }).unwrap_err();
/// assert_eq!(err.to_string(), ".ratio: NaN has no JSON form");
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<Json> {
    value.serialize(JsonSerializer)
}

impl Serialize for Json {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(o) => {
                let mut map = s.serialize_map(Some(o.len()))?;
                for (k, v) in o {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl Serialize for JsonNumber {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        // Serde gives no way to ask a serializer what it is, short of its
        // type's name; ctywire's own serializer has a single, unambiguous
        // one (no generics, no lifetimes).
        if std::any::type_name::<S>() == std::any::type_name::<JsonSerializer>() {
            return s.serialize_newtype_struct(NUMBER_TOKEN, self.as_str());
        }
        match self.to_primitive() {
            Some(Primitive::U64(u)) => s.serialize_u64(u),
            Some(Primitive::I64(i)) => s.serialize_i64(i),
            Some(Primitive::F64(f)) => s.serialize_f64(f),
            // Beyond f64 (1e400): the text is the only faithful form left.
            None => s.serialize_str(self.as_str()),
        }
    }
}

/// The serializer behind [`to_json`].
struct JsonSerializer;

fn float(f: f64) -> Result<Json> {
    match JsonNumber::from_f64(f) {
        Some(n) => Ok(Json::Number(n)),
        None if f.is_nan() => Err(Error::unrepresentable("NaN has no JSON form")),
        None => Err(Error::unrepresentable("infinity has no JSON form")),
    }
}

/// An error inside a variant's content sits under the variant's name, as
/// the content does in the JSON (`{"Variant": ...}`).
fn under_variant(e: Error, variant: Option<&'static str>) -> Error {
    match variant {
        Some(v) => e.under(PathStep::Attr(v.to_string())),
        None => e,
    }
}

fn tagged(variant: &str, value: Json) -> Json {
    let mut o = Object::new();
    o.insert(variant, value);
    Json::Object(o)
}

/// Integers are exact in any size: their decimal text is the number.
macro_rules! integers_as_numbers {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<Json> {
            Ok(v.into())
        }
    )*};
}

impl ser::Serializer for JsonSerializer {
    type Ok = Json;
    type Error = Error;
    type SerializeSeq = SeqSerializer;
    type SerializeTuple = SeqSerializer;
    type SerializeTupleStruct = SeqSerializer;
    type SerializeTupleVariant = SeqSerializer;
    type SerializeMap = MapSerializer;
    type SerializeStruct = MapSerializer;
    type SerializeStructVariant = MapSerializer;

    fn serialize_bool(self, v: bool) -> Result<Json> {
        Ok(Json::Bool(v))
    }
    integers_as_numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128);
    fn serialize_f32(self, v: f32) -> Result<Json> {
        // Through f32's own shortest form: 0.1f32 is "0.1", not
        // "0.10000000149011612".
        if v.is_finite() {
            return Ok(Json::Number(JsonNumber::from_checked(&format!("{v:?}"))));
        }
        float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Json> {
        float(v)
    }
    fn serialize_char(self, v: char) -> Result<Json> {
        Ok(Json::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Json> {
        Ok(Json::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Json> {
        // As serde_json: an array of numbers.
        Ok(Json::Array(v.iter().map(|&b| Json::from(b)).collect()))
    }
    fn serialize_none(self) -> Result<Json> {
        Ok(Json::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Json> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Json> {
        Ok(Json::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Json> {
        Ok(Json::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Json> {
        Ok(Json::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Json> {
        if name == NUMBER_TOKEN {
            // Only JsonNumber sends this name, with its checked text.
            return match value.serialize(JsonSerializer)? {
                Json::String(text) => Ok(Json::Number(JsonNumber::parse(&text)?)),
                other => Err(Error::data(format!(
                    "{NUMBER_TOKEN} is private to ctywire (got {})",
                    other.kind()
                ))),
            };
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Json> {
        let inner = value
            .serialize(JsonSerializer)
            .map_err(|e| e.under(PathStep::Attr(variant.to_string())))?;
        Ok(tagged(variant, inner))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSerializer> {
        Ok(SeqSerializer {
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSerializer> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqSerializer> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<SeqSerializer> {
        let mut s = self.serialize_seq(Some(len))?;
        s.variant = Some(variant);
        Ok(s)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapSerializer> {
        Ok(MapSerializer {
            object: Object::new(),
            key: None,
            variant: None,
            fields: false,
        })
    }
    fn serialize_struct(self, _: &'static str, _len: usize) -> Result<MapSerializer> {
        let mut m = self.serialize_map(None)?;
        m.fields = true;
        Ok(m)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<MapSerializer> {
        let mut m = self.serialize_struct("", 0)?;
        m.variant = Some(variant);
        Ok(m)
    }
}

/// Arrays, and tuple variants (`{"Variant":[...]}`).
struct SeqSerializer {
    items: Vec<Json>,
    variant: Option<&'static str>,
}

impl SeqSerializer {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let step = PathStep::Index(self.items.len() as u64);
        let v = value
            .serialize(JsonSerializer)
            .map_err(|e| under_variant(e.under(step), self.variant))?;
        self.items.push(v);
        Ok(())
    }

    fn finish(self) -> Result<Json> {
        let arr = Json::Array(self.items);
        Ok(match self.variant {
            Some(v) => tagged(v, arr),
            None => arr,
        })
    }
}

macro_rules! seq_like {
    ($($tr:ident :: $method:ident),*) => {$(
        impl ser::$tr for SeqSerializer {
            type Ok = Json;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }
            fn end(self) -> Result<Json> {
                self.finish()
            }
        }
    )*};
}
seq_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// Objects: maps, structs, and struct variants (`{"Variant":{...}}`).
struct MapSerializer {
    object: Object,
    key: Option<String>,
    variant: Option<&'static str>,
    /// Struct fields are attributes in error paths; map keys are keys.
    fields: bool,
}

impl MapSerializer {
    fn put<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<()> {
        let step = if self.fields {
            PathStep::Attr(key.clone())
        } else {
            PathStep::Key(key.clone())
        };
        let v = value
            .serialize(JsonSerializer)
            .map_err(|e| under_variant(e.under(step), self.variant))?;
        self.object.insert(key, v);
        Ok(())
    }

    fn finish(self) -> Result<Json> {
        let o = Json::Object(self.object);
        Ok(match self.variant {
            Some(v) => tagged(v, o),
            None => o,
        })
    }
}

impl ser::SerializeMap for MapSerializer {
    type Ok = Json;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::data("a map value was serialized before its key"))?;
        self.put(key, value)
    }
    fn end(self) -> Result<Json> {
        self.finish()
    }
}

macro_rules! struct_like {
    ($($tr:ident),*) => {$(
        impl ser::$tr for MapSerializer {
            type Ok = Json;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                self.put(key.to_string(), value)
            }
            fn end(self) -> Result<Json> {
                self.finish()
            }
        }
    )*};
}
struct_like!(SerializeStruct, SerializeStructVariant);

/// Object keys: strings, and scalars as their text (as serde_json does).
struct KeySerializer;

fn key_error() -> Error {
    Error::data("a map key must be a string, a number, a bool or a char")
}

macro_rules! key_as_text {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<String> {
            Ok(v.to_string())
        }
    )*};
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    key_as_text!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_char: char,
        serialize_str: &str);

    fn serialize_f32(self, v: f32) -> Result<String> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<String> {
        float(v).map(|j| j.to_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<String> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<String> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<String> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String> {
        Err(key_error())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String> {
        Err(key_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(key_error())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(key_error())
    }
}
