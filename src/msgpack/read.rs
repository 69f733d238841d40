//! Reading msgpack items: [`Reader`], a position in the bytes, and what
//! the next bytes hold ([`Head`]). The value decoder, the set-order check
//! and the unknowns' reader all read through it.

use rmp::Marker;

use crate::convert::number_from_string;
use crate::error::{Error, Result};
use crate::number::Number;
use crate::strings::text_from_wire;

/// A position in msgpack bytes, and the reading of single items.
pub(crate) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
}

/// What the next bytes hold, by their leading marker.
pub(crate) enum Head {
    Nil,
    Bool(bool),
    /// An integer of any width up to i64 (a number is made from it only
    /// where one is needed: a `Number` returned inside a `Head` is copied
    /// around its niche byte in pieces, which stalls store forwarding).
    Int(i64),
    /// A uint 64 past i64's range.
    Uint(u64),
    Float(f64),
    Str(u32),
    Bin(u32),
    Array(u32),
    Map(u32),
    Ext,
    Reserved,
}

impl Head {
    /// An integer head's value, with nil as 0 (go-cty reads refinement
    /// keys and bounds that way).
    pub(super) fn integer_or_nil(&self) -> Option<Number> {
        match *self {
            Head::Int(n) => Some(Number::from_i64(n)),
            Head::Uint(n) => Some(Number::from_u64(n)),
            Head::Nil => Some(Number::from_i64(0)),
            _ => None,
        }
    }
}

/// Whether `b` starts an ext (fixext 1–16, ext 8/16/32): an unknown.
pub(super) fn is_ext(b: u8) -> bool {
    matches!(b, 0xd4..=0xd8 | 0xc7..=0xc9)
}

/// The body of [`Reader::head`], for `$r` a `&mut Reader`, in a
/// `Result`-returning function. A macro so that
/// [`skip_item`](Reader::skip_item), a loop over nothing but heads, has it
/// inlined (the call and the `Head` passed back cost more there than the
/// reading, and inlined, the scalars' values it does not need are not
/// computed), while every other caller keeps the call the compiler
/// chooses: forced inline everywhere, the `Value` decoder's frames grow
/// (fleet-200 msgpack-decode +2.6% instructions).
macro_rules! read_head {
    ($r:ident) => {{
        let b = $r.peek()?;
        $r.pos += 1;
        Ok(match Marker::from_u8(b) {
            Marker::Null => Head::Nil,
            Marker::True => Head::Bool(true),
            Marker::False => Head::Bool(false),
            Marker::FixPos(v) => Head::Int(i64::from(v)),
            Marker::FixNeg(v) => Head::Int(i64::from(v)),
            Marker::U8 => Head::Int(i64::from(u8::from_be_bytes($r.be()?))),
            Marker::U16 => Head::Int(i64::from(u16::from_be_bytes($r.be()?))),
            Marker::U32 => Head::Int(i64::from(u32::from_be_bytes($r.be()?))),
            Marker::U64 => {
                let n = u64::from_be_bytes($r.be()?);
                i64::try_from(n).map_or(Head::Uint(n), Head::Int)
            }
            Marker::I8 => Head::Int(i64::from(i8::from_be_bytes($r.be()?))),
            Marker::I16 => Head::Int(i64::from(i16::from_be_bytes($r.be()?))),
            Marker::I32 => Head::Int(i64::from(i32::from_be_bytes($r.be()?))),
            Marker::I64 => Head::Int(i64::from_be_bytes($r.be()?)),
            // float32 is widened to float64, as Go does.
            Marker::F32 => Head::Float(f64::from(f32::from_be_bytes($r.be()?))),
            Marker::F64 => Head::Float(f64::from_be_bytes($r.be()?)),
            Marker::FixStr(n) => Head::Str(u32::from(n)),
            Marker::Str8 => Head::Str(u32::from(u8::from_be_bytes($r.be()?))),
            Marker::Str16 => Head::Str(u32::from(u16::from_be_bytes($r.be()?))),
            Marker::Str32 => Head::Str(u32::from_be_bytes($r.be()?)),
            Marker::Bin8 => Head::Bin(u32::from(u8::from_be_bytes($r.be()?))),
            Marker::Bin16 => Head::Bin(u32::from(u16::from_be_bytes($r.be()?))),
            Marker::Bin32 => Head::Bin(u32::from_be_bytes($r.be()?)),
            Marker::FixArray(n) => Head::Array(u32::from(n)),
            Marker::Array16 => Head::Array(u32::from(u16::from_be_bytes($r.be()?))),
            Marker::Array32 => Head::Array(u32::from_be_bytes($r.be()?)),
            Marker::FixMap(n) => Head::Map(u32::from(n)),
            Marker::Map16 => Head::Map(u32::from(u16::from_be_bytes($r.be()?))),
            Marker::Map32 => Head::Map(u32::from_be_bytes($r.be()?)),
            Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32 => {
                $r.pos -= 1;
                Head::Ext
            }
            Marker::Reserved => Head::Reserved,
        })
    }};
}

/// Where each of the `n` msgpack items from `from` in `bytes` ends: how the
/// typed encoder finds fields it has written. `None` if they are not there.
#[cfg(feature = "serde")]
pub(crate) fn item_ends(bytes: &[u8], from: usize, n: usize) -> Option<Vec<usize>> {
    let mut r = Reader::new(bytes.get(from..)?);
    (0..n)
        .map(|_| {
            r.skip_item().ok()?;
            Some(from + r.pos())
        })
        .collect()
}

impl<'a> Reader<'a> {
    pub(super) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes read since position `start`.
    #[cfg(feature = "serde")]
    pub(super) fn since(&self, start: usize) -> &'a [u8] {
        self.buf.get(start..self.pos).unwrap_or_default()
    }

    #[inline]
    pub(super) fn eof(&self) -> Error {
        Error::eof().at_offset(self.buf.len())
    }

    #[inline]
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.eof())?;
        let s = self.buf.get(self.pos..end).ok_or_else(|| self.eof())?;
        self.pos = end;
        Ok(s)
    }

    #[inline]
    pub(super) fn be<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    #[inline]
    pub(super) fn peek(&self) -> Result<u8> {
        self.buf.get(self.pos).copied().ok_or_else(|| self.eof())
    }

    /// Reads a marker and its length or scalar payload (not the contents
    /// of a str, bin, array or map; an ext is left unread).
    #[inline]
    pub(super) fn head(&mut self) -> Result<Head> {
        read_head!(self)
    }

    /// A str's head: the length of its text, or `None`, with nothing
    /// consumed, for anything else. The most common forms (fixstr, and str
    /// 8 for text of 32 bytes or more) without the general dispatch.
    #[inline(always)]
    pub(super) fn str_head(&mut self) -> Result<Option<u32>> {
        let at = self.pos;
        let b = self.peek()?;
        if let 0xa0..=0xbf = b {
            self.pos += 1;
            return Ok(Some(u32::from(b & 0x1f)));
        }
        if b == 0xd9 {
            if let Some(&n) = self.buf.get(self.pos + 1) {
                self.pos += 2;
                return Ok(Some(u32::from(n)));
            }
        }
        match self.head()? {
            Head::Str(n) => Ok(Some(n)),
            _ => {
                self.unread(at);
                Ok(None)
            }
        }
    }

    /// UTF-8 text of `n` bytes, and whether it is ASCII. Broken UTF-8 is
    /// reported at the offending byte.
    #[inline]
    pub(super) fn text(&mut self, n: u32) -> Result<(&'a str, bool)> {
        let start = self.pos;
        let b = self.take(n as usize)?;
        text_from_wire(b).map_err(|e| {
            Error::data("string is not valid UTF-8").at_offset(start + e.valid_up_to())
        })
    }

    /// A number from its head: any int or float width, or its decimal text
    /// in a str or bin (go-cty accepts all of them).
    /// `at` is where the number's head started.
    pub(super) fn number_from(
        &mut self,
        head: Head,
        at: usize,
        max_exponent: u32,
    ) -> Result<Option<Number>> {
        match head {
            Head::Int(n) => Ok(Some(Number::from_i64(n))),
            Head::Uint(n) => Ok(Some(Number::from_u64(n))),
            Head::Float(f) => Number::from_f64(f).map(Some).map_err(|e| e.at_offset(at)),
            Head::Str(n) | Head::Bin(n) => {
                let (s, _) = self.text(n)?;
                number_from_string(s, max_exponent)
                    .map(Some)
                    .map_err(|e| e.at_offset(at))
            }
            _ => Ok(None),
        }
    }

    /// Consumes a str key equal to `name`, if that is what comes next.
    #[inline]
    pub(super) fn skip_key(&mut self, name: &str) -> bool {
        let name = name.as_bytes();
        let rest = &self.buf[self.pos..];
        let header = match (rest.first(), name.len()) {
            (Some(&b), n) if n < 32 && b == 0xa0 | n as u8 => 1,
            (Some(0xd9), n) if n < 256 && rest.get(1) == Some(&(n as u8)) => 2,
            _ => return false,
        };
        if rest.get(header..header + name.len()) == Some(name) {
            self.pos += header + name.len();
            true
        } else {
            false
        }
    }

    /// An array or map header, whose count is both the iteration state
    /// and the length known up front; anything else is left unread.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn begin_counted(
        &mut self,
        count: impl Fn(Head) -> Option<u32>,
    ) -> Result<Option<(usize, Option<usize>)>> {
        let at = self.pos;
        match count(self.head()?) {
            Some(n) => Ok(Some((n as usize, Some(n as usize)))),
            None => {
                self.unread(at);
                Ok(None)
            }
        }
    }

    /// Reads an ext's marker and, for ext 8/16/32, its length: how many
    /// bytes of data follow its type byte.
    pub(super) fn ext_len(&mut self) -> Result<usize> {
        let marker = self.peek()?;
        self.pos += 1;
        Ok(match marker {
            0xd4 => 1,
            0xd5 => 2,
            0xd6 => 4,
            0xd7 => 8,
            0xd8 => 16,
            0xc7 => usize::from(u8::from_be_bytes(self.be()?)),
            0xc8 => usize::from(u16::from_be_bytes(self.be()?)),
            _ => u32::from_be_bytes(self.be()?) as usize,
        })
    }

    /// Steps back over a head read to see what it was.
    #[inline]
    pub(super) fn unread(&mut self, at: usize) {
        self.pos = at;
    }

    /// Steps over one whole item, nested ones included, without looking
    /// inside: items still to pass are counted rather than recursed into,
    /// so no input nests it deeper than one loop.
    #[cfg(feature = "serde")]
    pub(super) fn skip_item(&mut self) -> Result<()> {
        let mut pending: u64 = 1;
        while pending > 0 {
            pending -= 1;
            match read_head!(self)? {
                Head::Str(n) | Head::Bin(n) => {
                    self.take(n as usize)?;
                }
                Head::Array(n) => pending += u64::from(n),
                Head::Map(n) => pending += 2 * u64::from(n),
                Head::Ext => {
                    // Its type byte, then its data.
                    let data = self.ext_len()?;
                    self.take(1 + data)?;
                }
                Head::Reserved => return Err(Error::data("reserved msgpack marker")),
                Head::Nil | Head::Bool(_) | Head::Int(_) | Head::Uint(_) | Head::Float(_) => {}
            }
        }
        Ok(())
    }
}
