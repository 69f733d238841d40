use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Entry {
    #[model(required, computed)]
    id: Option<String>,
    #[model(default = 8080)]
    port: Option<u16>,
    #[model(optional, keep_state)]
    created: Option<String>,
    #[model(same_as = "key")]
    name: Option<String>,
    key: String,
}

fn main() {}
