//! `#[derive(Model)]` for ctywire-provider.

use proc_macro::TokenStream;

/// Derives `ctywire_provider::Model` (see that crate's documentation).
#[proc_macro_derive(Model, attributes(model))]
pub fn derive_model(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
