use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Job {
    #[model(block, computed)]
    step: Vec<Step>,
}

#[derive(Model, Serialize, Deserialize)]
struct Step {
    #[model(computed)]
    phase: Option<String>,
}

fn main() {}
