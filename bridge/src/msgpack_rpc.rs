//! msgpack-rpc: `[0, id, method, params]` requests, `[1, id, error, result]`
//! responses and `[2, method, params]` notifications, with a streaming
//! decoder fed arbitrary chunks of bytes.
//!
//! Parameters, results and errors are kept as the raw msgpack of each
//! value ([`Raw`]), so a cty value inside them keeps everything msgpack
//! can say, unknowns and refinements included, and is decoded by its type
//! with [`Raw::decode`].
//!
//! ```
//! use ctywire_bridge::msgpack_rpc::{Message, Raw, StreamDecoder};
//! use ctywire::{Type, Value};
//!
//! let props = Raw::encode(&Value::unknown(Type::String), &Type::String)?;
//! let bytes = Message::Request { id: 7, method: "plan".into(), params: vec![props] }.encode();
//!
//! let mut decoder = StreamDecoder::new(1 << 20);
//! decoder.feed(&bytes[..3])?;                 // half a message: nothing yet
//! assert!(decoder.next()?.is_none());
//! decoder.feed(&bytes[3..])?;
//! let Some(Message::Request { id, method, params }) = decoder.next()? else { panic!() };
//! assert_eq!((id, method.as_str()), (7, "plan"));
//! assert!(!params[0].decode(&Type::String)?.is_known());
//! # Ok::<(), ctywire::Error>(())
//! ```

use rmp::encode as mp;

use ctywire::Type;
use ctywire::Value;
use ctywire::{Error, Result};

/// Message type tags.
const REQUEST: u8 = 0;
const RESPONSE: u8 = 1;
const NOTIFICATION: u8 = 2;

/// One msgpack value, as its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Raw(pub Vec<u8>);

impl Raw {
    /// `nil`.
    pub fn nil() -> Raw {
        Raw(vec![0xc0])
    }

    /// Whether this is `nil`.
    pub fn is_nil(&self) -> bool {
        self.0 == [0xc0]
    }

    /// A cty value in ctywire's msgpack encoding.
    pub fn encode(v: &Value, ty: &Type) -> Result<Raw> {
        ctywire::msgpack::encode(v, ty).map(Raw)
    }

    /// The cty value these bytes hold, as type `ty`.
    pub fn decode(&self, ty: &Type) -> Result<Value> {
        ctywire::msgpack::decode(&self.0, ty)
    }
}

/// A msgpack-rpc message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `[0, id, method, params]`.
    Request {
        /// The message id.
        id: u32,
        /// The method.
        method: String,
        /// The parameters.
        params: Vec<Raw>,
    },
    /// `[1, id, error, result]`: `error` is nil on success.
    Response {
        /// The request's id.
        id: u32,
        /// The error, or nil.
        error: Raw,
        /// The result (nil on error).
        result: Raw,
    },
    /// `[2, method, params]`.
    Notification {
        /// The method.
        method: String,
        /// The parameters.
        params: Vec<Raw>,
    },
}

impl Message {
    /// The message's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writes to a Vec cannot fail.
        match self {
            Message::Request { id, method, params } => {
                let _ = mp::write_array_len(&mut out, 4);
                let _ = mp::write_uint(&mut out, u64::from(REQUEST));
                let _ = mp::write_uint(&mut out, u64::from(*id));
                let _ = mp::write_str(&mut out, method);
                let _ = mp::write_array_len(&mut out, params.len() as u32);
                params.iter().for_each(|p| out.extend_from_slice(&p.0));
            }
            Message::Response { id, error, result } => {
                let _ = mp::write_array_len(&mut out, 4);
                let _ = mp::write_uint(&mut out, u64::from(RESPONSE));
                let _ = mp::write_uint(&mut out, u64::from(*id));
                out.extend_from_slice(&error.0);
                out.extend_from_slice(&result.0);
            }
            Message::Notification { method, params } => {
                let _ = mp::write_array_len(&mut out, 3);
                let _ = mp::write_uint(&mut out, u64::from(NOTIFICATION));
                let _ = mp::write_str(&mut out, method);
                let _ = mp::write_array_len(&mut out, params.len() as u32);
                params.iter().for_each(|p| out.extend_from_slice(&p.0));
            }
        }
        out
    }

    /// Reads one whole message from exactly these bytes.
    pub fn decode(bytes: &[u8]) -> Result<Message> {
        match value_len(bytes)? {
            Some(n) if n == bytes.len() => parse(bytes),
            Some(n) => Err(
                Error::syntax(format!("{} bytes after the message", bytes.len() - n)).at_offset(n),
            ),
            None => Err(Error::eof()),
        }
    }
}

/// Splits a byte stream into messages. Bytes are fed in chunks of any
/// size; a partial message waits for the rest. The buffer is bounded; a
/// malformed message stops the stream (msgpack has no way to resync).
pub struct StreamDecoder {
    buf: Vec<u8>,
    start: usize,
    max_buffer: usize,
    failed: Option<Error>,
}

impl StreamDecoder {
    /// A decoder holding at most `max_buffer` bytes of unread input (so
    /// no message may be larger).
    pub fn new(max_buffer: usize) -> Self {
        StreamDecoder {
            buf: Vec::new(),
            start: 0,
            max_buffer,
            failed: None,
        }
    }

    /// Adds bytes. Exceeding the buffer limit is an error.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        if self.buf.len() - self.start + chunk.len() > self.max_buffer {
            let e = Error::limit(format!(
                "a msgpack-rpc message exceeds the {}-byte buffer",
                self.max_buffer
            ));
            self.failed = Some(e.clone());
            return Err(e);
        }
        self.buf.extend_from_slice(chunk);
        Ok(())
    }

    /// The next whole message, `Ok(None)` if more bytes are needed.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Message>> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let pending = &self.buf[self.start..];
        let result = match value_len(pending) {
            Ok(None) => return Ok(None),
            Ok(Some(n)) => parse(&pending[..n]).map(|m| (m, n)),
            Err(e) => Err(e),
        };
        match result {
            Ok((m, n)) => {
                self.start += n;
                Ok(Some(m))
            }
            Err(e) => {
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Bytes received but not yet part of a returned message.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }
}

/// The length of the msgpack value at the start of `b`: `Ok(None)` if it
/// is not all there yet, an error for a byte no msgpack value starts with.
/// Counts the values still owed instead of recursing, so nesting costs
/// nothing, and trusts no length header beyond the bytes present.
///
/// ```
/// use ctywire_bridge::msgpack_rpc::value_len;
/// assert_eq!(value_len(&[0x92, 0x01, 0xa1, b'x', 0xff]).unwrap(), Some(4));
/// assert_eq!(value_len(&[0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap(), None);
/// ```
pub fn value_len(b: &[u8]) -> Result<Option<usize>> {
    let mut pos = 0usize;
    let mut owed: u64 = 1;
    while owed > 0 {
        let Some(&m) = b.get(pos) else {
            return Ok(None);
        };
        pos += 1;
        owed -= 1;
        let be = |n: usize, pos: usize| -> Option<u64> {
            b.get(pos..pos + n)
                .map(|s| s.iter().fold(0u64, |acc, &x| acc << 8 | u64::from(x)))
        };
        // (bytes of header after the marker, payload length, values owed)
        let (header, payload, more): (usize, u64, u64) = match m {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, 0, 0),
            0x80..=0x8f => (0, 0, 2 * u64::from(m & 0x0f)),
            0x90..=0x9f => (0, 0, u64::from(m & 0x0f)),
            0xa0..=0xbf => (0, u64::from(m & 0x1f), 0),
            0xc1 => {
                return Err(Error::syntax("byte 0xc1 starts no msgpack value").at_offset(pos - 1))
            }
            0xc4 | 0xd9 => (1, be(1, pos).map_or(u64::MAX, |n| n), 0),
            0xc5 | 0xda => (2, be(2, pos).map_or(u64::MAX, |n| n), 0),
            0xc6 | 0xdb => (4, be(4, pos).map_or(u64::MAX, |n| n), 0),
            0xc7 => (2, be(1, pos).map_or(u64::MAX, |n| n), 0),
            0xc8 => (3, be(2, pos).map_or(u64::MAX, |n| n), 0),
            0xc9 => (5, be(4, pos).map_or(u64::MAX, |n| n), 0),
            0xca => (0, 4, 0),
            0xcb => (0, 8, 0),
            0xcc | 0xd0 => (0, 1, 0),
            0xcd | 0xd1 => (0, 2, 0),
            0xce | 0xd2 => (0, 4, 0),
            0xcf | 0xd3 => (0, 8, 0),
            0xd4 => (1, 1, 0),
            0xd5 => (1, 2, 0),
            0xd6 => (1, 4, 0),
            0xd7 => (1, 8, 0),
            0xd8 => (1, 16, 0),
            0xdc => (2, 0, be(2, pos).unwrap_or(0)),
            0xdd => (4, 0, be(4, pos).unwrap_or(0)),
            0xde => (2, 0, 2 * be(2, pos).unwrap_or(0)),
            0xdf => (4, 0, 2 * be(4, pos).unwrap_or(0)),
        };
        if pos + header > b.len() {
            return Ok(None);
        }
        let end = (pos + header) as u64 + payload;
        if end > b.len() as u64 {
            return Ok(None);
        }
        pos = end as usize;
        owed = owed.saturating_add(more);
    }
    Ok(Some(pos))
}

/// Splits an array of `n` values (the bytes of exactly one array) into
/// the raw values.
fn split_array(b: &[u8]) -> Result<Vec<Raw>> {
    let (n, mut pos) = match b.first() {
        Some(&m @ 0x90..=0x9f) => (usize::from(m & 0x0f), 1),
        Some(0xdc) if b.len() >= 3 => (usize::from(u16::from_be_bytes([b[1], b[2]])), 3),
        Some(0xdd) if b.len() >= 5 => (u32::from_be_bytes([b[1], b[2], b[3], b[4]]) as usize, 5),
        _ => return Err(Error::data("params must be an array")),
    };
    let mut out = Vec::with_capacity(n.min(b.len()));
    for _ in 0..n {
        let len = value_len(&b[pos..])?.ok_or_else(Error::eof)?;
        out.push(Raw(b[pos..pos + len].to_vec()));
        pos += len;
    }
    Ok(out)
}

/// A request's or notification's params: msgpack-rpc says an array, but
/// some senders (OpenTofu's Seasonings RFC examples) put a bare value
/// there; it is read as the one parameter, since refusing it would end the
/// whole stream.
fn params_of(params: &Raw) -> Result<Vec<Raw>> {
    match params.0.first() {
        Some(0x90..=0x9f | 0xdc | 0xdd) => split_array(&params.0),
        _ => Ok(vec![params.clone()]),
    }
}

fn parse(msg: &[u8]) -> Result<Message> {
    let parts = split_array(msg).map_err(|_| Error::data("a msgpack-rpc message is an array"))?;
    let bad = |why: &str| Error::data(format!("not a msgpack-rpc message: {why}"));
    let uint = |r: &Raw, what: &str| -> Result<u32> {
        let mut s = &r.0[..];
        rmp::decode::read_int::<u32, _>(&mut s)
            .ok()
            .filter(|_| s.is_empty())
            .ok_or_else(|| bad(&format!("{what} must be an unsigned integer")))
    };
    let text = |r: &Raw| -> Result<String> {
        let mut s = &r.0[..];
        let n = rmp::decode::read_str_len(&mut s).map_err(|_| bad("the method must be a string"))?
            as usize;
        let t = s
            .get(..n)
            .filter(|t| t.len() == s.len())
            .ok_or_else(|| bad("the method must be a string"))?;
        String::from_utf8(t.to_vec()).map_err(|_| bad("the method must be UTF-8"))
    };
    let kind = parts.first().map(|p| uint(p, "the type")).transpose()?;
    match (kind, parts.len()) {
        (Some(0), 4) => Ok(Message::Request {
            id: uint(&parts[1], "the id")?,
            method: text(&parts[2])?,
            params: params_of(&parts[3])?,
        }),
        (Some(1), 4) => Ok(Message::Response {
            id: uint(&parts[1], "the id")?,
            error: parts[2].clone(),
            result: parts[3].clone(),
        }),
        (Some(2), 3) => Ok(Message::Notification {
            method: text(&parts[1])?,
            params: params_of(&parts[2])?,
        }),
        (Some(t @ 0..=2), n) => Err(bad(&format!(
            "type {t} takes {} elements, not {n}",
            if t == 2 { 3 } else { 4 }
        ))),
        (Some(t), _) => Err(bad(&format!("unknown message type {t}"))),
        (None, _) => Err(bad("empty array")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_kind_round_trips() {
        let msgs = [
            Message::Request {
                id: 1,
                method: "a".into(),
                params: vec![Raw::nil(), Raw(vec![0x92, 0x01, 0x02])],
            },
            Message::Response {
                id: 70000,
                error: Raw::nil(),
                result: Raw(vec![0xa2, b'o', b'k']),
            },
            Message::Notification {
                method: "progress".into(),
                params: vec![],
            },
        ];
        for m in msgs {
            assert_eq!(Message::decode(&m.encode()).unwrap(), m);
        }
    }

    #[test]
    fn byte_by_byte_feeding_yields_each_message_once() {
        let a = Message::Notification {
            method: "x".into(),
            params: vec![Raw(vec![0xcd, 0x01, 0x00])],
        };
        let b = Message::Request {
            id: 2,
            method: "y".into(),
            params: vec![],
        };
        let bytes: Vec<u8> = [a.encode(), b.encode()].concat();
        let mut d = StreamDecoder::new(64);
        let mut got = Vec::new();
        for byte in bytes {
            d.feed(&[byte]).unwrap();
            while let Some(m) = d.next().unwrap() {
                got.push(m);
            }
        }
        assert_eq!(got, [a, b]);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn huge_length_headers_wait_for_bytes_and_hit_the_buffer_limit() {
        let mut d = StreamDecoder::new(16);
        d.feed(&[0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap();
        assert!(d.next().unwrap().is_none());
        assert_eq!(
            d.feed(&[0u8; 16]).unwrap_err().category(),
            ctywire::Category::Limit
        );
        assert!(d.next().is_err(), "a failed stream stays failed");
    }

    #[test]
    fn params_that_are_not_an_array_are_read_as_the_one_parameter() {
        // [2, "log", {"a": 1}]
        let bytes = [0x93, 0x02, 0xa3, b'l', b'o', b'g', 0x81, 0xa1, b'a', 0x01];
        let Message::Notification { params, .. } = Message::decode(&bytes).unwrap() else {
            panic!("a notification");
        };
        assert_eq!(params, [Raw(vec![0x81, 0xa1, b'a', 0x01])]);
    }

    #[test]
    fn malformed_messages_are_errors() {
        for bad in [
            &[0xc1][..],
            &[0x93, 0x05, 0xa1, b'x', 0x90],
            &[0x94, 0x00, 0xa1, b'x', 0xa1, b'y', 0x90],
            &[0x01],
        ] {
            let mut d = StreamDecoder::new(64);
            d.feed(bad).unwrap();
            assert!(d.next().is_err(), "{bad:02x?}");
        }
    }
}
