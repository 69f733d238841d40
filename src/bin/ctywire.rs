//! `ctywire`: decode, encode and check cty wire values from the command line.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use base64::Engine;
use clap::{Parser, Subcommand, ValueEnum};
use ctywire::{json, msgpack, Type, Value};

// The CLI links mimalloc: decoded trees are many small allocations, and
// its size-class pages keep them together in memory. Version 2 (see
// Cargo.toml for why not 3). The library itself leaves the allocator to
// its user.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// `bench` tells mimalloc to keep freed memory, as the criterion benches do.
#[path = "../../benches/support/alloc.rs"]
mod alloc;
#[path = "../../benches/support/timing.rs"]
mod timing;

#[derive(Parser)]
#[command(
    name = "ctywire",
    version,
    about = "cty values in the Terraform provider wire format"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Msgpack,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a value and print it as readable JSON (unknowns as {"$unknown": {...}}).
    Decode {
        /// The type, as type-constraint JSON (e.g. '["list","string"]').
        #[arg(long = "type", required_unless_present = "case")]
        ty: Option<String>,
        /// Read type and bytes from a case file: one JSON line
        /// {"type":T,"msgpack":"<hex>"} or {"type":T,"json":"<text>"}.
        #[arg(long, conflicts_with_all = ["ty", "hex", "base64", "format"])]
        case: Option<String>,
        #[arg(long, value_enum, default_value = "msgpack")]
        format: Format,
        /// The input is hex text.
        #[arg(long, conflicts_with = "base64")]
        hex: bool,
        /// The input is base64 text.
        #[arg(long)]
        base64: bool,
        /// Input file, or - for standard input.
        #[arg(default_value = "-")]
        file: String,
    },
    /// Read a value as cty JSON and write it encoded (msgpack as hex).
    Encode {
        /// The type, as type-constraint JSON.
        #[arg(long = "type")]
        ty: String,
        #[arg(long, value_enum, default_value = "msgpack")]
        format: Format,
        /// Input file, or - for standard input.
        #[arg(default_value = "-")]
        file: String,
    },
    /// Conformance mode: JSONL in ({"type":T,"msgpack":"<hex>"} or
    /// {"type":T,"json":"<text>"}), one line out per line in
    /// ({"msgpack":"<hex>","json":"<text>"} or {"error":"..."}).
    Roundtrip,
    /// Print the implied type (type JSON) of a resource, data source or
    /// provider block from a `terraform providers schema -json` document.
    ImpliedType {
        /// The schema document (- for standard input).
        #[arg(long)]
        schema: String,
        /// A managed resource type.
        #[arg(long, conflicts_with_all = ["data_source", "provider"])]
        resource: Option<String>,
        /// A data source type.
        #[arg(long, conflicts_with = "provider")]
        data_source: Option<String>,
        /// The provider configuration block of this provider address.
        #[arg(long)]
        provider: Option<String>,
    },
    /// Time decoding and encoding of one case (a {"type":T,"msgpack":"<hex>"}
    /// line) and print {"bytes":N,"msgpack_decode":NS,...} in nanoseconds
    /// per operation (JSON timings only for wholly known values).
    Bench {
        #[arg(long)]
        case: String,
        /// Seconds to spend on each of the four measurements.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Decode {
            ty,
            case: Some(case),
            ..
        } => {
            debug_assert!(ty.is_none());
            decode_case(&case)
        }
        Command::Decode {
            ty,
            format,
            hex,
            base64,
            file,
            ..
        } => decode(
            ty.as_deref().unwrap_or_default(),
            format,
            hex,
            base64,
            &file,
        ),
        Command::Encode { ty, format, file } => encode(&ty, format, &file),
        Command::Roundtrip => roundtrip(),
        Command::Bench { case, seconds } => bench(&case, seconds),
        Command::ImpliedType {
            schema,
            resource,
            data_source,
            provider,
        } => implied_type(
            &schema,
            resource.as_deref(),
            data_source.as_deref(),
            provider.as_deref(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ctywire: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read_input(file: &str) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    if file == "-" {
        io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("reading standard input: {e}"))?;
    } else {
        buf = std::fs::read(file).map_err(|e| format!("reading {file}: {e}"))?;
    }
    Ok(buf)
}

fn parse_type(ty: &str) -> Result<Type, String> {
    Type::parse(ty).map_err(|e| format!("--type: {e}"))
}

/// A case file: one JSON line with "type" and "msgpack" (hex) or "json".
struct Case {
    ty: Type,
    format: Format,
    bytes: Vec<u8>,
}

fn read_case(file: &str) -> Result<Case, String> {
    let text = read_input(file)?;
    let line: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| format!("{file}: not a case line: {e}"))?;
    let ty = line
        .get("type")
        .ok_or_else(|| format!("{file}: no \"type\""))?;
    let ty = Type::parse(&ty.to_string()).map_err(|e| format!("{file}: type: {e}"))?;
    if let Some(h) = line.get("msgpack").and_then(|h| h.as_str()) {
        let bytes = ::hex::decode(h).map_err(|e| format!("{file}: msgpack is not hex: {e}"))?;
        Ok(Case {
            ty,
            format: Format::Msgpack,
            bytes,
        })
    } else if let Some(j) = line.get("json").and_then(|j| j.as_str()) {
        Ok(Case {
            ty,
            format: Format::Json,
            bytes: j.as_bytes().to_vec(),
        })
    } else {
        Err(format!("{file}: neither \"msgpack\" nor \"json\""))
    }
}

fn decode_case(file: &str) -> Result<(), String> {
    let case = read_case(file)?;
    print_readable(&decode_bytes(&case.bytes, &case.ty, case.format)?)
}

fn decode_bytes(bytes: &[u8], ty: &Type, format: Format) -> Result<Value, String> {
    match format {
        Format::Msgpack => msgpack::decode(bytes, ty),
        Format::Json => json::decode(bytes, ty),
    }
    .map_err(|e| e.to_string())
}

fn print_readable(value: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(&readable(value)).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

fn decode(ty: &str, format: Format, hex: bool, b64: bool, file: &str) -> Result<(), String> {
    let ty = parse_type(ty)?;
    let raw = read_input(file)?;
    let bytes = if hex {
        let text: String = String::from_utf8_lossy(&raw).split_whitespace().collect();
        ::hex::decode(text).map_err(|e| format!("input is not hex: {e}"))?
    } else if b64 {
        let text: String = String::from_utf8_lossy(&raw).split_whitespace().collect();
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| format!("input is not base64: {e}"))?
    } else {
        raw
    };
    print_readable(&decode_bytes(&bytes, &ty, format)?)
}

/// The value as plain JSON for a person to read: numbers exact, sets as
/// arrays, unknowns as `{"$unknown": {refinements}}`.
fn readable(v: &Value) -> serde_json::Value {
    use serde_json::{Map, Value as J};
    if !v.is_known() {
        let mut facts = Map::new();
        if let Some(r) = v.refinements() {
            if r.not_null {
                facts.insert("not_null".into(), J::Bool(true));
            }
            if let Some(p) = &r.string_prefix {
                facts.insert("prefix".into(), J::String(p.clone()));
            }
            for (name, b) in [("lower", &r.lower), ("upper", &r.upper)] {
                if let Some(b) = b {
                    let mut o = Map::new();
                    o.insert("value".into(), J::String(b.value.to_string()));
                    o.insert("inclusive".into(), J::Bool(b.inclusive));
                    facts.insert(name.into(), J::Object(o));
                }
            }
            if r.length_min != 0 {
                facts.insert("length_min".into(), r.length_min.into());
            }
            if let Some(m) = r.length_max {
                facts.insert("length_max".into(), m.into());
            }
        }
        facts.insert("type".into(), J::String(v.ty().to_json()));
        let mut o = Map::new();
        o.insert("$unknown".into(), J::Object(facts));
        return J::Object(o);
    }
    if v.is_null() {
        return J::Null;
    }
    if let Some(s) = v.as_str() {
        return J::String(s.to_string());
    }
    if let Some(b) = v.as_bool() {
        return J::Bool(b);
    }
    if let Some(n) = v.as_number() {
        return if n.is_infinite() {
            J::String(n.to_string())
        } else {
            serde_json::from_str(&n.to_string()).unwrap_or_else(|_| J::String(n.to_string()))
        };
    }
    if let Some(items) = v.elements() {
        return J::Array(items.iter().map(readable).collect());
    }
    if let Some(entries) = v.entries() {
        return J::Object(entries.map(|(k, e)| (k.to_string(), readable(e))).collect());
    }
    if let Some(attrs) = v.attributes() {
        return J::Object(attrs.map(|(k, e)| (k.to_string(), readable(e))).collect());
    }
    J::Null
}

fn encode(ty: &str, format: Format, file: &str) -> Result<(), String> {
    let ty = parse_type(ty)?;
    let input = read_input(file)?;
    let value = json::decode(&input, &ty).map_err(|e| e.to_string())?;
    match format {
        Format::Msgpack => println!(
            "{}",
            ::hex::encode(msgpack::encode(&value, &ty).map_err(|e| e.to_string())?)
        ),
        Format::Json => println!(
            "{}",
            json::encode_string(&value, &ty).map_err(|e| e.to_string())?
        ),
    }
    Ok(())
}

/// One conformance line: decode, then re-encode both ways.
fn roundtrip_line(line: &str) -> Result<(Vec<u8>, Option<String>), String> {
    let input: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("invalid input line: {e}"))?;
    let ty_json = input.get("type").ok_or("input line has no \"type\"")?;
    let ty = Type::parse(&ty_json.to_string()).map_err(|e| format!("invalid type: {e}"))?;
    let value = if let Some(h) = input.get("msgpack") {
        let h = h.as_str().ok_or("\"msgpack\" must be a hex string")?;
        let bytes = ::hex::decode(h).map_err(|e| format!("\"msgpack\" is not hex: {e}"))?;
        msgpack::decode(&bytes, &ty)
    } else if let Some(j) = input.get("json") {
        let j = j.as_str().ok_or("\"json\" must be a string of JSON text")?;
        json::decode(j.as_bytes(), &ty)
    } else {
        return Err("input line has neither \"msgpack\" nor \"json\"".into());
    }
    .map_err(|e| e.to_string())?;
    let mp = msgpack::encode(&value, &ty).map_err(|e| e.to_string())?;
    let js = if value.is_wholly_known() {
        Some(json::encode_string(&value, &ty).map_err(|e| e.to_string())?)
    } else {
        None
    };
    Ok((mp, js))
}

fn roundtrip() -> Result<(), String> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("reading standard input: {e}"))?;
        let row = match roundtrip_line(&line) {
            Ok((mp, Some(js))) => format!(
                "{{\"msgpack\":\"{}\",\"json\":{}}}",
                ::hex::encode(mp),
                quote(&js)
            ),
            Ok((mp, None)) => format!("{{\"msgpack\":\"{}\"}}", ::hex::encode(mp)),
            Err(e) => format!("{{\"error\":{}}}", quote(&e)),
        };
        writeln!(out, "{row}").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// Nanoseconds per call of `f` over about `seconds`, after a tenth of that
/// spent warming up (see `timing::median_ns`).
fn time_per_op<T>(seconds: f64, mut f: impl FnMut() -> T) -> u64 {
    use std::time::{Duration, Instant};
    let warm = Instant::now();
    while warm.elapsed() < Duration::from_secs_f64(seconds / 10.0) {
        std::hint::black_box(f());
    }
    timing::median_ns(Duration::from_secs_f64(seconds), 5, f)
}

fn bench(file: &str, seconds: f64) -> Result<(), String> {
    alloc::hold_freed_memory();
    let case = read_case(file)?;
    let bytes = match case.format {
        Format::Msgpack => case.bytes,
        Format::Json => {
            let v = json::decode(&case.bytes, &case.ty).map_err(|e| e.to_string())?;
            msgpack::encode(&v, &case.ty).map_err(|e| e.to_string())?
        }
    };
    let ty = case.ty;
    let value = msgpack::decode(&bytes, &ty).map_err(|e| e.to_string())?;
    let mut line = format!("{{\"bytes\":{}", bytes.len());
    let decode_ns = time_per_op(seconds, || msgpack::decode(&bytes, &ty));
    let mut out = Vec::with_capacity(bytes.len());
    let encode_ns = time_per_op(seconds, || {
        out.clear();
        msgpack::encode_into(&mut out, &value, &ty)
    });
    line += &format!(",\"msgpack_decode\":{decode_ns},\"msgpack_encode\":{encode_ns}");
    if value.is_wholly_known() {
        let text = json::encode(&value, &ty).map_err(|e| e.to_string())?;
        let jd = time_per_op(seconds, || json::decode(&text, &ty));
        let mut out = Vec::with_capacity(text.len());
        let je = time_per_op(seconds, || {
            out.clear();
            json::encode_into(&mut out, &value, &ty)
        });
        line += &format!(",\"json_decode\":{jd},\"json_encode\":{je}");
    }
    println!("{line}}}");
    Ok(())
}

fn implied_type(
    file: &str,
    resource: Option<&str>,
    data_source: Option<&str>,
    provider: Option<&str>,
) -> Result<(), String> {
    use ctywire::schema::ProviderSchemas;
    let text = String::from_utf8(read_input(file)?).map_err(|_| format!("{file}: not UTF-8"))?;
    let doc = ProviderSchemas::from_json(&text).map_err(|e| format!("{file}: {e}"))?;
    let names = |f: fn(&ctywire::schema::ProviderSchema) -> Vec<&String>| -> String {
        let all: Vec<String> = doc.providers.values().flat_map(f).cloned().collect();
        if all.is_empty() {
            "none".into()
        } else {
            all.join(", ")
        }
    };
    let (what, schema) = match (resource, data_source, provider) {
        (Some(r), _, _) => (
            r,
            doc.resource(r).ok_or_else(|| {
                format!(
                    "no resource type {r:?} (there are: {})",
                    names(|p| p.resource_schemas.keys().collect())
                )
            })?,
        ),
        (_, Some(d), _) => (
            d,
            doc.data_source(d).ok_or_else(|| {
                format!(
                    "no data source {d:?} (there are: {})",
                    names(|p| p.data_source_schemas.keys().collect())
                )
            })?,
        ),
        (_, _, Some(p)) => (
            p,
            doc.providers
                .get(p)
                .and_then(|s| s.provider.as_ref())
                .ok_or_else(|| {
                    format!(
                        "no provider {p:?} (there are: {})",
                        doc.providers.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                })?,
        ),
        _ => return Err("say which block: --resource, --data-source or --provider".into()),
    };
    let ty = schema.implied_type().map_err(|e| format!("{what}: {e}"))?;
    println!("{}", ty.to_json());
    Ok(())
}
