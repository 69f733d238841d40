//! `#[derive(Model)]` refuses, at compile time and at the offending item,
//! what cannot be a schema or contradicts itself.

#[test]
fn the_derive_refuses_what_cannot_be_a_schema() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
