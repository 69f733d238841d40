use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Entry {
    #[model(block, identity)]
    rule: Vec<Rule>,
    key: String,
}

#[derive(Model, Serialize, Deserialize)]
struct Rule {
    port: u16,
}

fn main() {}
