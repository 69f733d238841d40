use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Entry {
    #[serde(rename = "name")]
    key: String,
    #[model(computed, same_as = "key")]
    id: Option<String>,
}

fn main() {}
