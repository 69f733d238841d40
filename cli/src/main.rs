//! `ctywire`: decode, encode and check cty wire values from the command line.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use base64::Engine;
use clap::{Parser, Subcommand, ValueEnum};
use ctywire::{json, msgpack, DecodeOptions, Type, Value};
use ctywire_bridge::{Json, Object};

// The CLI links mimalloc: decoded trees are many small allocations, and
// its size-class pages keep them together in memory. Version 2 (see
// Cargo.toml for why not 3). The library itself leaves the allocator to
// its user.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// `bench` tells mimalloc to keep freed memory, as the criterion benches do.
#[path = "bench/alloc.rs"]
mod alloc;
#[path = "bench/instance.rs"]
mod instance;
#[path = "bench/payloads.rs"]
mod payloads;
#[cfg(feature = "provider")]
mod provider;
#[path = "bench/timing.rs"]
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
    ///
    /// msgpack input may be raw bytes or hex text (what `encode` writes):
    /// text made only of hex digits is read as hex, so `encode | decode`
    /// works as a pipe.
    Decode {
        /// The type, as type-constraint JSON (e.g. '["list","string"]').
        #[arg(long = "type", required_unless_present = "case")]
        ty: Option<String>,
        /// Read type and bytes from a case file: one JSON line
        /// {"type":T,"msgpack":"<hex>"} or {"type":T,"json":"<text>"}.
        #[arg(long, conflicts_with_all = ["ty", "hex", "base64", "raw", "format"])]
        case: Option<String>,
        #[arg(long, value_enum, default_value = "msgpack")]
        format: Format,
        /// The input is hex text (the default when it looks like hex).
        #[arg(long, conflicts_with_all = ["base64", "raw"])]
        hex: bool,
        /// The input is base64 text.
        #[arg(long, conflicts_with = "raw")]
        base64: bool,
        /// The input is raw bytes, even if it looks like hex.
        #[arg(long)]
        raw: bool,
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
    /// ({"msgpack":"<hex>","json":"<text>"} or {"error":"..."}); blank
    /// lines are skipped.
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
    /// A provider's registry documentation and release archives.
    #[cfg(feature = "provider")]
    Provider {
        #[command(subcommand)]
        command: provider::ProviderCommand,
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
            raw,
            file,
            ..
        } => {
            let encoding = if hex {
                Encoding::Hex
            } else if base64 {
                Encoding::Base64
            } else if raw {
                Encoding::Raw
            } else {
                Encoding::Detect
            };
            decode(ty.as_deref().unwrap_or_default(), format, encoding, &file)
        }
        Command::Encode { ty, format, file } => encode(&ty, format, &file),
        Command::Roundtrip => roundtrip(),
        Command::Bench { case, seconds } => bench(&case, seconds),
        #[cfg(feature = "provider")]
        Command::Provider { command } => provider::run(command),
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

/// A library error as the CLI prints it: with the byte offset it carries,
/// so that a person can find the spot in the input.
fn describe(e: ctywire::Error) -> String {
    match e.offset() {
        Some(at) => format!("{e} (at byte {at})"),
        None => e.to_string(),
    }
}

fn parse_type(ty: &str) -> Result<Type, String> {
    Type::parse(ty).map_err(|e| {
        let mut msg = format!("--type: {}", describe(e));
        // `--type string` loses its quotes to the shell, or was never
        // quoted: type JSON spells a primitive type as a JSON string.
        if !ty.is_empty() && ty.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            msg += &format!(
                "\nhint: type JSON names a primitive type as a JSON string: --type '\"{ty}\"'"
            );
        }
        msg
    })
}

/// One JSON line of input (a case file or a roundtrip line). One level
/// deeper than a value may nest, since the type sits inside the line: the
/// CLI accepts every type the library does.
fn parse_line(text: &[u8]) -> ctywire::Result<Json> {
    Json::parse_with(
        text,
        &DecodeOptions::new().max_depth(ctywire::DEFAULT_MAX_DEPTH + 1),
    )
}

/// A case file: one JSON line with "type" and "msgpack" (hex) or "json".
struct Case {
    ty: Type,
    format: Format,
    bytes: Vec<u8>,
}

fn read_case(file: &str) -> Result<Case, String> {
    let text = read_input(file)?;
    let line =
        parse_line(&text).map_err(|e| format!("{file}: not a case line: {}", describe(e)))?;
    let ty = line
        .get("type")
        .ok_or_else(|| format!("{file}: no \"type\""))?;
    let ty = Type::parse(&ty.to_string()).map_err(|e| format!("{file}: type: {}", describe(e)))?;
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
    .map_err(describe)
}

fn print_readable(value: &Value) -> Result<(), String> {
    print_line(&readable(value).to_string_pretty())
}

/// Writes one line to standard output. `println!` panics when the reader
/// has gone (`ctywire decode ... | head`); a closed pipe just means nobody
/// wants the rest, so it ends the command quietly.
fn print_line(text: &str) -> Result<(), String> {
    let mut out = io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("writing standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// How `decode` reads its input bytes.
#[derive(Clone, Copy, PartialEq)]
enum Encoding {
    Raw,
    Hex,
    Base64,
    /// Hex when the input is hex text, else raw. Unambiguous for msgpack:
    /// a whole msgpack value made only of hex-digit bytes is a single
    /// fixint byte, which is not hex (an odd number of digits).
    Detect,
}

fn without_whitespace(raw: &[u8]) -> Vec<u8> {
    raw.iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect()
}

fn looks_like_hex(raw: &[u8]) -> bool {
    let text = without_whitespace(raw);
    !text.is_empty() && text.len() % 2 == 0 && text.iter().all(u8::is_ascii_hexdigit)
}

fn decode(ty: &str, format: Format, encoding: Encoding, file: &str) -> Result<(), String> {
    let ty = parse_type(ty)?;
    let raw = read_input(file)?;
    let encoding = match (encoding, format) {
        (Encoding::Detect, Format::Msgpack) if looks_like_hex(&raw) => Encoding::Hex,
        (Encoding::Detect, _) => Encoding::Raw,
        (e, _) => e,
    };
    let bytes = match encoding {
        Encoding::Hex => {
            ::hex::decode(without_whitespace(&raw)).map_err(|e| format!("input is not hex: {e}"))?
        }
        Encoding::Base64 => base64::engine::general_purpose::STANDARD
            .decode(without_whitespace(&raw))
            .map_err(|e| format!("input is not base64: {e}"))?,
        Encoding::Raw | Encoding::Detect => raw,
    };
    let value = decode_bytes(&bytes, &ty, format).map_err(|e| {
        // Raw msgpack that is all printable text was probably meant to be
        // read as some encoding of the bytes.
        let text_like = bytes
            .iter()
            .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace());
        if matches!(format, Format::Msgpack) && encoding == Encoding::Raw && text_like {
            format!("{e}\nhint: the input is text; if it encodes the msgpack bytes, say how with --hex or --base64")
        } else {
            e
        }
    })?;
    print_readable(&value)
}

/// The value as plain JSON for a person to read: numbers exact, sets as
/// arrays, unknowns as `{"$unknown": {refinements}}`.
fn readable(v: &Value) -> Json {
    use Json as J;
    if !v.is_known() {
        let mut facts = Object::new();
        if let Some(r) = v.refinements() {
            if r.not_null {
                facts.insert("not_null", J::Bool(true));
            }
            if let Some(p) = &r.string_prefix {
                facts.insert("prefix", J::String(p.clone()));
            }
            for (name, b) in [("lower", &r.lower), ("upper", &r.upper)] {
                if let Some(b) = b {
                    let mut o = Object::new();
                    o.insert("value", J::String(b.value.to_string()));
                    o.insert("inclusive", J::Bool(b.inclusive));
                    facts.insert(name, J::Object(o));
                }
            }
            if r.length_min != 0 {
                facts.insert("length_min", r.length_min.into());
            }
            if let Some(m) = r.length_max {
                facts.insert("length_max", m.into());
            }
        }
        facts.insert("type", J::String(v.ty().to_json()));
        let mut o = Object::new();
        o.insert("$unknown", J::Object(facts));
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
            ctywire_bridge::JsonNumber::try_from(n)
                .map_or_else(|_| J::String(n.to_string()), J::Number)
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
    let value = json::decode(&input, &ty).map_err(describe)?;
    match format {
        Format::Msgpack => print_line(&::hex::encode(
            msgpack::encode(&value, &ty).map_err(describe)?,
        )),
        Format::Json => print_line(&json::encode_string(&value, &ty).map_err(describe)?),
    }
}

/// One conformance line: decode, then re-encode both ways. Errors are the
/// library's messages alone (no byte offsets), comparable with go-cty's.
fn roundtrip_line(line: &str) -> Result<(Vec<u8>, Option<String>), String> {
    let input = parse_line(line.as_bytes()).map_err(|e| format!("invalid input line: {e}"))?;
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
    let quote = |s: &str| Json::from(s).to_string();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("reading standard input: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
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
            let v = json::decode(&case.bytes, &case.ty).map_err(describe)?;
            msgpack::encode(&v, &case.ty).map_err(describe)?
        }
    };
    let ty = case.ty;
    let value = msgpack::decode(&bytes, &ty).map_err(describe)?;
    let mut line = format!("{{\"bytes\":{}", bytes.len());
    let decode_ns = time_per_op(seconds, || msgpack::decode(&bytes, &ty));
    let mut out = Vec::with_capacity(bytes.len());
    let encode_ns = time_per_op(seconds, || {
        out.clear();
        msgpack::encode_into(&mut out, &value, &ty)
    });
    line += &format!(",\"msgpack_decode\":{decode_ns},\"msgpack_encode\":{encode_ns}");
    line += &typed_bench(&bytes, &ty, seconds)?;
    if value.is_wholly_known() {
        let text = json::encode(&value, &ty).map_err(describe)?;
        let jd = time_per_op(seconds, || json::decode(&text, &ty));
        let mut out = Vec::with_capacity(text.len());
        let je = time_per_op(seconds, || {
            out.clear();
            json::encode_into(&mut out, &value, &ty)
        });
        line += &format!(",\"json_decode\":{jd},\"json_encode\":{je}");
    }
    print_line(&format!("{line}}}"))
}

/// For the benchmark instance type (one instance, or a fleet): decoding
/// straight into Rust structs and encoding from them, as extra fields.
fn typed_bench(bytes: &[u8], ty: &Type, seconds: f64) -> Result<String, String> {
    use instance::Instance;
    use serde::{Deserialize, Serialize};
    /// Reads `bytes` into `T`, checks that it writes them back, and times
    /// the reading: the structs and nanoseconds per read.
    fn read<'a, T: Serialize + Deserialize<'a>>(
        bytes: &'a [u8],
        ty: &Type,
        seconds: f64,
    ) -> Result<(T, u64), String> {
        let structs: T = msgpack::from_slice(bytes, ty).map_err(describe)?;
        if msgpack::to_vec(&structs, ty).map_err(describe)? != bytes {
            return Err("the structs do not write back the same bytes".into());
        }
        let ns = time_per_op(seconds, || msgpack::from_slice::<T>(bytes, ty));
        Ok((structs, ns))
    }
    /// Reading into `Owned` and writing it, then reading into `Lent`, the
    /// same structs holding `&str`s lent by the input.
    fn rows<'a, Owned: Serialize + Deserialize<'a>, Lent: Serialize + Deserialize<'a>>(
        bytes: &'a [u8],
        ty: &Type,
        seconds: f64,
    ) -> Result<String, String> {
        let (structs, d) = read::<Owned>(bytes, ty, seconds)?;
        // Into a reused buffer, as the encode from a `Value` is timed.
        let mut out = Vec::new();
        let e = time_per_op(seconds, || {
            out.clear();
            msgpack::to_vec_into(&mut out, &structs, ty)
        });
        let (_, l) = read::<Lent>(bytes, ty, seconds)?;
        Ok(format!(
            ",\"msgpack_decode_structs\":{d},\"msgpack_encode_structs\":{e},\"msgpack_decode_borrowing_structs\":{l}"
        ))
    }
    let instance = payloads::instance_type();
    if *ty == instance {
        rows::<Instance, Instance<&str>>(bytes, ty, seconds)
    } else if *ty == Type::list(instance) {
        rows::<Vec<Instance>, Vec<Instance<&str>>>(bytes, ty, seconds)
    } else {
        Ok(String::new())
    }
}

fn implied_type(
    file: &str,
    resource: Option<&str>,
    data_source: Option<&str>,
    provider: Option<&str>,
) -> Result<(), String> {
    use ctywire_bridge::schema_json::ProviderSchemas;
    let text = String::from_utf8(read_input(file)?).map_err(|_| format!("{file}: not UTF-8"))?;
    let doc = ProviderSchemas::from_json(&text).map_err(|e| format!("{file}: {}", describe(e)))?;
    let names = |f: fn(&ctywire_bridge::schema_json::ProviderSchema) -> Vec<&String>| -> String {
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
    print_line(&ty.to_json())
}
