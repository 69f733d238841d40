use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

/// The provider's own durations: not what the framework reads.
#[derive(Model, Serialize, Deserialize)]
struct MyTimeouts {
    #[model(optional)]
    create: Option<String>,
}

#[derive(Model, Serialize, Deserialize)]
struct Server {
    name: String,
    #[model(timeouts(create = "20m"))]
    timeouts: Option<MyTimeouts>,
}

fn main() {}
