use ctywire_provider::Model;
use serde::{Deserialize, Serialize};

#[derive(Model, Serialize, Deserialize)]
struct Flattened {
    #[serde(flatten)]
    inner: Inner,
}

#[derive(Serialize, Deserialize)]
struct Inner {
    a: String,
}

#[derive(Model, Serialize, Deserialize)]
struct Tuple(String);

#[derive(Model, Serialize, Deserialize)]
enum Kind {
    A,
}

#[derive(Model, Serialize, Deserialize)]
struct Generic<T> {
    t: T,
}

#[derive(Model, Serialize, Deserialize)]
struct Twice {
    #[serde(rename = "a")]
    b: String,
    a: String,
}

#[derive(Model, Serialize, Deserialize)]
struct Half {
    #[serde(skip_serializing)]
    half: Option<String>,
}

fn main() {}
