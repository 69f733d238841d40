use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Entry {
    #[model(optional)]
    name: String,
    #[model(each(range(1, 2)))]
    port: u16,
}

fn main() {}
