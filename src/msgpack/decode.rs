//! msgpack → Value: the msgpack reader the shared decoder
//! ([`crate::decode`]) runs over, straight from the bytes.

use std::borrow::Cow;

use super::read::{is_ext, Head, Reader};
use super::unknown;
use super::write::NIL;
use crate::decode::{self, DynamicStart, Key, Wire};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::types::Type;
use crate::value::Value;
use crate::DecodeOptions;

pub(super) fn decode(bytes: &[u8], ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    decode::decode(Reader::new(bytes), bytes.len(), ty, opts)
}

// The reading of each form is forced inline in release builds, where the
// calls would cost more than the reading; not in debug builds, where
// everything inlined into `Decoder::value` grows the frame that every level
// of nesting pays (the depth limit must be reachable on a small stack
// there too).
impl<'a> Wire<'a> for Reader<'a> {
    const NAME: &'static str = "msgpack";
    /// Elements or entries left.
    type Seq = usize;
    type DynamicEnd = ();

    #[cfg(feature = "serde")]
    fn set_known_in_order(&mut self, ety: &Type, max_exponent: u32) -> bool {
        // A copy of the position: nothing is consumed.
        let mut r = Reader {
            buf: self.buf,
            pos: self.pos,
        };
        let Ok(Head::Array(n)) = r.head() else {
            return false;
        };
        super::set_order::array_known_in_order(ety, &mut r, n, max_exponent)
    }

    #[cfg(feature = "serde")]
    fn map_known_in_order(&mut self, _depth_left: usize) -> bool {
        // A copy of the position: nothing is consumed.
        let mut r = Reader {
            buf: self.buf,
            pos: self.pos,
        };
        let Ok(Head::Map(n)) = r.head() else {
            return false;
        };
        let mut order = decode::KeyOrder::default();
        for _ in 0..n {
            let Ok(Some(len)) = r.str_head() else {
                return false;
            };
            let Ok((key, ascii)) = r.text(len) else {
                return false;
            };
            order.see(&Cow::Borrowed(key), ascii);
            if !order.sorted {
                return false;
            }
            // A string value (as tags and labels are) stepped over
            // without the general dispatch.
            let stepped_over = match r.str_head() {
                Ok(Some(len)) => r.take(len as usize).is_ok(),
                Ok(None) => r.skip_item().is_ok(),
                Err(_) => false,
            };
            if !stepped_over {
                return false;
            }
        }
        true
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn start(&mut self) -> Result<usize> {
        self.peek()?;
        Ok(self.pos)
    }

    #[inline]
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    #[inline]
    fn trailing(&mut self) -> Option<(usize, usize)> {
        (self.pos < self.buf.len()).then(|| (self.pos, self.buf.len() - self.pos))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn at_unknown(&mut self) -> bool {
        self.buf.get(self.pos).is_some_and(|&b| is_ext(b))
    }

    fn unknown(&mut self, ty: &Type, opts: &DecodeOptions) -> Result<Value> {
        unknown::read(self, ty, opts)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn null(&mut self) -> Result<bool> {
        let nil = self.peek()? == NIL;
        self.pos += usize::from(nil);
        Ok(nil)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn string(&mut self) -> Result<Option<(Cow<'a, str>, bool)>> {
        if let Some(n) = self.str_head()? {
            let (s, ascii) = self.text(n)?;
            return Ok(Some((Cow::Borrowed(s), ascii)));
        }
        // go-cty also takes text from a bin.
        let at = self.pos;
        match self.head()? {
            Head::Bin(n) => {
                let (s, ascii) = self.text(n)?;
                Ok(Some((Cow::Borrowed(s), ascii)))
            }
            _ => {
                self.unread(at);
                Ok(None)
            }
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn number(&mut self, max_exponent: u32) -> Result<Option<Number>> {
        let b = self.peek()?;
        // The most common form, without the general dispatch.
        if b <= 0x7f {
            self.pos += 1;
            return Ok(Some(Number::from_i64(i64::from(b))));
        }
        let at = self.pos;
        let head = self.head()?;
        let n = self.number_from(head, at, max_exponent)?;
        if n.is_none() {
            self.unread(at);
        }
        Ok(n)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bool(&mut self) -> Result<Option<bool>> {
        match self.peek()? {
            b @ (0xc2 | 0xc3) => {
                self.pos += 1;
                Ok(Some(b == 0xc3))
            }
            _ => Ok(None),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn begin_array(&mut self) -> Result<Option<(usize, Option<usize>)>> {
        self.begin_counted(|h| match h {
            Head::Array(n) => Some(n),
            _ => None,
        })
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element(&mut self, left: &mut usize) -> Result<bool> {
        let more = *left > 0;
        *left = left.saturating_sub(1);
        Ok(more)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn begin_map(&mut self) -> Result<Option<(usize, Option<usize>)>> {
        self.begin_counted(|h| match h {
            Head::Map(n) => Some(n),
            _ => None,
        })
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key(
        &mut self,
        left: &mut usize,
        expected: Option<&str>,
    ) -> Result<Option<(usize, Key<'a>)>> {
        if !self.next_element(left)? {
            return Ok(None);
        }
        let at = self.pos;
        // go-cty writes attributes sorted, so the key is usually the
        // expected name, which the bytes can be checked against directly.
        if expected.is_some_and(|name| self.skip_key(name)) {
            return Ok(Some((at, Key::Expected)));
        }
        match self.head()? {
            Head::Str(n) | Head::Bin(n) => {
                let (k, ascii) = self.text(n)?;
                Ok(Some((at, Key::Text(k.into(), ascii))))
            }
            _ => Err(Error::data("a key must be a string").at_offset(at)),
        }
    }

    /// `[type JSON, value]`: a two-element array whose first element is the
    /// type JSON as bin (or str). A null of unknown type was read as null.
    #[inline]
    fn begin_dynamic(&mut self, _depth_left: usize) -> Result<Option<DynamicStart<'a, ()>>> {
        let at = self.pos;
        match self.head()? {
            Head::Array(2) => {}
            Head::Array(_) => {
                return Err(Error::data(
                    "a dynamic value must be a [type, value] array of two elements",
                )
                .at_offset(at))
            }
            _ => {
                return Err(
                    Error::data("a dynamic value must be a [type, value] array").at_offset(at)
                )
            }
        }
        let tat = self.pos;
        let type_json = match self.head()? {
            Head::Bin(n) | Head::Str(n) => self.take(n as usize)?,
            _ => {
                return Err(
                    Error::data("the type of a dynamic value must be JSON text").at_offset(tat)
                )
            }
        };
        Ok(Some((tat, type_json, ())))
    }

    #[inline]
    fn end_dynamic(&mut self, _: ()) -> Result<()> {
        Ok(())
    }
}
