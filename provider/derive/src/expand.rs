//! The generated code: `Model::block()` (built once, cached), the
//! model's `AttributeType` (the object type its block implies, cached) and
//! its `BlockContainer` (a bare model is a `Group` block), plus
//! compile-time assertions that tie each field's declarations to its
//! Rust type.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident};

use crate::model_attrs::{self, FieldSpec, Kind, OneOfValue, ReplaceIf, Rule};
use crate::serde_attrs;

/// The path the generated code names the model crate by, found in the
/// using crate's own `Cargo.toml` (proc-macro-crate, which also follows a
/// renamed dependency): `ctywire-provider` (which re-exports it), else
/// `ctywire-model`, else `ctywire-seasonings`'s plugin SDK. *Why not a
/// `#[model(crate = "..")]` attribute:* the three name one trait, so
/// whichever is there is right; an author would only have to learn and
/// repeat the attribute on every model for nothing. With none of them, a
/// compile error says what to add ([`check_model_crate`]).
fn model_crate() -> TokenStream {
    find_model_crate().unwrap_or_else(|| quote!(::ctywire_provider))
}

/// The compile error for a crate that has none of the three.
fn check_model_crate() -> syn::Result<()> {
    match find_model_crate() {
        Some(_) => Ok(()),
        None => Err(syn::Error::new(
            Span::call_site(),
            "#[derive(Model)] needs ctywire-provider, ctywire-model or ctywire-seasonings (feature \"plugin\") among this crate's dependencies",
        )),
    }
}

fn find_model_crate() -> Option<TokenStream> {
    use proc_macro_crate::{crate_name, FoundCrate};
    let named = |found: FoundCrate, itself: &str, within: TokenStream| {
        let name = match found {
            // The crate itself (its tests and examples too): each of the
            // three is also `extern crate self as` its own name.
            FoundCrate::Itself => itself.to_string(),
            FoundCrate::Name(n) => n,
        };
        let ident = Ident::new(&name, Span::call_site());
        Some(quote!(::#ident #within))
    };
    if let Ok(found) = crate_name("ctywire-provider") {
        return named(found, "ctywire_provider", quote!());
    }
    if let Ok(found) = crate_name("ctywire-model") {
        return named(found, "ctywire_model", quote!());
    }
    let found = crate_name("ctywire-seasonings").ok()?;
    named(found, "ctywire_seasonings", quote!(::plugin::model))
}

/// One field that is in the schema.
struct Field {
    /// Its Rust name, which `exactly_one_of(..)` and kin use.
    ident: String,
    /// serde's name for it, and where that name was written.
    name: String,
    name_span: Span,
    /// The Rust type the schema follows (`as = ..`, else the field's),
    /// with `Self` spelled out so it can be named outside the impl.
    ty: TokenStream,
    ty_span: Span,
    /// That type without its `Option`, for `validate` and `default`.
    inner: TokenStream,
    doc: String,
    spec: FieldSpec,
    /// `default_from(a)`'s field, by serde's name (resolved once all
    /// fields are known).
    default_from: Option<String>,
}

/// Joins errors so that every one is reported at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
    fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }
    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// `Self` replaced by the struct's name, at the token level.
fn spell_self(tokens: TokenStream, name: &Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if i == "Self" => {
                TokenTree::Ident(Ident::new(&name.to_string(), i.span()))
            }
            TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), spell_self(g.stream(), name));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            other => other,
        })
        .collect()
}

/// `Option<T>` → `T`, by its spelling (as serde does); anything else as is.
fn strip_option(ty: &syn::Type) -> &syn::Type {
    if let syn::Type::Path(p) = ty {
        if let Some(last) = p.path.segments.last() {
            if last.ident == "Option" {
                if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                    if let (1, Some(syn::GenericArgument::Type(inner))) =
                        (args.args.len(), args.args.first())
                    {
                        return inner;
                    }
                }
            }
        }
    }
    ty
}

pub fn derive(input: DeriveInput) -> syn::Result<TokenStream> {
    check_model_crate()?;
    let name = &input.ident;
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            input.generics.span(),
            "a model cannot be generic: its schema is one fixed block",
        ));
    }
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => &named.named,
            Fields::Unnamed(_) | Fields::Unit => {
                return Err(syn::Error::new(
                    name.span(),
                    "a model is a struct with named fields: each field is an attribute or a nested block",
                ))
            }
        },
        Data::Enum(e) => {
            return Err(syn::Error::new(
                e.enum_token.span,
                "a model is a struct with named fields; an enum has no Terraform block (a unit enum can be a string attribute's type through serde)",
            ))
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "a model is a struct with named fields",
            ))
        }
    };
    let case = serde_attrs::container(&input.attrs)?;
    let struct_spec = model_attrs::struct_spec(&input.attrs)?;
    let mut errors = Errors::default();
    let mut model: Vec<Field> = Vec::new();
    // The Rust names of the fields serde skips.
    let mut skipped: Vec<String> = Vec::new();
    for f in fields {
        let named = match serde_attrs::field_name(f, case) {
            Ok(Some(n)) => n,
            Ok(None) => {
                skipped.extend(f.ident.as_ref().map(|i| i.unraw().to_string()));
                if f.attrs.iter().any(|a| a.path().is_ident("model")) {
                    errors.at(
                        f.span(),
                        "serde skips this field, so it is not in the schema: its #[model] says nothing",
                    );
                }
                continue;
            }
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let spec = match model_attrs::field_spec(&f.attrs) {
            Ok(s) => s,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let schema_ty = spec.as_type.clone().unwrap_or_else(|| f.ty.clone());
        model.push(Field {
            ident: f
                .ident
                .as_ref()
                .map(|i| i.unraw().to_string())
                .unwrap_or_default(),
            name: named.0,
            name_span: named.1,
            ty: spell_self(schema_ty.to_token_stream(), name),
            ty_span: schema_ty.span(),
            inner: spell_self(strip_option(&schema_ty).to_token_stream(), name),
            doc: model_attrs::doc(&f.attrs),
            spec,
            default_from: None,
        });
    }
    errors.finish()?;

    let mut errors = Errors::default();
    let mut names: BTreeMap<&str, &Field> = BTreeMap::new();
    for f in &model {
        if names.insert(&f.name, f).is_some() {
            errors.at(
                f.name_span,
                format!("two fields are named {:?} in the schema", f.name),
            );
        }
    }
    for f in &model {
        check_field(f, &names, &mut errors);
    }
    if let Some((_, before_last)) = model.split_last() {
        for f in before_last {
            if let Some(span) = f.spec.variadic {
                errors.at(
                    span,
                    "`variadic` goes on the last field: it takes the arguments after the others",
                );
            }
        }
    }
    let combinations = combinations(&struct_spec, &model, &skipped, &mut errors);
    let sources: Vec<Option<String>> = (model.iter())
        .map(|f| default_source(f, &model, &skipped, &mut errors))
        .collect();
    for (f, source) in model.iter_mut().zip(sources) {
        f.default_from = source;
    }
    errors.finish()?;

    let asserts = model.iter().map(assertions);
    let builds = model.iter().map(build_field);
    let description = struct_spec
        .description
        .map_or_else(|| model_attrs::doc(&input.attrs), |d| d.value());
    let deprecation = struct_spec.deprecated.map(|d| {
        quote! { __block.deprecation_message = ::core::option::Option::Some(::std::string::String::from(#d)); }
    });
    let p = model_crate();
    let paths = field_paths(name, &model);
    Ok(quote! {
        const _: () = {
            #(#asserts)*
            #paths

            impl #p::Model for #name {
                fn block() -> #p::schema::Block {
                    static CACHE: ::std::sync::OnceLock<#p::schema::Block> = ::std::sync::OnceLock::new();
                    #p::model::__derive::cached_block(&CACHE, ::core::any::type_name::<Self>(), || {
                        let mut __cx = #p::model::__derive::Builder::default();
                        let mut __block = #p::schema::Block::default();
                        __block.description = ::std::string::String::from(#description);
                        #deprecation
                        #(#combinations)*
                        #(#builds)*
                        __block.defects.append(&mut __cx.defects);
                        __block
                    })
                }
            }

            impl #p::AttributeType for #name {
                fn cty_type() -> #p::ctywire::Type {
                    static CACHE: ::std::sync::OnceLock<#p::ctywire::Type> = ::std::sync::OnceLock::new();
                    #p::model::__derive::cached_type(&CACHE, <Self as #p::Model>::block)
                }
            }

            impl #p::model::BlockContainer for #name {
                const NESTING: #p::ctywire::schema::NestingMode = #p::ctywire::schema::NestingMode::Group;
                type Element = Self;
            }
        };
    })
}

/// The model's `field_paths()`: a struct with a `Path` per field, by its Rust
/// name, so a plan hook names an attribute checked by the compiler, and by
/// serde's name in the path. Declared inside the derive's `const _` block,
/// so it takes no name beside the model.
fn field_paths(name: &Ident, model: &[Field]) -> TokenStream {
    let p = model_crate();
    let idents: Vec<Ident> = (model.iter())
        .map(|f| Ident::new_raw(&f.ident, f.name_span))
        .collect();
    let names = model.iter().map(|f| &f.name);
    let docs = model.iter().map(|f| format!("`.{}`", f.name));
    quote! {
        /// The paths of a model's attributes and blocks, by field.
        pub struct __FieldPaths {
            #( #[doc = #docs] pub #idents: #p::ctywire::Path, )*
        }

        impl #name {
            /// The path of each attribute and block of this model, by its
            /// field (serde's name in the path): `field_paths().key` is
            /// `.key` (in a nested block, relative to it).
            pub fn field_paths() -> __FieldPaths {
                __FieldPaths {
                    #( #idents: #p::ctywire::Path::root().attr(#names), )*
                }
            }
        }
    }
}

/// The statements that add the struct's `exactly_one_of(..)` and
/// `at_least_one_of(..)` and each field's `conflicts_with(..)` and
/// `also_requires(..)` to the block, their Rust field names turned into
/// the schema's; a name that is no field in the schema is an error at it.
fn combinations(
    spec: &model_attrs::StructSpec,
    model: &[Field],
    skipped: &[String],
    errors: &mut Errors,
) -> Vec<TokenStream> {
    let p = quote!(::ctywire_provider);
    let c = quote!(#p::schema::Combination);
    let mut out = Vec::new();
    let strings =
        |names: Vec<String>| quote!(::std::vec![#(::std::string::String::from(#names)),*]);
    for (key, idents) in &spec.combinations {
        let Some(names) = resolve(key, idents, None, model, skipped, errors) else {
            continue;
        };
        if names.len() < 2 {
            errors.at(
                key.span(),
                format!(
                    "`{key}` needs two fields or more: with one, mark that field required instead"
                ),
            );
            continue;
        }
        let names = strings(names);
        out.push(if key == "exactly_one_of" {
            quote! { __block.combinations.push(#c::ExactlyOneOf(#names)); }
        } else {
            quote! { __block.combinations.push(#c::AtLeastOneOf(#names)); }
        });
    }
    for f in model {
        let declared = [
            (&f.spec.conflicts_with, quote!(ConflictsWith)),
            (&f.spec.also_requires, quote!(AlsoRequires)),
        ];
        for (decl, variant) in declared {
            let Some((key, idents)) = decl else { continue };
            let Some(names) = resolve(key, idents, Some(f), model, skipped, errors) else {
                continue;
            };
            if names.is_empty() {
                errors.at(
                    key.span(),
                    format!("`{key}` needs a field to name: `{key}(other)`"),
                );
                continue;
            }
            let (attribute, others) = (&f.name, strings(names));
            out.push(quote! {
                __block.combinations.push(#c::#variant {
                    attribute: ::std::string::String::from(#attribute),
                    others: #others,
                });
            });
        }
    }
    out
}

/// The schema names of the fields `idents` names (declared by `key`, on
/// the field `on` when it is a field's), or `None` after reporting each
/// one that is not a field in the schema.
fn resolve(
    key: &Ident,
    idents: &[Ident],
    on: Option<&Field>,
    model: &[Field],
    skipped: &[String],
    errors: &mut Errors,
) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut ok = true;
    for (i, ident) in idents.iter().enumerate() {
        let rust = ident.unraw().to_string();
        let mut fail = |msg: String| {
            errors.at(ident.span(), msg);
            ok = false;
        };
        if idents[..i].iter().any(|o| o.unraw() == ident.unraw()) {
            fail(format!("`{key}` names `{rust}` twice"));
        } else if on.is_some_and(|f| f.ident == rust) {
            fail(format!("`{key}` names the field it is declared on"));
        } else if let Some(f) = model.iter().find(|f| f.ident == rust) {
            names.push(f.name.clone());
        } else if skipped.contains(&rust) {
            fail(format!(
                "`{key}` names `{rust}`, which serde skips, so it is not in the schema"
            ));
        } else {
            let fields: Vec<&str> = model.iter().map(|f| f.ident.as_str()).collect();
            fail(format!(
                "`{key}` names `{rust}`, but the model has no such field (its fields: {})",
                fields.join(", ")
            ));
        }
    }
    ok.then_some(names)
}

/// The schema name of the field `default_from(..)` names on `f`, after
/// reporting a name that is no field, more than one name, or a nested
/// block (a default is an attribute's value).
fn default_source(
    f: &Field,
    model: &[Field],
    skipped: &[String],
    errors: &mut Errors,
) -> Option<String> {
    let (key, idents) = f.spec.default_from.as_ref()?;
    let names = resolve(key, idents, Some(f), model, skipped, errors)?;
    if names.len() != 1 {
        errors.at(
            key.span(),
            "`default_from` names one field: `default_from(other)`",
        );
        return None;
    }
    let source = model.iter().find(|g| g.name == names[0])?;
    if matches!(source.spec.kind, Some(Kind::Block { .. })) {
        errors.at(
            idents[0].span(),
            format!(
                "`default_from` names `{}`, a nested block: it must name an attribute",
                source.ident
            ),
        );
        return None;
    }
    names.into_iter().next()
}

/// What cannot be declared together, or on this kind of field.
fn check_field(f: &Field, names: &BTreeMap<&str, &Field>, errors: &mut Errors) {
    let s = &f.spec;
    let is_block = matches!(s.kind, Some(Kind::Block { .. }));
    if let Some((key, _)) = &s.timeouts {
        if f.name != "timeouts" {
            errors.at(
                key.span(),
                format!("a `timeouts` block is named `timeouts` (Terraform's convention, which the framework reads), not `{}`", f.name),
            );
        }
    }
    if let (Some(Kind::Block { .. } | Kind::Nested { .. }), Some(path)) =
        (&s.kind, &s.semantic_equality)
    {
        errors.at(
            path.span(),
            "`semantic_equality` compares an attribute's values; declare it on the attributes inside the nested block or object",
        );
    }
    if let (Some(Kind::Block { .. } | Kind::Nested { .. }), Some(t)) = (&s.kind, &s.as_type) {
        errors.at(
            t.span(),
            "`as` gives an attribute's type; nested blocks and attributes take theirs from the model",
        );
    }
    if is_block {
        let not_on_blocks = [
            (s.required, "required"),
            (s.optional, "optional"),
            (s.sensitive, "sensitive"),
            (s.write_only, "write_only"),
            (s.requires_replace, "requires_replace"),
            (s.keep_state, "keep_state"),
            (s.variadic, "variadic"),
            (s.default.as_ref().map(|d| d.span()), "default"),
            (s.same_as.as_ref().map(|l| l.span()), "same_as"),
            (s.default_from.as_ref().map(|d| d.0.span()), "default_from"),
        ];
        if let Some((span, _)) = s.identity {
            errors.at(
                span,
                "a nested block cannot be part of the identity: mark attributes of the resource itself `identity`",
            );
        }
        for (span, key) in not_on_blocks {
            if let Some(span) = span {
                errors.at(span, format!("a nested block takes no `{key}`: declare it on the attributes inside it (min_items = 1 makes the block required)"));
            }
        }
        for (span, rule) in &s.rules {
            if !matches!(rule, Rule::Length { .. } | Rule::Validate(_)) {
                errors.at(
                    *span,
                    "a nested block takes `length` and `validate`; other rules go on the attributes inside it",
                );
            }
        }
        return;
    }
    if let (Some(_), Some(o)) = (s.required, s.optional) {
        errors.at(o, "`required` and `optional` contradict each other");
    }
    if let (Some(_), Some(c)) = (s.required, s.computed) {
        errors.at(
            c,
            "a required attribute is set by the configuration, never computed: drop `required` (`optional, computed` lets either set it)",
        );
    }
    if s.computed.is_none() {
        let needs_computed = [
            (
                s.default.as_ref().map(|d| d.span()),
                "a default is planned by the provider",
            ),
            (
                s.keep_state,
                "`keep_state` keeps what the provider computed",
            ),
            (
                s.same_as.as_ref().map(|l| l.span()),
                "`same_as` plans a value the provider computes",
            ),
            (
                s.default_from.as_ref().map(|d| d.0.span()),
                "a default is planned by the provider",
            ),
        ];
        for (span, what) in needs_computed {
            if let Some(span) = span {
                errors.at(
                    span,
                    format!(
                        "{what}, so the attribute must be `computed` (or `optional, computed`)"
                    ),
                );
            }
        }
    }
    if let Some(lit) = &s.same_as {
        let target = lit.value();
        match names.get(target.as_str()) {
            None => errors.at(
                lit.span(),
                format!(
                    "`same_as` names {target:?}, but no attribute beside it has that name (the attributes: {})",
                    names
                        .iter()
                        .filter(|(_, g)| !matches!(g.spec.kind, Some(Kind::Block { .. })))
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Some(_) if target == f.name => {
                errors.at(lit.span(), "`same_as` names the attribute itself")
            }
            Some(g) if matches!(g.spec.kind, Some(Kind::Block { .. })) => errors.at(
                lit.span(),
                format!("`same_as` names {target:?}, a nested block: it must name an attribute"),
            ),
            Some(_) => {}
        }
    }
}

/// Compile-time ties between a field's declarations and its Rust type.
fn assertions(f: &Field) -> TokenStream {
    let p = model_crate();
    let ty = &f.ty;
    let s = &f.spec;
    let mut out = TokenStream::new();
    let is_block = matches!(s.kind, Some(Kind::Block { .. }));
    // A field that can be null must be read into a type that takes one.
    let accepts_null = if is_block {
        s.computed.map(|_| {
            (
                quote_spanned!(f.ty_span=> <#ty as #p::model::BlockContainer>::ACCEPTS_NULL),
                format!(
                    "the block `{}` is computed, so it is null until the provider sets it: its type must take a null (an Option)",
                    f.name
                ),
            )
        })
    } else {
        (s.optional.is_some() || s.computed.is_some()).then(|| {
            (
                quote_spanned!(f.ty_span=> <#ty as #p::AttributeType>::ACCEPTS_NULL),
                format!(
                    "the attribute `{}` is optional or computed, so it is null when the configuration leaves it out: its type must take a null (an Option, or a Value)",
                    f.name
                ),
            )
        })
    };
    if let Some((accepts, msg)) = accepts_null {
        out.extend(quote_spanned! {f.ty_span=>
            const _: () = ::core::assert!(#accepts, #msg);
        });
    }
    if s.timeouts.is_some() {
        out.extend(quote_spanned! {f.ty_span=>
            const _: fn() = || {
                fn timeouts_field<T: ?::core::marker::Sized + #p::timeouts::TimeoutsField>() {}
                timeouts_field::<#ty>();
            };
        });
    }
    if let Some(Kind::Block { set: Some(set), .. } | Kind::Nested { set: Some(set), .. }) = s.kind {
        out.extend(quote_spanned! {set=>
            const _: fn() = || {
                fn set_of_models<C: ?::core::marker::Sized + #p::model::SetContainer>() {}
                set_of_models::<#ty>();
            };
        });
    }
    out
}

/// The statements that add one field to `block`.
fn build_field(f: &Field) -> TokenStream {
    let p = model_crate();
    let ty = &f.ty;
    let s = &f.spec;
    let name = &f.name;
    let at = format!(".{name}");
    let description = s
        .description
        .as_ref()
        .map_or_else(|| f.doc.clone(), |d| d.value());
    let deprecation = s
        .deprecated
        .as_ref()
        .map(|d| quote!(::core::option::Option::Some(::std::string::String::from(#d))));
    let span = f.ty_span;
    match &s.kind {
        Some(Kind::Block {
            set,
            min_items,
            max_items,
        }) => {
            let nesting = match set {
                Some(_) => quote!(#p::ctywire::schema::NestingMode::Set),
                None => quote_spanned!(span=> <#ty as #p::model::BlockContainer>::NESTING),
            };
            let (min, max) = (min_items.unwrap_or(0), max_items.unwrap_or(0));
            let validators = rules(&s.rules, ty, &f.inner, &at);
            let description = (!description.is_empty()).then(|| {
                quote! { __nb.block.description = ::std::string::String::from(#description); }
            });
            let deprecation = deprecation.map(|d| quote! { __nb.block.deprecation_message = #d; });
            // `build()` checks what core refuses in a computed block.
            let computed = s.computed.map(|_| quote! { __nb.block.computed = true; });
            let timeouts = timeouts(s, quote!(__nb.block), &at);
            quote_spanned! {span=>
                {
                    let mut __nb = #p::schema::NestedBlock {
                        name: ::std::string::String::from(#name),
                        nesting: #nesting,
                        block: <<#ty as #p::model::BlockContainer>::Element as #p::Model>::block(),
                        min_items: #min,
                        max_items: #max,
                        validators: #validators,
                    };
                    #description
                    #deprecation
                    #computed
                    #timeouts
                    __block.blocks.push(__nb);
                }
            }
        }
        kind => {
            let ty_expr = match kind {
                Some(Kind::Nested { set, .. }) => {
                    let nesting = match set {
                        Some(_) => quote!(#p::ctywire::schema::NestingMode::Set),
                        None => quote_spanned!(span=> #p::model::__derive::attribute_nesting(
                            <#ty as #p::model::BlockContainer>::NESTING)),
                    };
                    let timeouts = timeouts(s, quote!(__nested.block), &at);
                    quote_spanned! {span=>
                        #[allow(unused_mut)]
                        let mut __nested = #p::schema::Nested {
                            nesting: #nesting,
                            block: <<#ty as #p::model::BlockContainer>::Element as #p::Model>::block(),
                        };
                        #timeouts
                        let mut __a = #p::schema::Attribute::new(#name, #p::model::__derive::nested_type(&__nested));
                        __a.nested = ::core::option::Option::Some(__nested);
                    }
                }
                _ => quote_spanned! {span=>
                    let mut __a = #p::schema::Attribute::new(#name, <#ty as #p::AttributeType>::cty_type());
                },
            };
            let presence = match (s.required, s.optional, s.computed) {
                (_, Some(_), Some(_)) => quote!(#p::schema::Presence::OptionalComputed),
                (_, _, Some(_)) => quote!(#p::schema::Presence::Computed),
                (Some(_), _, _) => quote!(#p::schema::Presence::Required),
                (_, Some(_), _) => quote!(#p::schema::Presence::Optional),
                _ => quote_spanned! {span=>
                    if <#ty as #p::AttributeType>::NULLABLE {
                        #p::schema::Presence::Optional
                    } else {
                        #p::schema::Presence::Required
                    }
                },
            };
            let mut sets = TokenStream::new();
            if s.sensitive.is_some() {
                sets.extend(quote!(__a.sensitive = true;));
            }
            if s.write_only.is_some() {
                sets.extend(quote!(__a.write_only = true;));
            }
            if let Some(d) = deprecation {
                sets.extend(quote!(__a.deprecation_message = #d;));
            }
            if s.requires_replace.is_some() {
                sets.extend(quote!(__a.plan.requires_replace = true;));
            }
            if let Some(condition) = &s.replace_if {
                let r = quote!(#p::schema::ReplaceIf);
                let condition = match condition {
                    ReplaceIf::ValuesNotNull(span) => quote_spanned!(*span=> #r::ValuesNotNull),
                    ReplaceIf::EmptyAsNull(span) => quote_spanned!(*span=> #r::EmptyAsNull),
                    ReplaceIf::If(path) => quote_spanned!(path.span()=> #r::custom(#path)),
                };
                sets.extend(
                    quote!(__a.plan.replace_if = ::core::option::Option::Some(#condition);),
                );
            }
            if let Some(source) = &f.default_from {
                sets.extend(quote!(__a.plan.default_from = ::core::option::Option::Some(::std::string::String::from(#source));));
            }
            if s.keep_state.is_some() {
                sets.extend(quote!(__a.plan.keep_state = true;));
            }
            if s.variadic.is_some() {
                sets.extend(quote!(__a.variadic = true;));
            }
            if let Some((_, optional)) = s.identity {
                let role = if optional {
                    quote!(OptionalForImport)
                } else {
                    quote!(RequiredForImport)
                };
                sets.extend(quote!(__a.identity = ::core::option::Option::Some(#p::schema::IdentityRole::#role);));
            }
            if let Some(lit) = &s.same_as {
                sets.extend(quote!(__a.plan.same_as = ::core::option::Option::Some(::std::string::String::from(#lit));));
            }
            // A field's own rule, else its type's.
            let semantic = match &s.semantic_equality {
                Some(path) => {
                    let inner = &f.inner;
                    quote_spanned! {path.span()=>
                        ::core::option::Option::Some(#p::schema::SemanticEquality::of::<#inner, _, _>(#path))
                    }
                }
                None => quote_spanned! {span=> <#ty as #p::AttributeType>::semantic_equality() },
            };
            sets.extend(quote!(__a.plan.semantic_equality = #semantic;));
            if let Some(expr) = &s.default {
                let inner = &f.inner;
                // A string literal becomes a String; anything else is
                // already of the field's type (so `8080` is a u16 there).
                let value = match expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    }) => quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr)),
                    _ => expr.to_token_stream(),
                };
                sets.extend(quote_spanned! {expr.span()=>
                    let __default: #inner = #value;
                    __a.plan.default = __cx.default_value(&__default, &__a.ty, #at);
                });
            }
            let declared = rules(&s.rules, ty, &f.inner, &at);
            quote! {
                {
                    #ty_expr
                    __a.presence = #presence;
                    __a.description = ::std::string::String::from(#description);
                    #sets
                    __a.validators = #p::model::merge_validators(
                        <#ty as #p::AttributeType>::validators(),
                        #declared,
                    );
                    __block.attributes.push(__a);
                }
            }
        }
    }
}

/// `timeouts(..)`: keeps the operations named in the block `target`,
/// with their defaults.
fn timeouts(s: &FieldSpec, target: TokenStream, at: &str) -> Option<TokenStream> {
    let (_, ops) = s.timeouts.as_ref()?;
    let p = model_crate();
    let ops = ops.iter().map(|(op, default)| {
        let op = op.to_string();
        match default {
            Some(d) => quote!((#op, ::core::option::Option::Some(#d))),
            None => quote!((#op, ::core::option::Option::None)),
        }
    });
    Some(quote! {
        #p::timeouts::declare(&mut #target, &[#(#ops),*], #at);
    })
}

/// The declared rules as a `Vec<Validator>` expression. `level` is the
/// Rust type at this level (its elements are `each`'s level), `inner` what
/// a top-level `validate` function receives.
fn rules(
    declared: &[(Span, Rule)],
    level: &TokenStream,
    inner: &TokenStream,
    at: &str,
) -> TokenStream {
    let p = model_crate();
    let v = quote!(#p::schema::Validator);
    let pushes = declared.iter().map(|(span, rule)| match rule {
        Rule::Range { min, max } => {
            let bound = |b: &Option<String>| match b {
                Some(text) => quote!(__cx.number(#text, #at)),
                None => quote!(::core::option::Option::None),
            };
            let (min, max) = (bound(min), bound(max));
            quote! { __rules.push(#v::Range { min: #min, max: #max, whole: false }); }
        }
        Rule::Length { min, max } => {
            let bound = |b: &Option<u64>| match b {
                Some(n) => quote!(::core::option::Option::Some(#n)),
                None => quote!(::core::option::Option::None),
            };
            let (min, max) = (bound(min), bound(max));
            quote! { __rules.push(#v::Length { min: #min, max: #max }); }
        }
        Rule::Pattern { regex, description } => quote! {
            if let ::core::option::Option::Some(__rule) = __cx.pattern(#regex, #description, #at) {
                __rules.push(__rule);
            }
        },
        Rule::OneOf(values) => {
            let values = values.iter().map(|value| match value {
                OneOfValue::Str(s) => quote!(#p::ctywire::Value::string(#s)),
                OneOfValue::Bool(b) => quote!(#p::ctywire::Value::bool(#b)),
                OneOfValue::Num(text) => quote!(__cx.number_value(#text, #at)),
            });
            quote! { __rules.push(#v::OneOf(::std::vec![#(#values),*])); }
        }
        Rule::Each(inner_rules) => {
            let element = quote_spanned!(*span=> <#level as #p::model::Collection>::Element);
            let inner = rules(inner_rules, &element, &element, at);
            // `each` on what has no elements is a compile error here.
            let collection = quote_spanned! {*span=>
                fn __collection<C: ?::core::marker::Sized + #p::model::Collection>() {}
                __collection::<#level>();
            };
            quote! {
                {
                    #collection
                    __rules.push(#v::Each(#inner));
                }
            }
        }
        Rule::Validate(path) => quote_spanned! {path.span()=>
            __rules.push(#p::model::custom_validator::<#inner, _, _, _>(#path));
        },
    });
    quote! {
        {
            #[allow(unused_mut)]
            let mut __rules: ::std::vec::Vec<#v> = ::std::vec::Vec::new();
            #(#pushes)*
            __rules
        }
    }
}
