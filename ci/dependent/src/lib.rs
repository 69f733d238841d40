//! Nothing: the tests are the point. See `Cargo.toml`.
