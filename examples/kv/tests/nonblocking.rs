//! The kv store's file I/O leaves the async runtime free: a file that
//! takes long to open holds up only the call that reads it.

use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::{Type, Value};

#[path = "../src/main.rs"]
#[allow(dead_code)]
mod kv;

/// The state of entry `key` with every optional part empty, at `ty`.
fn state(ty: &Type, key: &str) -> Value {
    let Type::Object(o) = ty else {
        panic!("a resource's type is an object: {ty}")
    };
    Value::object(o.attributes().map(|(name, t)| {
        let v = match (name, t) {
            ("key" | "value" | "id", _) => Value::string(key),
            ("revision", _) => Value::number(1),
            (_, Type::List(e)) => Value::list((**e).clone(), vec![]).unwrap(),
            (_, t) => Value::null(t.clone()),
        };
        (name, v)
    }))
}

#[test]
fn a_slow_file_holds_up_its_own_call_not_the_runtime_thread() {
    let root = std::env::temp_dir().join(format!("kv-nonblocking-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    // Opening a FIFO for reading waits until a writer opens it.
    let fifo: PathBuf = root.join("slow.json");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", fifo.display());

    let framework = kv::provider().build().unwrap();
    let ty = framework.schemas().resources["kv_entry"]
        .implied_type()
        .unwrap();
    let config = Value::object([("root", Value::string(root.display().to_string()))]);
    let (done, outcome) = mpsc::channel();
    std::thread::spawn(move || {
        // One thread: a blocking call in an async fn would stop everything
        // on it, the timer included.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let freed = rt.block_on(async {
            let configured = framework
                .configure_provider(tf::ConfigureProviderRequest {
                    terraform_version: "1.11.4".into(),
                    config,
                    client_capabilities: Default::default(),
                })
                .await;
            assert!(configured.is_empty(), "{configured:?}");
            let read = framework.read_resource(tf::ReadResourceRequest {
                type_name: "kv_entry".into(),
                current_state: state(&ty, "slow"),
                private: Vec::new(),
                provider_meta: None,
                client_capabilities: Default::default(),
                current_identity: None,
            });
            tokio::time::timeout(Duration::from_millis(300), read)
                .await
                .is_err()
        });
        let _ = done.send(freed);
        rt.shutdown_background();
    });
    let got = outcome.recv_timeout(Duration::from_secs(10));
    // Let the read that waits on the FIFO finish, however it went.
    let writer = fifo.clone();
    std::thread::spawn(move || std::fs::write(writer, b"{}"));
    std::thread::sleep(Duration::from_millis(100));
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(
        got,
        Ok(true),
        "the read of a slow file did not leave the runtime's thread free to time it out"
    );
}
