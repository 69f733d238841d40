//! What `#[serde(..)]` says that the schema must follow: each field's
//! name (`rename`, the struct's `rename_all`), which fields are not there
//! (`skip`), and what changes the shape so that no schema can follow it
//! (`flatten`, `transparent`, `from`/`into`, a `tag`): those are refused.

use syn::ext::IdentExt;
use syn::{Attribute, Field, LitStr, Token};

/// serde's case conventions for `rename_all`, applied as serde applies
/// them to a field name written in snake_case.
#[derive(Clone, Copy, PartialEq)]
pub enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Case {
    fn from_lit(lit: &LitStr) -> syn::Result<Case> {
        Ok(match lit.value().as_str() {
            "lowercase" => Case::Lower,
            "UPPERCASE" => Case::Upper,
            "PascalCase" => Case::Pascal,
            "camelCase" => Case::Camel,
            "snake_case" => Case::Snake,
            "SCREAMING_SNAKE_CASE" => Case::ScreamingSnake,
            "kebab-case" => Case::Kebab,
            "SCREAMING-KEBAB-CASE" => Case::ScreamingKebab,
            other => {
                return Err(syn::Error::new(
                    lit.span(),
                    format!("unknown rename rule `{other}`: serde knows lowercase, UPPERCASE, PascalCase, camelCase, snake_case, SCREAMING_SNAKE_CASE, kebab-case and SCREAMING-KEBAB-CASE"),
                ))
            }
        })
    }

    pub fn apply(self, field: &str) -> String {
        match self {
            Case::Lower | Case::Snake => field.to_string(),
            Case::Upper | Case::ScreamingSnake => field.to_ascii_uppercase(),
            Case::Pascal => {
                let mut out = String::new();
                let mut upper = true;
                for c in field.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.extend(c.to_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            Case::Camel => {
                let pascal = Case::Pascal.apply(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_lowercase().chain(chars).collect(),
                    None => pascal,
                }
            }
            Case::Kebab => field.replace('_', "-"),
            Case::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// A serialize/deserialize pair (`rename = ".."` sets both).
struct Pair<T> {
    ser: Option<T>,
    de: Option<T>,
}

impl<T> Default for Pair<T> {
    fn default() -> Self {
        Pair {
            ser: None,
            de: None,
        }
    }
}

/// Reads `x = ".."` or `x(serialize = "..", deserialize = "..")`.
fn pair<T>(
    meta: &syn::meta::ParseNestedMeta,
    read: impl Fn(&LitStr) -> syn::Result<T>,
    into: &mut Pair<T>,
) -> syn::Result<()>
where
    T: Clone,
{
    if meta.input.peek(Token![=]) {
        let lit: LitStr = meta.value()?.parse()?;
        let v = read(&lit)?;
        into.ser = Some(v.clone());
        into.de = Some(v);
        return Ok(());
    }
    meta.parse_nested_meta(|inner| {
        let lit: LitStr = inner.value()?.parse()?;
        if inner.path.is_ident("serialize") {
            into.ser = Some(read(&lit)?);
        } else if inner.path.is_ident("deserialize") {
            into.de = Some(read(&lit)?);
        } else {
            return Err(inner.error("expected `serialize` or `deserialize`"));
        }
        Ok(())
    })
}

/// Skips whatever follows a key serde knows and the schema does not need.
fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}

/// The struct's `rename_all`.
pub fn container(attrs: &[Attribute]) -> syn::Result<Option<Case>> {
    let mut rename_all: Pair<Case> = Pair::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let refuse = |why: &str| Err(meta.error(why));
            if meta.path.is_ident("rename_all") {
                pair(&meta, Case::from_lit, &mut rename_all)
            } else if meta.path.is_ident("transparent") {
                refuse("a transparent struct has no fields of its own to be a block: derive Model on the inner type")
            } else if ["from", "into", "try_from", "remote"]
                .iter()
                .any(|k| meta.path.is_ident(k))
            {
                refuse("serde then reads or writes another type: derive Model on that type instead")
            } else if ["tag", "content", "untagged"]
                .iter()
                .any(|k| meta.path.is_ident(k))
            {
                refuse("a serde tag adds an attribute the model has no field for")
            } else {
                skip_value(&meta)
            }
        })?;
    }
    match (rename_all.ser, rename_all.de) {
        (a, b) if a == b => Ok(a),
        _ => Err(syn::Error::new_spanned(
            attrs.iter().find(|a| a.path().is_ident("serde")),
            "`rename_all` differs between serialize and deserialize: the schema needs one name per field",
        )),
    }
}

/// A field's name in the schema, or `None` when serde skips it.
pub fn field_name(
    field: &Field,
    case: Option<Case>,
) -> syn::Result<Option<(String, proc_macro2::Span)>> {
    let ident = field
        .ident
        .as_ref()
        .ok_or_else(|| syn::Error::new_spanned(field, "a model's fields have names"))?;
    let mut rename: Pair<(String, proc_macro2::Span)> = Pair::default();
    let (mut skip, mut skip_ser, mut skip_de) = (false, None, None);
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                pair(&meta, |l| Ok((l.value(), l.span())), &mut rename)
            } else if meta.path.is_ident("skip") {
                skip = true;
                Ok(())
            } else if meta.path.is_ident("skip_serializing") {
                skip_ser = Some(meta.path.clone());
                Ok(())
            } else if meta.path.is_ident("skip_deserializing") {
                skip_de = Some(meta.path.clone());
                Ok(())
            } else if meta.path.is_ident("flatten") {
                Err(meta.error("a flattened field's attributes would be the block's own: name the inner model's fields here, or make it a nested block with #[model(block)]"))
            } else {
                skip_value(&meta)
            }
        })?;
    }
    match (skip_ser, skip_de) {
        (Some(_), Some(_)) => skip = true,
        (Some(p), None) | (None, Some(p)) if !skip => {
            return Err(syn::Error::new_spanned(
                p,
                "a field skipped in one direction only is missing from the values the other direction reads or writes: use `skip`, or neither",
            ))
        }
        _ => {}
    }
    if skip {
        return Ok(None);
    }
    let default = || {
        let raw = ident.unraw().to_string();
        (
            case.map_or_else(|| raw.clone(), |c| c.apply(&raw)),
            ident.span(),
        )
    };
    let ser = rename.ser.unwrap_or_else(default);
    let de = rename.de.unwrap_or_else(default);
    if ser.0 != de.0 {
        return Err(syn::Error::new(
            ser.1,
            format!(
                "the field is written as {:?} and read as {:?}: the schema needs one name",
                ser.0, de.0
            ),
        ));
    }
    Ok(Some(ser))
}
