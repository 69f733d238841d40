use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
#[model(exactly_one_of(content, sorce), at_least_one_of(content))]
struct File {
    content: Option<String>,
    source: Option<String>,
    #[serde(skip)]
    cache: Option<String>,
    #[model(conflicts_with(port, port, cache))]
    port: Option<u16>,
    #[model(also_requires())]
    host: Option<String>,
}

fn main() {}
