//! Any `:authority` a client sends is accepted, as grpc-go accepts it.
//!
//! h2 resets a request stream (PROTOCOL_ERROR) whose `:authority` the
//! `http` crate cannot parse as a URI authority, and neither h2 nor tonic
//! can be told otherwise. grpcio, on its default settings, names a unix
//! socket target `unix:/tmp/x/provider.sock` by its percent-encoded path
//! (`tmp%2Fx%2Fprovider.sock`) and sends that: every one of its calls was
//! refused. Nothing on the server reads the authority (gRPC routes by
//! `:path`), so such an `:authority` is dropped on its way to h2: RFC 9113
//! (8.3.1) lets a request go without one, and h2 then serves it as it
//! serves any other. Dropping says nothing untrue, where a stand-in host
//! would be a name the client never sent.
//!
//! [`AuthorityFilter`] does this on the client-to-server bytes, between the
//! socket (or TLS) and h2: it follows the frames, decodes each header block
//! with HPACK (keeping the client's dynamic table in step, as h2's decoder
//! does), and passes every block on byte for byte — Terraform's requests
//! never carry such an authority, so its connections reach h2 unchanged —
//! until a block has an authority h2 would refuse. That block, and every
//! later block of the connection, is re-encoded without dynamic-table
//! indexing: once one block differs, h2's table no longer mirrors the
//! client's, so no later block may be passed on as it came.
//!
//! Input h2 would refuse anyway (a wrong preface, a frame out of place, an
//! oversized frame or block, an HPACK error) is passed on unchanged and the
//! connection is no longer inspected, so h2 answers it as it always did;
//! after a rewrite that is no longer possible, and the connection is closed
//! instead.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::huffman;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const FRAME_HEADER_LEN: usize = 9;
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// The largest frame h2 takes: SETTINGS_MAX_FRAME_SIZE's initial value,
/// which the server (tonic as `serve` builds it) never raises. A larger
/// header frame is an error h2 answers; re-encoded blocks are cut to it.
const MAX_FRAME_SIZE: usize = 16_384;
/// SETTINGS_HEADER_TABLE_SIZE's initial value, which h2 keeps: the largest
/// dynamic table a client may ask for.
const HEADER_TABLE_SIZE: usize = 4_096;
/// The most a header block may take here, as received (its frames) and as
/// re-encoded. hyper has h2 refuse a header list over 16 KiB; this leaves
/// room for encodings larger than the list they carry, so whatever h2 would
/// take, and more, is passed on for h2 to decide.
pub const MAX_HEADER_BLOCK: usize = 64 * 1024;

/// Why a connection is closed: its input can no longer be passed on after
/// a rewrite (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed(&'static str);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP/2 input from the client: {}", self.0)
    }
}

impl std::error::Error for Malformed {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Blocks are decoded and passed on as they came.
    Inspect,
    /// A block was re-encoded: every later one is.
    Rewrite,
    /// Input h2 refuses: passed on untouched, no longer read.
    Transparent,
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    /// Reading a frame header.
    Head,
    /// Passing `left` more payload bytes of another frame through.
    Through { left: usize },
    /// Keeping `left` more payload bytes of a header frame.
    Collect { left: usize },
}

/// The header block being received: its frames as they came, and what
/// re-encoding it needs.
#[derive(Default)]
struct Block {
    open: bool,
    stream: u32,
    end_stream: bool,
    priority: Option<[u8; 5]>,
    /// The frames, headers and payloads, as received.
    raw: Vec<u8>,
    /// Where the current frame's payload starts in `raw`, and its type
    /// and flags.
    payload_start: usize,
    kind: u8,
    flags: u8,
    /// The header block fragments, joined.
    fragment: Vec<u8>,
}

/// The client-to-server half of an HTTP/2 connection, `:authority` values
/// h2 would refuse taken out (see the module documentation). Sans-IO:
/// [`push`](Self::push) the bytes as they arrive, and give h2 what it
/// appends; [`finish`](Self::finish) at the end of the input.
pub struct AuthorityFilter {
    mode: Mode,
    rewrote: bool,
    preface_seen: usize,
    frame: Frame,
    head: [u8; FRAME_HEADER_LEN],
    head_len: usize,
    block: Block,
    decoder: loona_hpack::Decoder<'static>,
    /// The current block with its Huffman strings made raw; reused.
    raw_strings: Vec<u8>,
    /// The current block re-encoded; reused.
    encoded: Vec<u8>,
}

impl Default for AuthorityFilter {
    fn default() -> Self {
        let mut decoder = loona_hpack::Decoder::new();
        decoder.set_max_allowed_table_size(HEADER_TABLE_SIZE);
        AuthorityFilter {
            mode: Mode::Inspect,
            rewrote: false,
            preface_seen: 0,
            frame: Frame::Head,
            head: [0; FRAME_HEADER_LEN],
            head_len: 0,
            block: Block::default(),
            decoder,
            raw_strings: Vec::new(),
            encoded: Vec::new(),
        }
    }
}

impl AuthorityFilter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a block has been re-encoded: until then, the output is the
    /// input, byte for byte.
    pub fn rewrote(&self) -> bool {
        self.rewrote
    }

    /// Takes the next bytes from the client and appends to `out` what h2
    /// is to read. An error means the connection must be closed.
    pub fn push(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), Malformed> {
        while !input.is_empty() {
            if self.mode == Mode::Transparent {
                out.extend_from_slice(input);
                return Ok(());
            }
            if self.preface_seen < PREFACE.len() {
                let want = &PREFACE[self.preface_seen..];
                let n = want.len().min(input.len());
                if input[..n] != want[..n] {
                    out.extend_from_slice(&PREFACE[..self.preface_seen]);
                    self.preface_seen = 0;
                    self.mode = Mode::Transparent;
                    continue;
                }
                self.preface_seen += n;
                input = &input[n..];
                if self.preface_seen == PREFACE.len() {
                    out.extend_from_slice(PREFACE);
                }
                continue;
            }
            match self.frame {
                Frame::Head => {
                    let n = (FRAME_HEADER_LEN - self.head_len).min(input.len());
                    self.head[self.head_len..self.head_len + n].copy_from_slice(&input[..n]);
                    self.head_len += n;
                    input = &input[n..];
                    if self.head_len == FRAME_HEADER_LEN {
                        self.head_len = 0;
                        self.on_frame_header(out)?;
                    }
                }
                Frame::Through { left } => {
                    let n = left.min(input.len());
                    out.extend_from_slice(&input[..n]);
                    input = &input[n..];
                    self.frame = if left == n {
                        Frame::Head
                    } else {
                        Frame::Through { left: left - n }
                    };
                }
                Frame::Collect { left } => {
                    let n = left.min(input.len());
                    self.block.raw.extend_from_slice(&input[..n]);
                    input = &input[n..];
                    if left == n {
                        self.on_header_frame(out)?;
                    } else {
                        self.frame = Frame::Collect { left: left - n };
                    }
                }
            }
        }
        Ok(())
    }

    /// The input has ended: whatever is held back is passed on as it came
    /// (an incomplete frame, which h2 refuses as it always did).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.preface_seen < PREFACE.len() {
            out.extend_from_slice(&PREFACE[..self.preface_seen]);
            self.preface_seen = PREFACE.len();
        }
        out.append(&mut self.block.raw);
        out.extend_from_slice(&self.head[..self.head_len]);
        self.head_len = 0;
        self.block.open = false;
        self.mode = Mode::Transparent;
    }

    /// Input h2 refuses: passed on as it came (what is held back in
    /// `block.raw`, then the rest), unless a block was re-encoded.
    fn give_up(&mut self, out: &mut Vec<u8>, why: &'static str) -> Result<(), Malformed> {
        if self.mode == Mode::Rewrite {
            return Err(Malformed(why));
        }
        out.append(&mut self.block.raw);
        self.block.open = false;
        self.mode = Mode::Transparent;
        Ok(())
    }

    fn on_frame_header(&mut self, out: &mut Vec<u8>) -> Result<(), Malformed> {
        let h = self.head;
        let len = usize::from(h[0]) << 16 | usize::from(h[1]) << 8 | usize::from(h[2]);
        let (kind, flags) = (h[3], h[4]);
        let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
        let header_frame = if self.block.open {
            if kind != CONTINUATION || stream != self.block.stream {
                self.block.raw.extend_from_slice(&h);
                return self.give_up(out, "a header block interrupted");
            }
            true
        } else {
            match kind {
                HEADERS => true,
                CONTINUATION => {
                    self.block.raw.extend_from_slice(&h);
                    return self.give_up(out, "CONTINUATION outside a header block");
                }
                _ => false,
            }
        };
        if !header_frame {
            out.extend_from_slice(&h);
            self.frame = if len == 0 {
                Frame::Head
            } else {
                Frame::Through { left: len }
            };
            return Ok(());
        }
        if len > MAX_FRAME_SIZE || self.block.raw.len() + FRAME_HEADER_LEN + len > MAX_HEADER_BLOCK
        {
            self.block.raw.extend_from_slice(&h);
            let why = "a header frame or block larger than h2 takes";
            self.give_up(out, why)?;
            // The rest of the frame follows, passed through.
            return Ok(());
        }
        if !self.block.open {
            self.block.open = true;
            self.block.stream = stream;
            self.block.end_stream = flags & END_STREAM != 0;
            self.block.priority = None;
            self.block.fragment.clear();
        }
        self.block.raw.extend_from_slice(&h);
        self.block.payload_start = self.block.raw.len();
        self.block.kind = kind;
        self.block.flags = flags;
        if len == 0 {
            self.on_header_frame(out)
        } else {
            self.frame = Frame::Collect { left: len };
            Ok(())
        }
    }

    /// A HEADERS or CONTINUATION frame's payload is all here.
    fn on_header_frame(&mut self, out: &mut Vec<u8>) -> Result<(), Malformed> {
        self.frame = Frame::Head;
        let b = &mut self.block;
        let payload = &b.raw[b.payload_start..];
        let mut start = 0;
        let mut pad = 0;
        if b.kind == HEADERS {
            if b.flags & PADDED != 0 {
                let Some(&p) = payload.first() else {
                    return self.give_up(out, "a PADDED frame without its pad length");
                };
                pad = usize::from(p);
                start = 1;
            }
            if b.flags & PRIORITY != 0 {
                let Some(p) = payload.get(start..start + 5) else {
                    return self.give_up(out, "a PRIORITY frame without its priority");
                };
                let mut priority = [0; 5];
                priority.copy_from_slice(p);
                b.priority = Some(priority);
                start += 5;
            }
        }
        let Some(fragment) = payload
            .len()
            .checked_sub(pad)
            .and_then(|end| payload.get(start..end))
        else {
            return self.give_up(out, "padding longer than its frame");
        };
        b.fragment.extend_from_slice(fragment);
        if b.flags & END_HEADERS != 0 {
            self.on_block(out)?;
        }
        Ok(())
    }

    /// A whole header block is here: decoded, and passed on or re-encoded.
    fn on_block(&mut self, out: &mut Vec<u8>) -> Result<(), Malformed> {
        self.block.open = false;
        self.encoded.clear();
        let first_rewrite = self.mode == Mode::Inspect;
        if first_rewrite {
            // Empties h2's dynamic table, which is no longer referred to.
            self.encoded.push(0x20);
        }
        let mut refused_authority = false;
        let mut too_big = false;
        if huffman::raw_strings(&self.block.fragment, &mut self.raw_strings).is_err() {
            return self.give_up(out, "a header block HPACK cannot decode");
        }
        let encoded = &mut self.encoded;
        let decoded = self
            .decoder
            .decode_with_cb(&self.raw_strings, |name, value| {
                if &name[..] == b":authority" && http::uri::Authority::try_from(&value[..]).is_err()
                {
                    refused_authority = true;
                    return;
                }
                if too_big || encoded.len() + name.len() + value.len() + 12 > MAX_HEADER_BLOCK {
                    too_big = true;
                    return;
                }
                literal(encoded, &name, &value);
            });
        if decoded.is_err() {
            return self.give_up(out, "a header block HPACK cannot decode");
        }
        if self.mode == Mode::Inspect && !refused_authority {
            out.append(&mut self.block.raw);
            return Ok(());
        }
        if too_big {
            // Before a rewrite, passed on for h2 to refuse as it did.
            return self.give_up(out, "a header block larger than h2 takes");
        }
        self.mode = Mode::Rewrite;
        self.rewrote = true;
        self.block.raw.clear();
        self.write_frames(out);
        Ok(())
    }

    /// The re-encoded block as a HEADERS frame and as many CONTINUATION
    /// frames as it takes.
    fn write_frames(&self, out: &mut Vec<u8>) {
        let b = &self.block;
        let priority = b.priority.as_ref().map_or(&[][..], |p| &p[..]);
        let first_room = MAX_FRAME_SIZE - priority.len();
        let (first, mut rest) = self.encoded.split_at(first_room.min(self.encoded.len()));
        let mut flags = 0;
        if b.end_stream {
            flags |= END_STREAM;
        }
        if b.priority.is_some() {
            flags |= PRIORITY;
        }
        if rest.is_empty() {
            flags |= END_HEADERS;
        }
        frame_header(out, priority.len() + first.len(), HEADERS, flags, b.stream);
        out.extend_from_slice(priority);
        out.extend_from_slice(first);
        while !rest.is_empty() {
            let (chunk, more) = rest.split_at(MAX_FRAME_SIZE.min(rest.len()));
            let flags = if more.is_empty() { END_HEADERS } else { 0 };
            frame_header(out, chunk.len(), CONTINUATION, flags, b.stream);
            out.extend_from_slice(chunk);
            rest = more;
        }
    }
}

fn frame_header(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) {
    // `len` is at most MAX_FRAME_SIZE: three bytes hold it.
    let len = len.to_be_bytes();
    out.extend_from_slice(&len[len.len() - 3..]);
    out.extend_from_slice(&[kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
}

/// A field as a literal without indexing, its name a literal too (RFC 7541
/// 6.2.2): h2's dynamic table is neither read nor changed.
fn literal(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0);
    for s in [name, value] {
        // Strings are raw (no Huffman), length with a 7-bit prefix.
        let _ = loona_hpack::encoder::encode_integer_into(s.len(), 7, 0, out);
        out.extend_from_slice(s);
    }
}

/// A connection whose client-to-server bytes go through an
/// [`AuthorityFilter`]; the server's bytes go out untouched.
pub struct AuthorityConn<T> {
    inner: T,
    filter: AuthorityFilter,
    /// Filtered bytes not yet read by h2, from `pos`.
    out: Vec<u8>,
    pos: usize,
    eof: bool,
    scratch: Box<[u8]>,
}

impl<T> AuthorityConn<T> {
    pub fn new(inner: T) -> Self {
        AuthorityConn {
            inner,
            filter: AuthorityFilter::new(),
            out: Vec::new(),
            pos: 0,
            eof: false,
            scratch: vec![0; 16 * 1024].into_boxed_slice(),
        }
    }

    pub fn get_ref(&self) -> &T {
        &self.inner
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for AuthorityConn<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.pos < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.pos);
                buf.put_slice(&this.out[this.pos..this.pos + n]);
                this.pos += n;
                if this.pos == this.out.len() {
                    this.out.clear();
                    this.pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof || buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            let mut scratch = ReadBuf::new(&mut this.scratch);
            match Pin::new(&mut this.inner).poll_read(cx, &mut scratch) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {}
            }
            let read = scratch.filled();
            if read.is_empty() {
                this.eof = true;
                this.filter.finish(&mut this.out);
            } else if let Err(e) = this.filter.push(read, &mut this.out) {
                log::warn!("closing a connection: {e}");
                // Nothing more is read from it.
                this.eof = true;
                this.out.clear();
                this.pos = 0;
                return Poll::Ready(Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)));
            }
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for AuthorityConn<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
#[path = "authority_tests.rs"]
mod tests;
