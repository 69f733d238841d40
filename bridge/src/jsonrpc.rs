//! JSON-RPC 2.0: messages, strict validation, and newline-delimited
//! framing over any `BufRead` / `Write`.
//!
//! Messages are [`Json`] documents: ids, params and results keep their
//! numbers exactly. Each line is parsed by ctywire's bounded reader (depth
//! 256), after the line-length limit has been checked.
//!
//! ```
//! use ctywire_bridge::Json;
//! use ctywire_bridge::jsonrpc::{Id, LineReader, LineWriter, Message};
//!
//! let mut out = Vec::new();
//! let mut w = LineWriter::new(&mut out);
//! w.write(&Message::request(Id::Number(1.into()), "health", None))?;
//! w.write(&Message::notification("shutdown", None))?;
//! assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"health\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"shutdown\"}\n");
//!
//! let input = b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\nnot json\n";
//! let mut r = LineReader::new(&input[..], 1 << 20);
//! let first = r.read()?.unwrap().unwrap();
//! assert_eq!(first, Message::success(Id::Number(1.into()), Json::parse(r#"{"ok": true}"#)?));
//! // A line that is not JSON yields the -32700 response to send back.
//! let bad = r.read()?.unwrap().unwrap_err();
//! assert_eq!(bad.to_json()["error"]["code"].as_i64(), Some(-32700));
//! assert!(r.read()?.is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, BufRead, Write};

use crate::json::quote_into;
use crate::{Json, JsonNumber as Number, Object as Map};

/// The standard error codes.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a valid JSON-RPC message.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Wrong parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The range reserved for implementation-defined server errors.
    pub const SERVER_ERRORS: std::ops::RangeInclusive<i64> = -32099..=-32000;
}

/// A request id: a number, a string, or null (only in error responses to
/// messages whose id could not be read).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id {
    /// A number (kept exactly).
    Number(Number),
    /// A string.
    String(String),
    /// `null`.
    Null,
}

impl Id {
    fn to_json(&self) -> Json {
        match self {
            Id::Number(n) => Json::Number(n.clone()),
            Id::String(s) => Json::String(s.clone()),
            Id::Null => Json::Null,
        }
    }

    fn from_json(j: &Json) -> Option<Id> {
        match j {
            Json::Number(n) => Some(Id::Number(n.clone())),
            Json::String(s) => Some(Id::String(s.clone())),
            Json::Null => Some(Id::Null),
            _ => None,
        }
    }

    fn write_into(&self, out: &mut Vec<u8>) {
        match self {
            Id::Number(n) => out.extend_from_slice(n.as_str().as_bytes()),
            Id::String(s) => quote_into(out, s),
            Id::Null => out.extend_from_slice(b"null"),
        }
    }
}

/// The error member of a failed response.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorObject {
    /// One of [`code`], or the application's own.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Anything more.
    pub data: Option<Json>,
}

impl ErrorObject {
    /// An error with no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// A JSON-RPC 2.0 message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A call that expects an answer.
    Request {
        /// The id the answer carries.
        id: Id,
        /// The method.
        method: String,
        /// An array or object, or nothing.
        params: Option<Json>,
    },
    /// A call that expects no answer.
    Notification {
        /// The method.
        method: String,
        /// An array or object, or nothing.
        params: Option<Json>,
    },
    /// The answer to a request: a result or an error.
    Response {
        /// The request's id (null if it could not be read).
        id: Id,
        /// `result` or `error`.
        outcome: Result<Json, ErrorObject>,
    },
}

impl Message {
    /// A request.
    pub fn request(id: Id, method: impl Into<String>, params: Option<Json>) -> Message {
        Message::Request {
            id,
            method: method.into(),
            params,
        }
    }

    /// A notification.
    pub fn notification(method: impl Into<String>, params: Option<Json>) -> Message {
        Message::Notification {
            method: method.into(),
            params,
        }
    }

    /// A successful response.
    pub fn success(id: Id, result: Json) -> Message {
        Message::Response {
            id,
            outcome: Ok(result),
        }
    }

    /// An error response.
    pub fn failure(id: Id, error: ErrorObject) -> Message {
        Message::Response {
            id,
            outcome: Err(error),
        }
    }

    /// The message as JSON, members in the order the spec lists them.
    pub fn to_json(&self) -> Json {
        let mut m = Map::new();
        m.insert("jsonrpc", Json::String("2.0".into()));
        match self {
            Message::Request { id, method, params } => {
                m.insert("id", id.to_json());
                m.insert("method", Json::String(method.clone()));
                if let Some(p) = params {
                    m.insert("params", p.clone());
                }
            }
            Message::Notification { method, params } => {
                m.insert("method", Json::String(method.clone()));
                if let Some(p) = params {
                    m.insert("params", p.clone());
                }
            }
            Message::Response { id, outcome } => {
                m.insert("id", id.to_json());
                match outcome {
                    Ok(r) => {
                        m.insert("result", r.clone());
                    }
                    Err(e) => {
                        let mut err = Map::new();
                        err.insert("code", Json::Number(e.code.into()));
                        err.insert("message", Json::String(e.message.clone()));
                        if let Some(d) = &e.data {
                            err.insert("data", d.clone());
                        }
                        m.insert("error", Json::Object(err));
                    }
                }
            }
        }
        Json::Object(m)
    }

    /// Appends the message's compact JSON text to `out`: the text
    /// [`to_json`](Self::to_json) gives, written straight from the message
    /// (params and results are not copied into a new document first).
    pub fn write_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#"{"jsonrpc":"2.0""#);
        let member = |out: &mut Vec<u8>, name: &str| {
            out.push(b',');
            quote_into(out, name);
            out.push(b':');
        };
        match self {
            Message::Request { id, method, params } => {
                member(out, "id");
                id.write_into(out);
                member(out, "method");
                quote_into(out, method);
                if let Some(p) = params {
                    member(out, "params");
                    p.write_into(out);
                }
            }
            Message::Notification { method, params } => {
                member(out, "method");
                quote_into(out, method);
                if let Some(p) = params {
                    member(out, "params");
                    p.write_into(out);
                }
            }
            Message::Response { id, outcome } => {
                member(out, "id");
                id.write_into(out);
                match outcome {
                    Ok(r) => {
                        member(out, "result");
                        r.write_into(out);
                    }
                    Err(e) => {
                        member(out, "error");
                        // Writing to a Vec cannot fail.
                        let _ = write!(out, r#"{{"code":{}"#, e.code);
                        member(out, "message");
                        quote_into(out, &e.message);
                        if let Some(d) = &e.data {
                            member(out, "data");
                            d.write_into(out);
                        }
                        out.push(b'}');
                    }
                }
            }
        }
        out.push(b'}');
    }

    /// Parses and validates one message. A failure is the error response to
    /// send back: -32700 when the text is not JSON, -32600 when it is not a
    /// valid message (with the message's id when it could be read).
    pub fn parse(text: &str) -> Result<Message, Box<Message>> {
        let j = Json::parse(text).map_err(|e| {
            Message::failure(
                Id::Null,
                ErrorObject::new(
                    code::PARSE_ERROR,
                    format!("parse error: {}", with_offset(&e)),
                ),
            )
        })?;
        Message::from_json(j)
    }

    /// Validates a JSON value as a message; see [`parse`](Self::parse). The
    /// message takes its params, result and error data out of `j` (moved,
    /// not copied).
    pub fn from_json(mut j: Json) -> Result<Message, Box<Message>> {
        let Json::Object(m) = &mut j else {
            let what = if j.as_array().is_some() {
                "batches are not supported"
            } else {
                "a message must be a JSON object"
            };
            return Err(invalid(Id::Null, what));
        };
        let id =
            match m.get("id") {
                Some(i) => Some(Id::from_json(i).ok_or_else(|| {
                    invalid(Id::Null, "\"id\" must be a string, a number or null")
                })?),
                None => None,
            };
        let reply_id = id.clone().unwrap_or(Id::Null);
        if m.get("jsonrpc") != Some(&Json::String("2.0".into())) {
            return Err(invalid(reply_id, "\"jsonrpc\" must be \"2.0\""));
        }
        if let Some(method) = m.get("method") {
            let Json::String(method) = method else {
                return Err(invalid(reply_id, "\"method\" must be a string"));
            };
            if m.contains_key("result") || m.contains_key("error") {
                return Err(invalid(
                    reply_id,
                    "a request has no \"result\" or \"error\"",
                ));
            }
            let method = method.clone();
            let params = match m.get_mut("params") {
                None => None,
                Some(p @ (Json::Array(_) | Json::Object(_))) => {
                    Some(std::mem::replace(p, Json::Null))
                }
                Some(_) => {
                    return Err(invalid(
                        reply_id,
                        "\"params\" must be an array or an object",
                    ))
                }
            };
            return Ok(match id {
                Some(id) => Message::Request { id, method, params },
                None => Message::Notification { method, params },
            });
        }
        let Some(id) = id else {
            return Err(invalid(
                Id::Null,
                "a message needs a \"method\" (a call) or an \"id\" (a response)",
            ));
        };
        if !m.contains_key("error") {
            return match m.get_mut("result") {
                Some(r) => Ok(Message::success(id, std::mem::replace(r, Json::Null))),
                None => Err(invalid(id, "a response needs \"result\" or \"error\"")),
            };
        }
        if m.contains_key("result") {
            return Err(invalid(
                id,
                "a response has \"result\" or \"error\", not both",
            ));
        }
        let Some(Json::Object(e)) = m.get_mut("error") else {
            return Err(invalid(id, "\"error\" must be an object"));
        };
        let code = e.get("code").and_then(Json::as_i64);
        let message = e.get("message").and_then(Json::as_str).map(str::to_string);
        match (code, message) {
            (Some(code), Some(message)) => Ok(Message::failure(
                id,
                ErrorObject {
                    code,
                    message,
                    data: e.get_mut("data").map(|d| std::mem::replace(d, Json::Null)),
                },
            )),
            _ => Err(invalid(
                id,
                "\"error\" needs an integer \"code\" and a string \"message\"",
            )),
        }
    }
}

/// An error's text with the byte offset it carries, for messages that
/// travel without the error value itself.
fn with_offset(e: &ctywire::Error) -> String {
    match e.offset() {
        Some(at) => format!("{e} (at byte {at})"),
        None => e.to_string(),
    }
}

fn invalid(id: Id, why: &str) -> Box<Message> {
    Box::new(Message::failure(
        id,
        ErrorObject::new(code::INVALID_REQUEST, format!("invalid request: {why}")),
    ))
}

/// Reads newline-delimited messages. Empty lines are skipped; a line longer
/// than the limit is skipped whole and reported, never buffered whole.
pub struct LineReader<R> {
    inner: R,
    max_line: usize,
    line: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader refusing lines longer than `max_line` bytes.
    pub fn new(inner: R, max_line: usize) -> Self {
        LineReader {
            inner,
            max_line,
            line: Vec::new(),
        }
    }

    /// The next message: `Ok(None)` at the end of the input; `Some(Err(m))`
    /// when the line was not a valid message, `m` being the error response
    /// to send back. I/O errors are the outer error.
    pub fn read(&mut self) -> io::Result<Option<Result<Message, Box<Message>>>> {
        loop {
            self.line.clear();
            let mut too_long = false;
            let mut saw_any = false;
            loop {
                let buf = self.inner.fill_buf()?;
                if buf.is_empty() {
                    break;
                }
                saw_any = true;
                let (len, newline) = match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => (i, true),
                    None => (buf.len(), false),
                };
                if !too_long {
                    if self.line.len() + len > self.max_line {
                        too_long = true;
                        self.line.clear();
                    } else {
                        self.line.extend_from_slice(&buf[..len]);
                    }
                }
                self.inner.consume(len + usize::from(newline));
                if newline {
                    break;
                }
            }
            if !saw_any {
                return Ok(None);
            }
            if too_long {
                return Ok(Some(Err(Box::new(Message::failure(
                    Id::Null,
                    ErrorObject::new(
                        code::INVALID_REQUEST,
                        format!("invalid request: a line exceeds {} bytes", self.max_line),
                    ),
                )))));
            }
            let text = match std::str::from_utf8(&self.line) {
                Ok(t) => t.trim(),
                Err(_) => {
                    return Ok(Some(Err(Box::new(Message::failure(
                        Id::Null,
                        ErrorObject::new(code::PARSE_ERROR, "parse error: the line is not UTF-8"),
                    )))))
                }
            };
            if text.is_empty() {
                continue;
            }
            return Ok(Some(Message::parse(text)));
        }
    }
}

/// Writes messages one per line.
pub struct LineWriter<W> {
    inner: W,
}

impl<W: Write> LineWriter<W> {
    /// A writer.
    pub fn new(inner: W) -> Self {
        LineWriter { inner }
    }

    /// Writes one message and a newline, and flushes.
    pub fn write(&mut self, m: &Message) -> io::Result<()> {
        let mut line = Vec::with_capacity(64);
        m.write_into(&mut line);
        line.push(b'\n');
        self.inner.write_all(&line)?;
        self.inner.flush()
    }
}
