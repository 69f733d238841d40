use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Entry {
    #[model(requird)]
    key: String,
}

#[derive(Model, Serialize, Deserialize)]
struct Rules {
    #[model(range(min = one))]
    port: u16,
    #[model(pattern(r"^[a-z+$", "lowercase letters"))]
    name: String,
    #[model(pattern(r"^[a-z]+$"))]
    other: String,
}

fn main() {}
