use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct JoinArgs {
    #[model(variadic)]
    parts: Vec<String>,
    separator: String,
}

fn main() {}
