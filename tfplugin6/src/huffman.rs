//! HPACK's Huffman code (RFC 7541 5.2 and Appendix B), decoded ahead of
//! loona-hpack: [`raw_strings`] rewrites a header block with every Huffman
//! string as the raw string it stands for, so that loona-hpack keeps the
//! dynamic table. loona-hpack's own Huffman decoder builds its code table
//! anew for every string (hash maps of all 257 codes), some ten
//! microseconds a string: most of a request's cost here. This one builds
//! its tree once.

use std::sync::OnceLock;

/// Why a block is refused: it does not decode (as h2 would refuse it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

/// Each symbol's code (right-aligned) and length in bits; 256 is EOS.
const CODES: [(u32, u8); 257] = [
    (0x1ff8, 13),
    (0x7fffd8, 23),
    (0xfffffe2, 28),
    (0xfffffe3, 28),
    (0xfffffe4, 28),
    (0xfffffe5, 28),
    (0xfffffe6, 28),
    (0xfffffe7, 28),
    (0xfffffe8, 28),
    (0xffffea, 24),
    (0x3ffffffc, 30),
    (0xfffffe9, 28),
    (0xfffffea, 28),
    (0x3ffffffd, 30),
    (0xfffffeb, 28),
    (0xfffffec, 28),
    (0xfffffed, 28),
    (0xfffffee, 28),
    (0xfffffef, 28),
    (0xffffff0, 28),
    (0xffffff1, 28),
    (0xffffff2, 28),
    (0x3ffffffe, 30),
    (0xffffff3, 28),
    (0xffffff4, 28),
    (0xffffff5, 28),
    (0xffffff6, 28),
    (0xffffff7, 28),
    (0xffffff8, 28),
    (0xffffff9, 28),
    (0xffffffa, 28),
    (0xffffffb, 28),
    (0x14, 6),
    (0x3f8, 10),
    (0x3f9, 10),
    (0xffa, 12),
    (0x1ff9, 13),
    (0x15, 6),
    (0xf8, 8),
    (0x7fa, 11),
    (0x3fa, 10),
    (0x3fb, 10),
    (0xf9, 8),
    (0x7fb, 11),
    (0xfa, 8),
    (0x16, 6),
    (0x17, 6),
    (0x18, 6),
    (0x00, 5),
    (0x01, 5),
    (0x02, 5),
    (0x19, 6),
    (0x1a, 6),
    (0x1b, 6),
    (0x1c, 6),
    (0x1d, 6),
    (0x1e, 6),
    (0x1f, 6),
    (0x5c, 7),
    (0xfb, 8),
    (0x7ffc, 15),
    (0x20, 6),
    (0xffb, 12),
    (0x3fc, 10),
    (0x1ffa, 13),
    (0x21, 6),
    (0x5d, 7),
    (0x5e, 7),
    (0x5f, 7),
    (0x60, 7),
    (0x61, 7),
    (0x62, 7),
    (0x63, 7),
    (0x64, 7),
    (0x65, 7),
    (0x66, 7),
    (0x67, 7),
    (0x68, 7),
    (0x69, 7),
    (0x6a, 7),
    (0x6b, 7),
    (0x6c, 7),
    (0x6d, 7),
    (0x6e, 7),
    (0x6f, 7),
    (0x70, 7),
    (0x71, 7),
    (0x72, 7),
    (0xfc, 8),
    (0x73, 7),
    (0xfd, 8),
    (0x1ffb, 13),
    (0x7fff0, 19),
    (0x1ffc, 13),
    (0x3ffc, 14),
    (0x22, 6),
    (0x7ffd, 15),
    (0x03, 5),
    (0x23, 6),
    (0x04, 5),
    (0x24, 6),
    (0x05, 5),
    (0x25, 6),
    (0x26, 6),
    (0x27, 6),
    (0x06, 5),
    (0x74, 7),
    (0x75, 7),
    (0x28, 6),
    (0x29, 6),
    (0x2a, 6),
    (0x07, 5),
    (0x2b, 6),
    (0x76, 7),
    (0x2c, 6),
    (0x08, 5),
    (0x09, 5),
    (0x2d, 6),
    (0x77, 7),
    (0x78, 7),
    (0x79, 7),
    (0x7a, 7),
    (0x7b, 7),
    (0x7ffe, 15),
    (0x7fc, 11),
    (0x3ffd, 14),
    (0x1ffd, 13),
    (0xffffffc, 28),
    (0xfffe6, 20),
    (0x3fffd2, 22),
    (0xfffe7, 20),
    (0xfffe8, 20),
    (0x3fffd3, 22),
    (0x3fffd4, 22),
    (0x3fffd5, 22),
    (0x7fffd9, 23),
    (0x3fffd6, 22),
    (0x7fffda, 23),
    (0x7fffdb, 23),
    (0x7fffdc, 23),
    (0x7fffdd, 23),
    (0x7fffde, 23),
    (0xffffeb, 24),
    (0x7fffdf, 23),
    (0xffffec, 24),
    (0xffffed, 24),
    (0x3fffd7, 22),
    (0x7fffe0, 23),
    (0xffffee, 24),
    (0x7fffe1, 23),
    (0x7fffe2, 23),
    (0x7fffe3, 23),
    (0x7fffe4, 23),
    (0x1fffdc, 21),
    (0x3fffd8, 22),
    (0x7fffe5, 23),
    (0x3fffd9, 22),
    (0x7fffe6, 23),
    (0x7fffe7, 23),
    (0xffffef, 24),
    (0x3fffda, 22),
    (0x1fffdd, 21),
    (0xfffe9, 20),
    (0x3fffdb, 22),
    (0x3fffdc, 22),
    (0x7fffe8, 23),
    (0x7fffe9, 23),
    (0x1fffde, 21),
    (0x7fffea, 23),
    (0x3fffdd, 22),
    (0x3fffde, 22),
    (0xfffff0, 24),
    (0x1fffdf, 21),
    (0x3fffdf, 22),
    (0x7fffeb, 23),
    (0x7fffec, 23),
    (0x1fffe0, 21),
    (0x1fffe1, 21),
    (0x3fffe0, 22),
    (0x1fffe2, 21),
    (0x7fffed, 23),
    (0x3fffe1, 22),
    (0x7fffee, 23),
    (0x7fffef, 23),
    (0xfffea, 20),
    (0x3fffe2, 22),
    (0x3fffe3, 22),
    (0x3fffe4, 22),
    (0x7ffff0, 23),
    (0x3fffe5, 22),
    (0x3fffe6, 22),
    (0x7ffff1, 23),
    (0x3ffffe0, 26),
    (0x3ffffe1, 26),
    (0xfffeb, 20),
    (0x7fff1, 19),
    (0x3fffe7, 22),
    (0x7ffff2, 23),
    (0x3fffe8, 22),
    (0x1ffffec, 25),
    (0x3ffffe2, 26),
    (0x3ffffe3, 26),
    (0x3ffffe4, 26),
    (0x7ffffde, 27),
    (0x7ffffdf, 27),
    (0x3ffffe5, 26),
    (0xfffff1, 24),
    (0x1ffffed, 25),
    (0x7fff2, 19),
    (0x1fffe3, 21),
    (0x3ffffe6, 26),
    (0x7ffffe0, 27),
    (0x7ffffe1, 27),
    (0x3ffffe7, 26),
    (0x7ffffe2, 27),
    (0xfffff2, 24),
    (0x1fffe4, 21),
    (0x1fffe5, 21),
    (0x3ffffe8, 26),
    (0x3ffffe9, 26),
    (0xffffffd, 28),
    (0x7ffffe3, 27),
    (0x7ffffe4, 27),
    (0x7ffffe5, 27),
    (0xfffec, 20),
    (0xfffff3, 24),
    (0xfffed, 20),
    (0x1fffe6, 21),
    (0x3fffe9, 22),
    (0x1fffe7, 21),
    (0x1fffe8, 21),
    (0x7ffff3, 23),
    (0x3fffea, 22),
    (0x3fffeb, 22),
    (0x1ffffee, 25),
    (0x1ffffef, 25),
    (0xfffff4, 24),
    (0xfffff5, 24),
    (0x3ffffea, 26),
    (0x7ffff4, 23),
    (0x3ffffeb, 26),
    (0x7ffffe6, 27),
    (0x3ffffec, 26),
    (0x3ffffed, 26),
    (0x7ffffe7, 27),
    (0x7ffffe8, 27),
    (0x7ffffe9, 27),
    (0x7ffffea, 27),
    (0x7ffffeb, 27),
    (0xffffffe, 28),
    (0x7ffffec, 27),
    (0x7ffffed, 27),
    (0x7ffffee, 27),
    (0x7ffffef, 27),
    (0x7fffff0, 27),
    (0x3ffffee, 26),
    (0x3fffffff, 30),
];

/// A node's two children: a node's index, or `LEAF | symbol`; 0 (the
/// root, which is no one's child) where there is none.
const LEAF: u16 = 0x8000;

fn tree() -> &'static [[u16; 2]] {
    static TREE: OnceLock<Vec<[u16; 2]>> = OnceLock::new();
    TREE.get_or_init(|| {
        let mut nodes = vec![[0u16; 2]];
        for (symbol, &(code, len)) in CODES.iter().enumerate() {
            let mut node = 0;
            for i in (0..len).rev() {
                let bit = ((code >> i) & 1) as usize;
                if i == 0 {
                    nodes[node][bit] = LEAF | symbol as u16;
                } else {
                    if nodes[node][bit] == 0 {
                        nodes.push([0; 2]);
                        nodes[node][bit] = (nodes.len() - 1) as u16;
                    }
                    node = usize::from(nodes[node][bit]);
                }
            }
        }
        nodes
    })
}

/// `code` decoded onto `out`. Refused as RFC 7541 5.2 says: EOS in the
/// string, or padding longer than 7 bits or not EOS's first bits (ones).
pub fn decode(code: &[u8], out: &mut Vec<u8>) -> Result<(), Invalid> {
    let tree = tree();
    let mut node = 0usize;
    let (mut pending, mut ones) = (0u32, true);
    for &byte in code {
        for i in (0..8).rev() {
            let bit = (byte >> i) & 1;
            let next = tree[node][usize::from(bit)];
            if next & LEAF != 0 {
                let symbol = next & !LEAF;
                let byte = u8::try_from(symbol).map_err(|_| Invalid)?; // 256: EOS
                out.push(byte);
                node = 0;
                pending = 0;
                ones = true;
            } else if next == 0 {
                return Err(Invalid);
            } else {
                node = usize::from(next);
                pending += 1;
                ones &= bit == 1;
            }
        }
    }
    if pending > 7 || !ones {
        return Err(Invalid);
    }
    Ok(())
}

/// An HPACK integer with an `n`-bit prefix at `block[*at]` (RFC 7541 5.1);
/// `at` moves past it. At most 2^28, as loona-hpack reads.
fn integer(block: &[u8], at: &mut usize, n: u8) -> Result<usize, Invalid> {
    let mask = (1u16 << n) as usize - 1;
    let first = *block.get(*at).ok_or(Invalid)?;
    *at += 1;
    let mut value = usize::from(first) & mask;
    if value == mask {
        let mut shift = 0;
        loop {
            let b = *block.get(*at).ok_or(Invalid)?;
            *at += 1;
            value += usize::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
            if shift >= 28 {
                return Err(Invalid);
            }
        }
    }
    Ok(value)
}

/// A string at `block[*at]`, put on `out` raw.
fn string(block: &[u8], at: &mut usize, out: &mut Vec<u8>) -> Result<(), Invalid> {
    let start = *at;
    let huffman = block.get(*at).ok_or(Invalid)? & 0x80 != 0;
    let len = integer(block, at, 7)?;
    let end = at.checked_add(len).ok_or(Invalid)?;
    let bytes = block.get(*at..end).ok_or(Invalid)?;
    if !huffman {
        out.extend_from_slice(&block[start..end]);
        *at = end;
        return Ok(());
    }
    *at = end;
    // The decoded string's length goes first: decoded after it, then moved.
    let mark = out.len();
    decode(bytes, out)?;
    let mut head = [0u8; 8];
    let mut w = &mut head[..];
    let _ = loona_hpack::encoder::encode_integer_into(out.len() - mark, 7, 0, &mut w);
    let written = 8 - w.len();
    out.splice(mark..mark, head[..written].iter().copied());
    Ok(())
}

/// `block` with every Huffman string made raw, onto `out` (cleared): the
/// same fields, in the same representations, for the same table.
pub fn raw_strings(block: &[u8], out: &mut Vec<u8>) -> Result<(), Invalid> {
    out.clear();
    let mut at = 0;
    while let Some(&first) = block.get(at) {
        let (prefix, strings) = match first {
            // Indexed.
            0x80.. => (7, 0),
            // Literal with incremental indexing.
            0x40.. => (6, 1),
            // Dynamic table size update.
            0x20.. => (5, 0),
            // Literal never indexed, or without indexing.
            _ => (4, 1),
        };
        let start = at;
        let index = integer(block, &mut at, prefix)?;
        out.extend_from_slice(&block[start..at]);
        if strings == 1 {
            if index == 0 {
                string(block, &mut at, out)?;
            }
            string(block, &mut at, out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_7541_c_4_1_huffman_strings_are_decoded() {
        // www.example.com, from RFC 7541 C.4.1.
        let code = [
            0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff,
        ];
        let mut out = vec![];
        decode(&code, &mut out).unwrap();
        assert_eq!(out, b"www.example.com");
        // A block with it as the :authority's value, made raw.
        let mut block = vec![0x82, 0x86, 0x84, 0x41, 0x80 | 12];
        block.extend(code);
        raw_strings(&block, &mut out).unwrap();
        let mut raw = vec![0x82, 0x86, 0x84, 0x41, 15];
        raw.extend(b"www.example.com");
        assert_eq!(out, raw);
    }

    #[test]
    fn eos_and_bad_padding_are_refused() {
        let mut out = vec![];
        // EOS: thirty ones.
        assert_eq!(decode(&[0xff, 0xff, 0xff, 0xfc], &mut out), Err(Invalid));
        // 'a' (00011) then padding of zeros.
        assert_eq!(decode(&[0b0001_1000], &mut out), Err(Invalid));
        // 'a' then a whole byte of ones: padding of more than 7 bits.
        assert_eq!(decode(&[0b0001_1111, 0xff], &mut out), Err(Invalid));
        out.clear();
        assert_eq!(decode(&[0b0001_1111], &mut out), Ok(()));
        assert_eq!(out, b"a");
    }

    #[test]
    fn every_symbol_decodes_to_itself() {
        for (symbol, &(code, len)) in CODES.iter().take(256).enumerate() {
            // The code, then ones to the byte's end.
            let pad = (8 - u32::from(len) % 8) % 8;
            let bits = (u64::from(code) << pad) | ((1 << pad) - 1);
            let bytes = (u32::from(len) + pad) / 8;
            let code: Vec<u8> = (0..bytes).rev().map(|i| (bits >> (8 * i)) as u8).collect();
            let mut out = vec![];
            decode(&code, &mut out).unwrap();
            assert_eq!(out, [symbol as u8]);
        }
    }
}
