//! Writes the benchmark payloads as case files (`{"type":T,"msgpack":"<hex>"}`)
//! for `ctywire bench --case FILE`.
//!
//! ```sh
//! cargo run --release --example bench_payloads -- target/bench-cases
//! cargo run --release -p ctywire-cli -- bench --case target/bench-cases/fleet.case
//! ```

#[path = "../cli/src/bench/payloads.rs"]
mod payloads;

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/bench-cases".into());
    std::fs::create_dir_all(&dir)?;
    let cases = [
        payloads::instance(),
        payloads::fleet(2000),
        payloads::fleet(200),
        payloads::dynamic_document(),
        payloads::string_set(10_000),
        payloads::string_set(1_000),
        payloads::object_set(10_000),
        payloads::object_set(1_000),
        payloads::object_set(100_000),
        payloads::string_map(100_000),
        payloads::string_map(10_000),
        payloads::manifest(1_000),
        payloads::manifest(100),
    ];
    for case in cases {
        let bytes = ctywire::msgpack::encode(&case.value, &case.ty)?;
        let n = payloads::elements(&case);
        let name = if case.name != "instance" && case.name != "dynamic" {
            format!("{}-{n}", case.name)
        } else {
            case.name.to_string()
        };
        let path = format!("{dir}/{name}.case");
        let line = serde_json::json!({"type": serde_json::from_str::<serde_json::Value>(&case.ty.to_json())?, "msgpack": hex(&bytes)});
        writeln!(std::fs::File::create(&path)?, "{line}")?;
        println!("{path}: {} bytes", bytes.len());
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
