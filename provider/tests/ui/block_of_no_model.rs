use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Entry {
    #[model(block)]
    rule: Vec<String>,
}

#[derive(Model, Serialize, Deserialize)]
struct Rule {
    port: u16,
}

#[derive(Model, Serialize, Deserialize)]
struct Entry2 {
    #[model(block(set))]
    rule: Option<Rule>,
}

#[derive(Model, Serialize, Deserialize)]
struct Entry3 {
    #[model(block, sensitive, range(1, 2))]
    other: Vec<Rule>,
}

fn main() {}
