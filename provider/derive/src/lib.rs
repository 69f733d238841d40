//! `#[derive(Model)]` for ctywire-provider: a Terraform block from a Rust
//! struct, read from its fields' types, serde's names and `#[model(..)]`
//! declarations. The attribute syntax is documented on `ctywire_provider::Model`.
//!
//! `serde_attrs` reads what serde decides (names, skipped fields),
//! `model_attrs` parses `#[model(..)]`, `expand` writes the code.

mod expand;
mod model_attrs;
mod serde_attrs;

use proc_macro::TokenStream;

/// Derives `ctywire_provider::Model` (see that crate's documentation).
#[proc_macro_derive(Model, attributes(model))]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
