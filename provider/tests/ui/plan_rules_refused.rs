use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
struct Password {
    number: Option<bool>,
    #[model(optional, computed, default_from(numbr))]
    numeric: Option<bool>,
    #[model(optional, default_from(number))]
    digits: Option<bool>,
}

#[derive(Serialize, Deserialize, Model)]
struct Keepers {
    #[model(requires_replace(if_changed))]
    keepers: Option<String>,
}

fn main() {}
