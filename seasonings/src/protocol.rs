//! The Seasonings messages (`docs/seasonings.md`), with no runtime: method
//! names, params and results as maps of inline msgpack values, the error
//! object, codes, attribute paths, diagnostics, capabilities, versions,
//! `init`, and function signatures.
//!
//! Everything here reads liberally (what the contract says a receiver
//! accepts) and writes canonically. A reading function never panics: what
//! does not fit is a [`ctywire::Error`] whose path names the field
//! (`.functions.slug.parameters[1].type`), and nothing is allocated from a
//! length header before its bytes are there.
//!
//! ```
//! use ctywire::{Type, Value};
//! use ctywire_seasonings::protocol::Fields;
//!
//! let mut params = Fields::new();
//! params.insert_str("name", "slug");
//! params.insert_value("argument", &Value::unknown(Type::String), &Type::String)?;
//! let bytes = params.encode();
//!
//! let read = Fields::from_params(&bytes.0)?; // a bare map is read as `[map]` too
//! assert_eq!(read.str("name")?, "slug");
//! assert!(!read.value("argument", &Type::String)?.is_known());
//! // A value that does not decode at the type asked for: the error names the field.
//! params.insert_value("count", &Value::string("many"), &Type::String)?;
//! let read = Fields::from_params(&params.encode().0)?;
//! let err = read.value("count", &Type::Number).map(|_| ()).unwrap_err();
//! assert!(err.to_string().starts_with(".count:"), "{err}");
//! # Ok::<(), ctywire::Error>(())
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use ctywire::{Error, Path, PathStep, Result, Type, Value};
use ctywire_bridge::msgpack_rpc::Raw;

use crate::msgpack as mp;

/// The methods of the contract, dotted (§1.2).
pub mod method {
    /// §2.1.
    pub const INIT: &str = "init";
    /// §2.2.
    pub const PING: &str = "ping";
    /// §2.3.
    pub const SHUTDOWN: &str = "shutdown";
    /// §2.5, a notification from the plugin.
    pub const LOG: &str = "log";
    /// §5.
    pub const FUNCTIONS_GET_SCHEMA: &str = "functions.getSchema";
    /// §5.
    pub const FUNCTIONS_CALL: &str = "functions.call";
    /// §6.
    pub const RESOURCES_GET_SCHEMA: &str = "resources.getSchema";
    /// §6, optional.
    pub const RESOURCES_VALIDATE_CONFIG: &str = "resources.validateConfig";
    /// §6, optional.
    pub const DATA_SOURCES_VALIDATE_CONFIG: &str = "dataSources.validateConfig";
    /// §6.2, for types whose schema says `plan_change: true`.
    pub const RESOURCES_PLAN_CHANGE: &str = "resources.planChange";
    /// §6.
    pub const RESOURCES_APPLY_CHANGE: &str = "resources.applyChange";
    /// §6.
    pub const RESOURCES_READ: &str = "resources.read";
    /// §6.
    pub const RESOURCES_IMPORT: &str = "resources.import";
    /// §6.1.
    pub const DATA_SOURCES_READ: &str = "dataSources.read";
    /// §6, optional: a state stored at an older schema version.
    pub const RESOURCES_UPGRADE_STATE: &str = "resources.upgradeState";
    /// §7, before a resource is planned.
    pub const HOOKS_PRE_PLAN: &str = "hooks.prePlan";
    /// §7, after a resource is planned.
    pub const HOOKS_POST_PLAN: &str = "hooks.postPlan";
    /// §7, once a whole plan is made.
    pub const HOOKS_PLAN_STAGE_COMPLETED: &str = "hooks.planStageCompleted";
    /// §8.
    pub const STORAGE_GET_SCHEMA: &str = "storage.getSchema";
    /// §8.
    pub const STORAGE_CONFIGURE: &str = "storage.configure";
    /// §8.
    pub const STORAGE_READ: &str = "storage.read";
    /// §8.
    pub const STORAGE_WRITE: &str = "storage.write";
    /// §8.
    pub const STORAGE_LOCK: &str = "storage.lock";
    /// §8.
    pub const STORAGE_UNLOCK: &str = "storage.unlock";
    /// §8.
    pub const STORAGE_LIST: &str = "storage.list";
    /// §8.
    pub const STORAGE_DELETE: &str = "storage.delete";
}

/// A method name as sent: dotted. The RFC's transport examples use `/`
/// (`functions/call`), so a receiver takes either (§1.2).
pub fn canonical_method(name: &str) -> Cow<'_, str> {
    if name.contains('/') {
        Cow::Owned(name.replace('/', "."))
    } else {
        Cow::Borrowed(name)
    }
}

/// Error codes (§1.3): JSON-RPC 2.0's reserved range (the same constants
/// as ctywire-bridge's JSON-RPC), since msgpack-rpc defines none, and two
/// of ours.
pub mod code {
    pub use ctywire_bridge::jsonrpc::code::{
        INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    };
    /// `init` only: the other side's major version is not ours.
    pub const UNSUPPORTED_VERSION: i64 = -32001;
    /// The plugin refused the request itself (a failed function).
    pub const REQUEST_FAILED: i64 = 1;
}

/// A params or result map: named fields whose values stay their msgpack
/// bytes until read at a type (§1.1, §3.1). Keys keep their order;
/// reading looks them up by name, so the sender's order does not matter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    entries: Vec<(String, Raw)>,
}

fn field_error(key: &str, e: Error) -> Error {
    e.under(PathStep::Attr(key.to_string()))
}

impl Fields {
    /// No fields.
    pub fn new() -> Self {
        Fields::default()
    }

    /// The map `bytes` holds (exactly one msgpack value). Keys are strings
    /// and appear once.
    pub fn read(bytes: &[u8]) -> Result<Fields> {
        let pairs = mp::entries(bytes)?.ok_or_else(|| {
            Error::type_error(format!("a map is required, not {}", mp::kind(bytes)))
        })?;
        let mut entries: Vec<(String, Raw)> = Vec::new();
        // A set beside the entries: a map may have millions of keys, and a
        // scan per key would be quadratic.
        let mut seen = std::collections::HashSet::new();
        for (k, v) in pairs {
            let key = mp::as_str(k).ok_or_else(|| {
                Error::type_error(format!("map keys are strings, not {}", mp::kind(k)))
            })?;
            if !seen.insert(key) {
                return Err(field_error(key, Error::data("the key appears twice")));
            }
            entries.push((key.to_string(), Raw(v.to_vec())));
        }
        Ok(Fields { entries })
    }

    /// A request's or notification's params, the whole params value:
    /// `[map]`, `[]` (no fields), or a bare map (§1.1: read liberally).
    pub fn from_params(bytes: &[u8]) -> Result<Fields> {
        match mp::elements(bytes)? {
            Some(items) => Self::from_items(&items),
            None => Self::read(bytes),
        }
    }

    /// Params already split into the array's elements (what
    /// [`ctywire_bridge::msgpack_rpc::Message`] holds).
    pub fn from_param_list(items: &[Raw]) -> Result<Fields> {
        let items: Vec<&[u8]> = items.iter().map(|r| r.0.as_slice()).collect();
        Self::from_items(&items)
    }

    fn from_items(items: &[&[u8]]) -> Result<Fields> {
        match items {
            [] => Ok(Fields::new()),
            [one] if mp::is_nil(one) => Ok(Fields::new()),
            [one] => Self::read(one).map_err(|e| e.under(PathStep::Index(0))),
            more => Err(Error::data(format!(
                "params are one map in an array, not {} values",
                more.len()
            ))),
        }
    }

    /// The msgpack map.
    pub fn encode(&self) -> Raw {
        let mut out = Vec::new();
        mp::write_map_len(&mut out, self.entries.len());
        for (k, v) in &self.entries {
            mp::write_str(&mut out, k);
            out.extend_from_slice(&v.0);
        }
        Raw(out)
    }

    /// The params of a request: the map in an array.
    pub fn into_params(self) -> Vec<Raw> {
        vec![self.encode()]
    }

    /// Sets `key` to msgpack bytes (replacing a value it had).
    pub fn insert_raw(&mut self, key: &str, value: Raw) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.entries.push((key.to_string(), value)),
        }
    }

    /// Sets `key` to a string.
    pub fn insert_str(&mut self, key: &str, s: &str) {
        let mut out = Vec::new();
        mp::write_str(&mut out, s);
        self.insert_raw(key, Raw(out));
    }

    /// Sets `key` to a cty value, encoded at `ty` (§3.1).
    pub fn insert_value(&mut self, key: &str, v: &Value, ty: &Type) -> Result<()> {
        let raw = Raw::encode(v, ty).map_err(|e| field_error(key, e))?;
        self.insert_raw(key, raw);
        Ok(())
    }

    /// Sets `key` to an array of strings.
    pub fn insert_strs<'s>(&mut self, key: &str, items: impl IntoIterator<Item = &'s str>) {
        let items: Vec<&str> = items.into_iter().collect();
        let mut out = Vec::new();
        mp::write_array_len(&mut out, items.len());
        items.iter().for_each(|s| mp::write_str(&mut out, s));
        self.insert_raw(key, Raw(out));
    }

    /// The bytes of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Raw> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The bytes of `key`, which must be present and not nil.
    pub fn require(&self, key: &str) -> Result<&Raw> {
        self.present(key)
            .ok_or_else(|| field_error(key, Error::data("required, but missing")))
    }

    /// The bytes of `key` unless it is missing or nil (an optional field).
    pub fn present(&self, key: &str) -> Option<&Raw> {
        self.get(key).filter(|v| !v.is_nil())
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// Every key with its bytes, in order (for maps whose keys are names
    /// the reader does not know ahead: [`get`](Self::get) per key would be
    /// quadratic).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Raw)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The required string `key`.
    pub fn str(&self, key: &str) -> Result<&str> {
        let v = self.require(key)?;
        mp::as_str(&v.0).ok_or_else(|| {
            field_error(
                key,
                Error::type_error(format!("a string is required, not {}", mp::kind(&v.0))),
            )
        })
    }

    /// The optional string `key`.
    pub fn opt_str(&self, key: &str) -> Result<Option<&str>> {
        match self.present(key) {
            None => Ok(None),
            Some(_) => self.str(key).map(Some),
        }
    }

    /// The optional bool `key` (false when missing).
    pub fn flag(&self, key: &str) -> Result<bool> {
        match self.present(key) {
            None => Ok(false),
            Some(v) => mp::as_bool(&v.0).ok_or_else(|| {
                field_error(
                    key,
                    Error::type_error(format!("a bool is required, not {}", mp::kind(&v.0))),
                )
            }),
        }
    }

    /// The optional non-negative integer `key`.
    pub fn opt_uint(&self, key: &str) -> Result<Option<u64>> {
        match self.present(key) {
            None => Ok(None),
            Some(v) => mp::as_int(&v.0)
                .and_then(|n| u64::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    field_error(
                        key,
                        Error::type_error(format!(
                            "a non-negative integer is required, not {}",
                            mp::kind(&v.0)
                        )),
                    )
                }),
        }
    }

    /// The cty value `key` holds, decoded at `ty` from its own bytes. A
    /// missing key is a null (the attribute unset, as in an object).
    pub fn value(&self, key: &str, ty: &Type) -> Result<Value> {
        match self.get(key) {
            None => Ok(Value::null(ty.clone())),
            Some(v) => v.decode(ty).map_err(|e| field_error(key, e)),
        }
    }

    /// The required map `key`, as fields.
    pub fn fields(&self, key: &str) -> Result<Fields> {
        Fields::read(&self.require(key)?.0).map_err(|e| field_error(key, e))
    }

    /// The required array `key`: each element read with `f` (its error
    /// gets the element's index and the key in its path).
    pub fn list<T>(&self, key: &str, f: impl Fn(&[u8]) -> Result<T>) -> Result<Vec<T>> {
        let v = self.require(key)?;
        list_of(&v.0, f).map_err(|e| field_error(key, e))
    }
}

/// Each element of the array `b`, read with `f`.
fn list_of<T>(b: &[u8], f: impl Fn(&[u8]) -> Result<T>) -> Result<Vec<T>> {
    let items = mp::elements(b)?
        .ok_or_else(|| Error::type_error(format!("an array is required, not {}", mp::kind(b))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| f(item).map_err(|e| e.under(PathStep::Index(i as u64))))
        .collect()
}

fn a_str(b: &[u8]) -> Result<String> {
    mp::as_str(b)
        .map(str::to_string)
        .ok_or_else(|| Error::type_error(format!("a string is required, not {}", mp::kind(b))))
}

// ---------------------------------------------------------------------
// Attribute paths (§3.4)

/// Reads an attribute path: an array of steps, each a string (attribute),
/// a non-negative integer (index) or `{key: str}` (map key); `{attr: str}`
/// and `{index: int}` are read too.
pub fn read_path(b: &[u8]) -> Result<Path> {
    let steps = list_of(b, read_step)?;
    let mut path = Path::root();
    steps.into_iter().for_each(|s| path.push(s));
    Ok(path)
}

fn read_step(b: &[u8]) -> Result<PathStep> {
    if let Some(s) = mp::as_str(b) {
        return Ok(PathStep::Attr(s.to_string()));
    }
    if let Some(n) = mp::as_int(b) {
        return u64::try_from(n)
            .map(PathStep::Index)
            .map_err(|_| Error::data(format!("an index is not negative ({n} given)")));
    }
    if let Some(pairs) = mp::entries(b)? {
        if let [(k, v)] = pairs[..] {
            match mp::as_str(k) {
                Some("key") => return a_str(v).map(PathStep::Key),
                Some("attr") => return a_str(v).map(PathStep::Attr),
                Some("index") => {
                    if let Some(n) = mp::as_int(v).and_then(|n| u64::try_from(n).ok()) {
                        return Ok(PathStep::Index(n));
                    }
                }
                _ => {}
            }
        }
    }
    Err(Error::type_error(format!(
        "a path step is a string, an index or {{key: string}}, not {}",
        mp::kind(b)
    )))
}

/// Writes a path canonically: attributes as strings, indexes as integers,
/// map keys as `{key: str}`.
pub fn write_path(path: &Path) -> Raw {
    let mut out = Vec::new();
    mp::write_array_len(&mut out, path.steps().len());
    for step in path.steps() {
        match step {
            PathStep::Attr(a) => mp::write_str(&mut out, a),
            PathStep::Index(i) => mp::write_uint(&mut out, *i),
            PathStep::Key(k) => {
                mp::write_map_len(&mut out, 1);
                mp::write_str(&mut out, "key");
                mp::write_str(&mut out, k);
            }
        }
    }
    Raw(out)
}

// ---------------------------------------------------------------------
// The error object (§1.3)

/// A response's `error`: the call failed as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorObject {
    /// One of [`code`], or the plugin's own.
    pub code: i64,
    /// The summary, one line.
    pub message: String,
    /// What happened and what to do.
    pub detail: Option<String>,
    /// Where in the call's value.
    pub path: Option<Path>,
    /// `functions.call` only: the 0-based argument at fault.
    pub function_argument: Option<u64>,
}

impl ErrorObject {
    /// Whether the other side has no such method: code -32601, or the
    /// bare "method not found: NAME" string generic msgpack-rpc libraries
    /// (and our bridge) answer with, read as an internal error (§1.3).
    pub fn is_method_not_found(&self) -> bool {
        self.code == code::METHOD_NOT_FOUND
            || self
                .message
                .get(.."method not found".len())
                .is_some_and(|head| head.eq_ignore_ascii_case("method not found"))
    }

    /// An error with a code and a message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            detail: None,
            path: None,
            function_argument: None,
        }
    }

    /// With a detail.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// Reads an `error` value liberally: the map of §1.3, a bare string, or
    /// Neovim's `[code, message]`. Never fails: anything else becomes an
    /// internal error showing the value's bytes, and a field of the wrong
    /// kind is left out and said in the detail.
    pub fn read(b: &[u8]) -> ErrorObject {
        if let Some(s) = mp::as_str(b) {
            return ErrorObject::new(code::INTERNAL_ERROR, s);
        }
        if let Ok(Some(items)) = mp::elements(b) {
            if let [c, m] = items[..] {
                if let (Some(c), Some(m)) = (mp::as_int(c), mp::as_str(m)) {
                    return ErrorObject::new(c, m);
                }
            }
        }
        match Fields::read(b) {
            Ok(f) => Self::from_fields(&f),
            Err(_) => ErrorObject::new(
                code::INTERNAL_ERROR,
                format!("an error that is not a map: {}", hex(b, 64)),
            ),
        }
    }

    fn from_fields(f: &Fields) -> ErrorObject {
        let mut problems = Vec::new();
        let mut note = |r: Result<()>| {
            if let Err(e) = r {
                problems.push(e.to_string());
            }
        };
        let mut e = ErrorObject::new(code::INTERNAL_ERROR, "");
        match f.present("code").map(|c| mp::as_int(&c.0)) {
            Some(Some(c)) => e.code = c,
            Some(None) => note(Err(field_error(
                "code",
                Error::type_error("an integer is required"),
            ))),
            None => {}
        }
        match f.opt_str("message") {
            Ok(m) => e.message = m.unwrap_or("").to_string(),
            Err(x) => note(Err(x)),
        }
        match f.opt_str("detail") {
            Ok(d) => e.detail = d.map(str::to_string),
            Err(x) => note(Err(x)),
        }
        if let Some(p) = f.present("path") {
            match read_path(&p.0) {
                Ok(p) => e.path = Some(p),
                Err(x) => note(Err(field_error("path", x))),
            }
        }
        match f.opt_uint("function_argument") {
            Ok(n) => e.function_argument = n,
            Err(x) => note(Err(x)),
        }
        if !problems.is_empty() {
            let d = format!("(the error object was malformed: {})", problems.join("; "));
            e.detail = Some(match e.detail.take() {
                Some(detail) => format!("{detail} {d}"),
                None => d,
            });
        }
        e
    }

    /// The canonical map.
    pub fn encode(&self) -> Raw {
        let mut f = Fields::new();
        let mut c = Vec::new();
        mp::write_int(&mut c, self.code);
        f.insert_raw("code", Raw(c));
        f.insert_str("message", &self.message);
        if let Some(d) = &self.detail {
            f.insert_str("detail", d);
        }
        if let Some(p) = &self.path {
            f.insert_raw("path", write_path(p));
        }
        if let Some(n) = self.function_argument {
            let mut b = Vec::new();
            mp::write_uint(&mut b, n);
            f.insert_raw("function_argument", Raw(b));
        }
        f.encode()
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(p) = self.path.as_ref().filter(|p| !p.is_root()) {
            write!(f, " at {p}")?;
        }
        if let Some(n) = self.function_argument {
            write!(f, " (argument {n})")?;
        }
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

/// At most `max` bytes as hex, saying how many more there were.
pub(crate) fn hex(b: &[u8], max: usize) -> String {
    let mut s: String = b.iter().take(max).map(|x| format!("{x:02x}")).collect();
    if b.len() > max {
        s.push_str(&format!("… ({} bytes)", b.len()));
    }
    s
}

// ---------------------------------------------------------------------
// Diagnostics (§1.3)

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// An error (with a partial result, or for a resource method).
    Error,
    /// A warning.
    Warning,
}

/// A warning or error that travels in a result's `diagnostics`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One line.
    pub summary: String,
    /// More.
    pub detail: Option<String>,
    /// Where in the value.
    pub path: Option<Path>,
}

impl Diagnostic {
    /// Reads one diagnostic map.
    pub fn read(b: &[u8]) -> Result<Diagnostic> {
        let f = Fields::read(b)?;
        let severity = match f.str("severity")? {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            other => {
                return Err(field_error(
                    "severity",
                    Error::data(format!("\"error\" or \"warning\", not {other:?}")),
                ))
            }
        };
        Ok(Diagnostic {
            severity,
            summary: f.str("summary")?.to_string(),
            detail: f.opt_str("detail")?.map(str::to_string),
            path: f
                .present("path")
                .map(|p| read_path(&p.0).map_err(|e| field_error("path", e)))
                .transpose()?,
        })
    }

    /// The canonical map.
    pub fn encode(&self) -> Raw {
        let mut f = Fields::new();
        f.insert_str(
            "severity",
            match self.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
        );
        f.insert_str("summary", &self.summary);
        if let Some(d) = &self.detail {
            f.insert_str("detail", d);
        }
        if let Some(p) = &self.path {
            f.insert_raw("path", write_path(p));
        }
        f.encode()
    }
}

/// A result's `diagnostics` (none when the field is missing).
pub fn read_diagnostics(result: &Fields) -> Result<Vec<Diagnostic>> {
    if result.present("diagnostics").is_none() {
        return Ok(Vec::new());
    }
    result.list("diagnostics", Diagnostic::read)
}

// ---------------------------------------------------------------------
// Capabilities and versions (§2.1, §2.4)

/// What a side offers (§2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// Level 1, middleware.
    Hooks,
    /// Level 2, state storage.
    Storage,
    /// Level 3, provider functions.
    Functions,
    /// Level 4, resources and data sources.
    Resources,
    /// Host only: `log` notifications are taken.
    Log,
}

impl Capability {
    /// The capability a name means, with the successor draft's aliases;
    /// `None` for a name we do not know (ignored on both sides).
    pub fn from_name(name: &str) -> Option<Capability> {
        Some(match name {
            "hooks" | "middleware_hooks" => Capability::Hooks,
            "storage" | "state_storage" => Capability::Storage,
            "functions" => Capability::Functions,
            "resources" | "managed_resources" => Capability::Resources,
            "log" => Capability::Log,
            _ => return None,
        })
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Hooks => "hooks",
            Capability::Storage => "storage",
            Capability::Functions => "functions",
            Capability::Resources => "resources",
            Capability::Log => "log",
        }
    }
}

/// Reads an array of capability names: unknown ones are left out,
/// repeated ones kept once, in the order first given.
pub fn read_capabilities(b: &[u8]) -> Result<Vec<Capability>> {
    let names = list_of(b, a_str)?;
    let mut out = Vec::new();
    for c in names.iter().filter_map(|n| Capability::from_name(n)) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    Ok(out)
}

/// A protocol version, `"MAJOR.MINOR"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ProtocolVersion {
    /// Differs: no common language.
    pub major: u32,
    /// Only adds optional fields.
    pub minor: u32,
}

impl ProtocolVersion {
    /// The newest this crate speaks.
    pub const CURRENT: ProtocolVersion = ProtocolVersion { major: 1, minor: 0 };

    /// Reads `"MAJOR.MINOR"` (a bare `"MAJOR"` is `MAJOR.0`).
    pub fn parse(s: &str) -> Result<ProtocolVersion> {
        let bad = || Error::data(format!("a version is \"MAJOR.MINOR\", not {s:?}"));
        let (major, minor) = s.split_once('.').unwrap_or((s, "0"));
        let num = |t: &str| {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse::<u32>().map_err(|_| bad())
        };
        Ok(ProtocolVersion {
            major: num(major)?,
            minor: num(minor)?,
        })
    }

    /// The version both sides use: the lower minor of the same major.
    /// Another major is refused with `-32001`, naming both versions;
    /// `self` is the side that refuses (`"host"` or `"plugin"`).
    pub fn negotiate(
        self,
        other: ProtocolVersion,
        self_is_host: bool,
    ) -> std::result::Result<ProtocolVersion, ErrorObject> {
        if self.major != other.major {
            let (host, plugin) = if self_is_host {
                (self, other)
            } else {
                (other, self)
            };
            return Err(ErrorObject::new(
                code::UNSUPPORTED_VERSION,
                "Unsupported protocol version",
            )
            .with_detail(format!(
                "the host speaks Seasonings {host}; this plugin speaks {plugin}"
            )));
        }
        Ok(self.min(other))
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

// ---------------------------------------------------------------------
// init (§2.1)

/// `init`'s params.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitParams {
    /// The newest version the host speaks.
    pub protocol_version: ProtocolVersion,
    /// The host's name.
    pub host_name: String,
    /// The host's version.
    pub host_version: String,
    /// What the host can use.
    pub capabilities: Vec<Capability>,
}

impl InitParams {
    /// The params map.
    pub fn encode(&self) -> Fields {
        let mut f = Fields::new();
        f.insert_str("protocol_version", &self.protocol_version.to_string());
        let mut host = Fields::new();
        host.insert_str("name", &self.host_name);
        host.insert_str("version", &self.host_version);
        f.insert_raw("host", host.encode());
        f.insert_strs("capabilities", self.capabilities.iter().map(|c| c.name()));
        f
    }

    /// Reads the params map.
    pub fn read(f: &Fields) -> Result<InitParams> {
        let version = f.str("protocol_version")?;
        let host = match f.present("host") {
            Some(_) => f.fields("host")?,
            None => Fields::new(),
        };
        let in_host = |e: Error| field_error("host", e);
        Ok(InitParams {
            protocol_version: ProtocolVersion::parse(version)
                .map_err(|e| field_error("protocol_version", e))?,
            host_name: host.opt_str("name").map_err(in_host)?.unwrap_or("").into(),
            host_version: host
                .opt_str("version")
                .map_err(in_host)?
                .unwrap_or("")
                .into(),
            capabilities: capabilities_of(f, "capabilities")?,
        })
    }
}

fn capabilities_of(f: &Fields, key: &str) -> Result<Vec<Capability>> {
    match f.present(key) {
        None => Ok(Vec::new()),
        Some(v) => read_capabilities(&v.0).map_err(|e| field_error(key, e)),
    }
}

/// `init`'s result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitResult {
    /// The version the plugin speaks.
    pub protocol_version: ProtocolVersion,
    /// The plugin's name.
    pub name: String,
    /// The plugin's version.
    pub version: String,
    /// What the plugin offers.
    pub capabilities: Vec<Capability>,
}

impl InitResult {
    /// Reads the result map, taking the successor draft's
    /// `supported_capabilities` and `provider_info: {name, version}` too.
    pub fn read(f: &Fields) -> Result<InitResult> {
        let version = ProtocolVersion::parse(f.str("protocol_version")?)
            .map_err(|e| field_error("protocol_version", e))?;
        let info = match f.present("provider_info") {
            Some(_) => Some(f.fields("provider_info")?),
            None => None,
        };
        let named = |key: &str| -> Result<String> {
            match (f.present(key), &info) {
                (None, Some(info)) => info
                    .str(key)
                    .map(str::to_string)
                    .map_err(|e| field_error("provider_info", e)),
                _ => f.str(key).map(str::to_string),
            }
        };
        let capabilities = match f.present("capabilities") {
            Some(_) => capabilities_of(f, "capabilities")?,
            None => capabilities_of(f, "supported_capabilities")?,
        };
        Ok(InitResult {
            protocol_version: version,
            name: named("name")?,
            version: named("version")?,
            capabilities,
        })
    }

    /// The result map.
    pub fn encode(&self) -> Fields {
        let mut f = Fields::new();
        f.insert_str("protocol_version", &self.protocol_version.to_string());
        f.insert_str("name", &self.name);
        f.insert_str("version", &self.version);
        f.insert_strs("capabilities", self.capabilities.iter().map(|c| c.name()));
        f
    }
}

// ---------------------------------------------------------------------
// Types and function signatures (§3.2, §3.3, §5)

/// Reads a type expression: the cty type JSON as msgpack.
pub fn read_type(b: &[u8]) -> Result<Type> {
    Type::parse(&mp::type_json(b)?)
}

/// One parameter of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// The type its argument is encoded at.
    pub ty: Type,
    /// For documentation.
    pub description: Option<String>,
    /// Whether a null argument reaches the function (else Terraform
    /// refuses it first).
    pub is_nullable: bool,
    /// Whether an unknown argument reaches the function (else the result
    /// is unknown without calling it).
    pub allow_unknown_values: bool,
}

impl Parameter {
    fn read(b: &[u8]) -> Result<Parameter> {
        let f = Fields::read(b)?;
        Ok(Parameter {
            name: f.str("name")?.to_string(),
            ty: read_type(&f.require("type")?.0).map_err(|e| field_error("type", e))?,
            description: f.opt_str("description")?.map(str::to_string),
            is_nullable: f.flag("is_nullable")?,
            allow_unknown_values: f.flag("allow_unknown_values")?,
        })
    }
}

/// A function's signature, as `functions.getSchema` gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSignature {
    /// One line.
    pub summary: Option<String>,
    /// More.
    pub description: Option<String>,
    /// Set when the function is deprecated.
    pub deprecation_message: Option<String>,
    /// The positional parameters.
    pub parameters: Vec<Parameter>,
    /// The parameter any further arguments are of.
    pub variadic_parameter: Option<Parameter>,
    /// The type of the result.
    pub return_type: Type,
}

impl FunctionSignature {
    /// Reads one function's schema map.
    pub fn read(b: &[u8]) -> Result<FunctionSignature> {
        let f = Fields::read(b)?;
        let parameters = match f.present("parameters") {
            Some(_) => f.list("parameters", Parameter::read)?,
            None => Vec::new(),
        };
        Ok(FunctionSignature {
            summary: f.opt_str("summary")?.map(str::to_string),
            description: f.opt_str("description")?.map(str::to_string),
            deprecation_message: f.opt_str("deprecation_message")?.map(str::to_string),
            parameters,
            variadic_parameter: f
                .present("variadic_parameter")
                .map(|p| Parameter::read(&p.0).map_err(|e| field_error("variadic_parameter", e)))
                .transpose()?,
            return_type: read_type(&f.require("return_type")?.0)
                .map_err(|e| field_error("return_type", e))?,
        })
    }

    /// The parameter argument `i` is of, if there is one.
    pub fn parameter_of(&self, i: usize) -> Option<&Parameter> {
        self.parameters.get(i).or(self
            .variadic_parameter
            .as_ref()
            .filter(|_| i >= self.parameters.len()))
    }
}

/// Reads `functions.getSchema`'s result: `{functions: {NAME: schema}}`.
pub fn read_function_schemas(result: &Fields) -> Result<BTreeMap<String, FunctionSignature>> {
    let functions = result.fields("functions")?;
    let mut out = BTreeMap::new();
    for (name, raw) in functions.iter() {
        let sig = FunctionSignature::read(&raw.0)
            .map_err(|e| field_error("functions", e.under(PathStep::Attr(name.to_string()))))?;
        out.insert(name.to_string(), sig);
    }
    Ok(out)
}
