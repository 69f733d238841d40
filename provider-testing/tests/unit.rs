//! `UnitClient`: an ephemeral resource, an action and a function of a
//! framework-built provider called one at a time through the gRPC service.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use ctywire_provider::{
    async_trait, Action, Builder, Context, Diagnostics, EphemeralResource, Model, Opened, Progress,
    Provider, Renewed, Result, Value,
};
use ctywire_provider_testing::UnitClient;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

struct Test;

#[async_trait]
impl Provider for Test {
    type Config = NoConfig;
    type Data = ();
    async fn configure(&self, _: NoConfig) -> Result<()> {
        Ok(())
    }
}

/// A lease on a name.
#[derive(Serialize, Deserialize, Model)]
struct Lease {
    #[model(length(min = 1))]
    name: String,
    #[model(computed)]
    token: Option<String>,
}

/// When each lease is renewed: a fixed time, to compare.
fn renew_at() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000)
}

/// Leases whose private data counts renewals; closing records it.
struct Leases {
    closed: Arc<Mutex<Vec<String>>>,
}

#[async_trait]
impl EphemeralResource<()> for Leases {
    type Model = Lease;
    async fn open(&self, _: &Context<()>, lease: Lease) -> Result<Opened<Lease>> {
        let token = Some(format!("token-{}", lease.name));
        Ok(Opened {
            private: Some(format!("{}:0", lease.name).into_bytes()),
            renew_at: Some(renew_at()),
            ..Opened::new(Lease { token, ..lease })
        })
    }
    async fn renew(&self, _: &Context<()>, private: Option<Vec<u8>>) -> Result<Renewed> {
        let text = String::from_utf8(private.unwrap_or_default()).unwrap_or_default();
        let (name, n) = text.split_once(':').unwrap_or((&text, "0"));
        let n: u32 = n.parse().unwrap_or(0) + 1;
        Ok(Renewed {
            private: Some(format!("{name}:{n}").into_bytes()),
            renew_at: Some(renew_at() + Duration::from_secs(n.into())),
        })
    }
    async fn close(&self, _: &Context<()>, private: Option<Vec<u8>>) -> Result<()> {
        let text = String::from_utf8(private.unwrap_or_default()).unwrap_or_default();
        self.closed.lock().unwrap().push(text);
        Ok(())
    }
}

/// Fails after one step when told to.
#[derive(Serialize, Deserialize, Model)]
struct Step {
    fail: bool,
}

struct Stepper;

#[async_trait]
impl Action<()> for Stepper {
    type Config = Step;
    async fn invoke(&self, _: &Context<()>, step: Step, progress: &Progress) -> Result<()> {
        progress.send("step 1").await?;
        if step.fail {
            return Err(Diagnostics::error("step 2 failed"));
        }
        progress.send("step 2").await
    }
}

fn client(closed: &Arc<Mutex<Vec<String>>>) -> UnitClient {
    let provider = Builder::new(Test)
        .ephemeral_resource(
            "test_lease",
            Leases {
                closed: closed.clone(),
            },
        )
        .action("test_steps", Stepper)
        .build()
        .expect("a valid schema");
    let client = UnitClient::new(provider).unwrap();
    let warnings = client.configure(&NoConfig {}.to_value().unwrap()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    client
}

fn lease(name: &str) -> Value {
    Lease {
        name: name.into(),
        token: None,
    }
    .to_value()
    .unwrap()
}

#[test]
fn an_ephemeral_resource_opens_renews_and_closes_with_its_private_data() {
    let closed = Arc::new(Mutex::new(Vec::new()));
    let client = client(&closed);
    let opened = client.open_ephemeral("test_lease", &lease("db")).unwrap();
    assert_eq!(
        opened.result.attr("token"),
        Some(&Value::string("token-db"))
    );
    assert_eq!(opened.renew_at, Some(renew_at()));
    let renewed = (client.renew_ephemeral("test_lease", opened.private.as_deref())).unwrap();
    assert_eq!(renewed.private.as_deref(), Some(&b"db:1"[..]));
    assert_eq!(renewed.renew_at, Some(renew_at() + Duration::from_secs(1)));
    let again = (client.renew_ephemeral("test_lease", renewed.private.as_deref())).unwrap();
    let warnings = (client.close_ephemeral("test_lease", again.private.as_deref())).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(*closed.lock().unwrap(), ["db:2"]);
}

#[test]
fn an_ephemeral_configuration_is_validated_before_it_opens() {
    let closed = Arc::new(Mutex::new(Vec::new()));
    let err = client(&closed)
        .open_ephemeral("test_lease", &lease(""))
        .unwrap_err();
    let d = err.iter().next().unwrap();
    assert_eq!(d.summary, "Invalid Attribute Value Length");
    assert_eq!(d.attribute.as_ref().unwrap().to_string(), ".name");
}

#[test]
fn an_action_that_fails_keeps_its_progress_and_gives_its_error() {
    let client = client(&Arc::new(Mutex::new(Vec::new())));
    let ok =
        (client.invoke_action("test_steps", &Step { fail: false }.to_value().unwrap())).unwrap();
    assert_eq!(ok.progress, ["step 1", "step 2"]);
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let failed =
        (client.invoke_action("test_steps", &Step { fail: true }.to_value().unwrap())).unwrap();
    assert_eq!(failed.progress, ["step 1"]);
    let errors: Vec<_> = failed.diagnostics.iter().map(|d| &d.summary).collect();
    assert_eq!(errors, ["step 2 failed"]);
}

#[test]
fn a_kind_the_provider_does_not_have_is_named() {
    let client = client(&Arc::new(Mutex::new(Vec::new())));
    let err = client
        .open_ephemeral("test_nothing", &lease("a"))
        .unwrap_err();
    assert!(err.to_string().contains("\"test_nothing\""), "{err}");
    let err = client.call_function("nothing", &[]).unwrap_err();
    assert!(err.text.contains("\"nothing\""), "{}", err.text);
}
