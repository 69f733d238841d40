//! A fixed amount of work for instruction counts (valgrind's cachegrind
//! or callgrind): repeatable where timings on a loaded machine are not.
//!
//! ```sh
//! cargo build --release --example profile
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile \
//!     target/bench-cases/dynamic.case msgpack-decode 10
//! ```
//!
//! OP is msgpack-decode, msgpack-encode, json-decode or json-encode, and
//! with the `serde` feature, for the instance and fleet payloads,
//! structs-decode, borrowing-structs-decode and structs-encode (msgpack
//! into and from the benchmark's Rust structs), and structs-via-value-decode
//! and structs-via-value-encode (the same through a `Value`: `decode` then
//! `from_value`, `to_value` then `encode`). Three references apply
//! none of cty's rules and show what the shapes cost by themselves:
//! rmpv-ref-decode (rmpv's untyped parse, lending its strings, any
//! payload), and for the instance and fleet rmp-serde-borrowing-decode and
//! rmp-serde-encode (rmp_serde into and from the same structs). The
//! case file is one `{"type":T,"msgpack":"<hex>"}` line (`bench_payloads`
//! writes them). Setup (reading the case, the JSON text) is done once, so
//! the counts of N and 2N runs differ by N operations' work.

#[path = "../cli/src/bench/alloc.rs"]
mod alloc;

use ctywire::{json, msgpack, Type};

#[cfg(feature = "serde")]
#[path = "../cli/src/bench/instance.rs"]
mod instance;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    alloc::hold_freed_memory();
    let args: Vec<String> = std::env::args().collect();
    let [_, file, op, n] = &args[..] else {
        return Err("usage: profile CASE OP N".into());
    };
    let n: usize = n.parse()?;
    let line: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file)?)?;
    let ty = Type::parse(&line["type"].to_string())?;
    let hex = line["msgpack"].as_str().ok_or("no msgpack")?;
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16))
        .collect::<Result<_, _>>()?;
    let value = msgpack::decode(&bytes, &ty)?;
    let text = json::encode(&value, &ty)?;
    let mut out = Vec::with_capacity(bytes.len().max(text.len()));
    #[cfg(feature = "serde")]
    let fleet: Option<Vec<instance::Instance>> = matches!(
        op.as_str(),
        "structs-encode" | "structs-via-value-encode" | "rmp-serde-encode"
    )
    .then(|| {
        // One instance is read as a fleet of one.
        let fleet_ty = if let Type::List(_) = ty {
            ty.clone()
        } else {
            Type::list(ty.clone())
        };
        let fleet_bytes = if fleet_ty == ty {
            bytes.clone()
        } else {
            let mut b = vec![0x91];
            b.extend_from_slice(&bytes);
            b
        };
        msgpack::from_slice(&fleet_bytes, &fleet_ty).expect("the instance structs")
    });
    for _ in 0..n {
        match op.as_str() {
            "msgpack-decode" => drop(std::hint::black_box(msgpack::decode(&bytes, &ty)?)),
            "json-decode" => drop(std::hint::black_box(json::decode(&text, &ty)?)),
            "msgpack-encode" => {
                out.clear();
                msgpack::encode_into(&mut out, &value, &ty)?;
            }
            "json-encode" => {
                out.clear();
                json::encode_into(&mut out, &value, &ty)?;
            }
            #[cfg(feature = "serde")]
            "structs-decode" => {
                if let Type::List(_) = ty {
                    let v: Vec<instance::Instance> = msgpack::from_slice(&bytes, &ty)?;
                    drop(std::hint::black_box(v));
                } else {
                    let v: instance::Instance = msgpack::from_slice(&bytes, &ty)?;
                    drop(std::hint::black_box(v));
                }
            }
            #[cfg(feature = "serde")]
            "borrowing-structs-decode" => {
                if let Type::List(_) = ty {
                    let v: Vec<instance::Instance<&str>> = msgpack::from_slice(&bytes, &ty)?;
                    drop(std::hint::black_box(v));
                } else {
                    let v: instance::Instance<&str> = msgpack::from_slice(&bytes, &ty)?;
                    drop(std::hint::black_box(v));
                }
            }
            // The way round the typed layer saves: through a `Value`.
            #[cfg(feature = "serde")]
            "structs-via-value-decode" => {
                let v = msgpack::decode(&bytes, &ty)?;
                if let Type::List(_) = ty {
                    let v: Vec<instance::Instance> = ctywire::from_value(&v)?;
                    drop(std::hint::black_box(v));
                } else {
                    let v: instance::Instance = ctywire::from_value(&v)?;
                    drop(std::hint::black_box(v));
                }
            }
            #[cfg(feature = "serde")]
            "structs-via-value-encode" => {
                let fleet = fleet.as_ref().ok_or("no structs")?;
                out.clear();
                let v = if let Type::List(_) = ty {
                    ctywire::to_value(fleet, &ty)?
                } else {
                    ctywire::to_value(&fleet[0], &ty)?
                };
                msgpack::encode_into(&mut out, &v, &ty)?;
            }
            // References without cty's rules: rmp_serde into the same
            // borrowing structs, and rmpv's untyped borrowing parse.
            #[cfg(feature = "serde")]
            "rmp-serde-borrowing-decode" => {
                if let Type::List(_) = ty {
                    let v: Vec<instance::Instance<&str>> = rmp_serde::from_slice(&bytes)?;
                    drop(std::hint::black_box(v));
                } else {
                    let v: instance::Instance<&str> = rmp_serde::from_slice(&bytes)?;
                    drop(std::hint::black_box(v));
                }
            }
            "rmpv-ref-decode" => {
                let v = rmpv::decode::read_value_ref(&mut &bytes[..])?;
                drop(std::hint::black_box(v));
            }
            #[cfg(feature = "serde")]
            "rmp-serde-encode" => {
                let fleet = fleet.as_ref().ok_or("no structs")?;
                out.clear();
                if let Type::List(_) = ty {
                    rmp_serde::encode::write_named(&mut out, fleet)?
                } else {
                    rmp_serde::encode::write_named(&mut out, &fleet[0])?
                }
            }
            #[cfg(feature = "serde")]
            "structs-encode" => {
                let fleet = fleet.as_ref().ok_or("no structs")?;
                out.clear();
                if let Type::List(_) = ty {
                    msgpack::to_vec_into(&mut out, fleet, &ty)?
                } else {
                    msgpack::to_vec_into(&mut out, &fleet[0], &ty)?
                }
            }
            _ => return Err(format!("unknown op {op}").into()),
        }
        std::hint::black_box(&out);
    }
    Ok(())
}
