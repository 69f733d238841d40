//! Arbitrary bytes as a host's messages on a Rust SDK plugin's stdin (an
//! in-memory pipe), its output drained: the server's dispatch never
//! panics, and serving ends promptly once the input does, every request
//! answered or dropped with the stream. The plugin has a function, a
//! resource that plans itself and a data source, so every method reaches
//! typed author code with whatever values the bytes carry.
#![no_main]

#[allow(dead_code)]
#[path = "common/peer.rs"]
mod peer;

use std::time::Duration;

use ctywire_seasonings::plugin::{
    async_trait, DataSource, Error, Failed, Function, Model, Plugin, Resource, Unknowable, Value,
};
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

/// The drain the server allows its answers (5 s) and a margin: beyond
/// this, serving hangs.
const PROMPTLY: Duration = Duration::from_secs(10);

#[derive(Model, Serialize, Deserialize)]
struct Args {
    text: String,
    sep: Unknowable<Option<String>>,
    rest: Vec<Value>,
}

struct Join;

#[async_trait]
impl Function for Join {
    type Args = Args;
    type Output = Unknowable<String>;
    const ALLOW_UNKNOWN_VALUES: &'static [&'static str] = &["sep"];
    const VARIADIC: Option<&'static str> = Some("rest");

    async fn call(&self, args: Args) -> Result<Unknowable<String>, Error> {
        match args.sep {
            Unknowable::Known(sep) => Ok(Unknowable::Known(format!(
                "{}{}{}",
                args.text,
                sep.unwrap_or_default(),
                args.rest.len()
            ))),
            Unknowable::Unknown(_) => Err(Error::new("unknown").argument(1)),
        }
    }
}

#[derive(Model, Serialize, Deserialize, Clone)]
struct Thing {
    name: String,
    #[model(computed)]
    id: Option<String>,
    tags: Option<std::collections::BTreeMap<String, String>>,
    #[model(block)]
    rule: Vec<Rule>,
}

#[derive(Model, Serialize, Deserialize, Clone)]
struct Rule {
    port: u16,
}

struct Things;

#[async_trait]
impl Resource for Things {
    type State = Thing;
    const PLANS_ITSELF: bool = true;

    fn validate(&self, config: &Value) -> Vec<Error> {
        match config.attr("name").and_then(Value::as_str) {
            Some("") => vec![Error::new("empty")],
            _ => Vec::new(),
        }
    }

    async fn create(&self, planned: Thing, _: &Value) -> Result<Thing, Failed<Thing>> {
        let state = Thing {
            id: Some(planned.name.clone()),
            ..planned
        };
        if state.name == "fail" {
            return Err(Failed::after(state, Error::new("failed")));
        }
        Ok(state)
    }

    async fn read(&self, state: Thing) -> Result<Option<Thing>, Error> {
        Ok(Some(state).filter(|s| s.name != "gone"))
    }

    async fn update(&self, _: Thing, planned: Thing, _: &Value) -> Result<Thing, Failed<Thing>> {
        Ok(planned)
    }

    async fn delete(&self, _: Thing) -> Result<(), Error> {
        Ok(())
    }
}

#[derive(Model, Serialize, Deserialize)]
struct Lookup {
    key: String,
    #[model(computed)]
    value: Option<String>,
}

struct Lookups;

#[async_trait]
impl DataSource for Lookups {
    type Model = Lookup;

    async fn read(&self, config: Lookup) -> Result<Lookup, Error> {
        let value = Some(config.key.clone());
        Ok(Lookup { value, ..config })
    }
}

fuzz_target!(|data: &[u8]| {
    peer::feed(
        data,
        |r, w| {
            Plugin::new("fuzzed", "0.1.0")
                .function("join", Join)
                .resource("thing", Things)
                .data_source("lookup", Lookups)
                .serve_on(r, w)
        },
        |serving| async move {
            match tokio::time::timeout(PROMPTLY, serving).await {
                Err(_) => panic!("the plugin still served {PROMPTLY:?} after its input ended"),
                Ok(r) => r.expect("the declarations are valid"),
            }
        },
    );
});
