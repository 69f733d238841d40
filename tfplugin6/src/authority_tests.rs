//! The filter on hand-built client byte streams. What comes out is read
//! back as h2 reads it: frames joined into blocks, decoded with one HPACK
//! decoder for the whole connection.

use super::*;

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

const BAD: &[u8] = b"tmp%2Fx%2Fprovider.sock";

fn string(out: &mut Vec<u8>, s: &[u8]) {
    let _ = loona_hpack::encoder::encode_integer_into(s.len(), 7, 0, out);
    out.extend_from_slice(s);
}

/// A literal added to the dynamic table, its name a literal.
fn indexing(name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = vec![0x40];
    string(&mut out, name);
    string(&mut out, value);
    out
}

/// A literal added to the dynamic table, its name by index.
fn indexing_name(index: u8, value: &[u8]) -> Vec<u8> {
    let mut out = vec![0x40 | index];
    string(&mut out, value);
    out
}

fn indexed(index: u8) -> Vec<u8> {
    vec![0x80 | index]
}

/// `:method: POST`, `:scheme: http`, `:path`, as grpc clients send them.
fn request_start(path: &[u8]) -> Vec<u8> {
    let mut out = vec![0x83, 0x86];
    out.extend(indexing_name(4, path));
    out
}

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![];
    frame_header(&mut out, payload.len(), kind, flags, stream);
    out.extend_from_slice(payload);
    out
}

fn headers(stream: u32, block: &[u8]) -> Vec<u8> {
    frame(HEADERS, END_HEADERS, stream, block)
}

fn settings() -> Vec<u8> {
    frame(0x4, 0, 0, &[0, 3, 0, 0, 0, 100])
}

fn connection(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = PREFACE.to_vec();
    out.extend(settings());
    for f in frames {
        out.extend_from_slice(f);
    }
    out
}

/// `input` through a filter, pushed in the pieces `cuts` make.
fn filtered(input: &[u8], cuts: &[usize]) -> Result<Vec<u8>, Malformed> {
    let mut filter = AuthorityFilter::new();
    let mut out = vec![];
    let mut from = 0;
    for &c in cuts.iter().chain([&input.len()]) {
        filter.push(&input[from..c], &mut out)?;
        from = c;
    }
    filter.finish(&mut out);
    Ok(out)
}

/// The header lists h2 reads from `bytes`, and whether every frame is
/// within the largest h2 takes.
fn read_as_h2(bytes: &[u8]) -> Vec<Fields> {
    assert!(bytes.starts_with(PREFACE));
    let mut rest = &bytes[PREFACE.len()..];
    let mut decoder = loona_hpack::Decoder::new();
    let mut blocks = vec![];
    let mut block = vec![];
    while !rest.is_empty() {
        let len = usize::from(rest[0]) << 16 | usize::from(rest[1]) << 8 | usize::from(rest[2]);
        assert!(len <= MAX_FRAME_SIZE, "a frame of {len} bytes");
        let (kind, flags) = (rest[3], rest[4]);
        let mut payload = &rest[9..9 + len];
        rest = &rest[9 + len..];
        if kind == HEADERS {
            if flags & PADDED != 0 {
                let pad = usize::from(payload[0]);
                payload = &payload[1..payload.len() - pad];
            }
            if flags & PRIORITY != 0 {
                payload = &payload[5..];
            }
        } else if kind != CONTINUATION {
            continue;
        }
        block.extend_from_slice(payload);
        if flags & END_HEADERS != 0 {
            blocks.push(decoder.decode(&block).unwrap());
            block.clear();
        }
    }
    blocks
}

fn fields(list: &[(&str, &str)]) -> Fields {
    list.iter()
        .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect()
}

/// What [`request_start`] stands for.
fn started(path: &str) -> Fields {
    fields(&[(":method", "POST"), (":scheme", "http"), (":path", path)])
}

/// Every way of cutting `input` in two (every so many bytes, for a long
/// one), and byte by byte.
fn every_cut(input: &[u8]) -> impl Iterator<Item = Vec<usize>> {
    let step = (input.len() / 500).max(1);
    (0..=input.len())
        .step_by(step)
        .map(|i| vec![i])
        .chain([(1..input.len()).collect()])
}

/// `input` comes out as it went in, however it is cut.
fn passes_byte_for_byte(input: &[u8]) {
    for cuts in every_cut(input) {
        assert_eq!(filtered(input, &cuts).unwrap(), input, "cut at {cuts:?}");
    }
}

#[test]
fn a_connection_without_a_refused_authority_passes_byte_for_byte() {
    let mut first = request_start(b"/tfplugin6.Provider/GetMetadata");
    first.extend(indexing_name(1, b"localhost"));
    first.extend(indexing(b"te", b"trailers"));
    // The second request refers to the first's entries.
    let mut second = request_start(b"/tfplugin6.Provider/GetProviderSchema");
    second.extend([0x80 | 63, 0x80 | 63]);
    let input = connection(&[
        headers(1, &first),
        frame(0x0, END_STREAM, 1, b"\0\0\0\0\0"),
        headers(3, &second),
        frame(0x0, END_STREAM, 3, b"\0\0\0\0\0"),
    ]);
    passes_byte_for_byte(&input);
}

#[test]
fn a_percent_encoded_authority_is_dropped_and_every_other_field_kept() {
    let mut block = request_start(b"/tfplugin6.Provider/GetMetadata");
    block.extend(indexing_name(1, BAD));
    block.extend(indexing(b"te", b"trailers"));
    let input = connection(&[headers(1, &block)]);
    for cuts in every_cut(&input) {
        let out = filtered(&input, &cuts).unwrap();
        assert_eq!(
            read_as_h2(&out),
            [[
                started("/tfplugin6.Provider/GetMetadata"),
                fields(&[("te", "trailers")])
            ]
            .concat()],
            "cut at {cuts:?}"
        );
    }
}

#[test]
fn blocks_after_a_rewrite_are_reencoded_with_the_clients_table_resolved() {
    // Before: passed on as it came, its entries in both tables.
    let mut first = request_start(b"/a");
    first.extend(indexing(b"x-one", b"1"));
    // The refused authority, and an entry added to the client's table
    // that h2's never gets.
    let mut second = indexed(62 + 1); // :path /a (the first's second entry)
    second.extend(indexing_name(1, BAD));
    second.extend(indexing(b"x-two", b"2"));
    // After: references to entries from both sides of the rewrite.
    let mut third = indexed(62); // x-two
    third.extend(indexed(62 + 2)); // x-one
    third.extend(indexed(62 + 1)); // the refused authority, again
    let input = connection(&[headers(1, &first), headers(3, &second), headers(5, &third)]);
    let expected = [
        fields(&[
            (":method", "POST"),
            (":scheme", "http"),
            (":path", "/a"),
            ("x-one", "1"),
        ]),
        fields(&[(":path", "/a"), ("x-two", "2")]),
        fields(&[("x-two", "2"), ("x-one", "1")]),
    ];
    for cuts in every_cut(&input) {
        let out = filtered(&input, &cuts).unwrap();
        assert_eq!(read_as_h2(&out), expected, "cut at {cuts:?}");
        // The first block came through byte for byte.
        let unchanged = PREFACE.len() + settings().len() + headers(1, &first).len();
        assert_eq!(out[..unchanged], input[..unchanged]);
    }
}

#[test]
fn padding_priority_and_continuation_frames_are_read() {
    let mut block = request_start(b"/tfplugin6.Provider/GetMetadata");
    block.extend(indexing_name(1, BAD));
    let (a, b) = block.split_at(5);
    let mut payload = vec![3]; // pad length
    payload.extend([0, 0, 0, 0, 16]); // priority: stream 0, weight 16
    payload.extend(a);
    payload.extend([0; 3]);
    let input = connection(&[
        frame(HEADERS, PADDED | PRIORITY | END_STREAM, 1, &payload),
        frame(CONTINUATION, 0, 1, &b[..2]),
        frame(CONTINUATION, END_HEADERS, 1, &b[2..]),
    ]);
    for cuts in every_cut(&input) {
        let out = filtered(&input, &cuts).unwrap();
        assert_eq!(
            read_as_h2(&out),
            [started("/tfplugin6.Provider/GetMetadata")],
            "cut at {cuts:?}"
        );
        // The stream's end and its priority are kept.
        let head = &out[PREFACE.len() + settings().len()..];
        assert_eq!(head[3], HEADERS);
        assert_eq!(head[4], END_STREAM | PRIORITY | END_HEADERS);
        assert_eq!(head[9..14], [0, 0, 0, 0, 16]);
    }
}

#[test]
fn size_updates_are_followed_across_a_rewrite() {
    let mut first = request_start(b"/a");
    first.extend(indexing(b"x-one", b"1"));
    // The table emptied (size 0), then back to 4096: x-one is gone, and
    // x-two is the only dynamic entry.
    let mut second = vec![0x20, 0x3f, 0xe1, 0x1f];
    second.extend(indexing_name(1, BAD));
    second.extend(indexing(b"x-two", b"2"));
    // 62 is x-two, 63 the authority: only the refused authority, dropped.
    let third = indexed(63);
    let input = connection(&[headers(1, &first), headers(3, &second), headers(5, &third)]);
    let out = filtered(&input, &[]).unwrap();
    assert_eq!(
        read_as_h2(&out),
        [
            fields(&[
                (":method", "POST"),
                (":scheme", "http"),
                (":path", "/a"),
                ("x-one", "1")
            ]),
            fields(&[("x-two", "2")]),
            vec![],
        ]
    );
    // A size update over h2's table size is an HPACK error: after a
    // rewrite, the connection is closed.
    let mut over = vec![0x3f, 0xe2, 0x1f]; // 4097
    over.extend(indexed(2));
    let input = connection(&[headers(1, &second), headers(3, &over)]);
    assert_eq!(
        filtered(&input, &[]),
        Err(Malformed("a header block HPACK cannot decode"))
    );
}

#[test]
fn a_reencoded_block_larger_than_a_frame_is_cut_into_continuations() {
    let big = vec![b'v'; 40_000];
    let mut block = request_start(b"/a");
    block.extend(indexing_name(1, BAD));
    block.push(0);
    string(&mut block, b"x-big");
    string(&mut block, &big);
    let mut frames = vec![];
    let chunks: Vec<_> = block.chunks(MAX_FRAME_SIZE).collect();
    for (i, c) in chunks.iter().enumerate() {
        let kind = if i == 0 { HEADERS } else { CONTINUATION };
        let flags = if i + 1 == chunks.len() {
            END_HEADERS
        } else {
            0
        };
        frames.push(frame(kind, flags, 1, c));
    }
    let out = filtered(&connection(&frames), &[]).unwrap();
    let mut expected = fields(&[(":method", "POST"), (":scheme", "http"), (":path", "/a")]);
    expected.push((b"x-big".to_vec(), big));
    assert_eq!(read_as_h2(&out), [expected]);
}

#[test]
fn input_h2_refuses_passes_through_as_it_came() {
    let mut bad = request_start(b"/a");
    bad.extend(indexing_name(1, BAD));
    let streams = [
        // Not HTTP/2 at all.
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        // A header block interrupted by another frame, then one to rewrite.
        connection(&[
            frame(HEADERS, 0, 1, &bad[..2]),
            settings(),
            headers(3, &bad),
        ]),
        // A CONTINUATION of nothing.
        connection(&[frame(CONTINUATION, END_HEADERS, 1, &bad)]),
        // A header frame over the frame size.
        connection(&[
            headers(1, &vec![0x82; MAX_FRAME_SIZE + 1]),
            headers(3, &bad),
        ]),
        // Padding longer than the frame.
        connection(&[frame(HEADERS, PADDED | END_HEADERS, 1, &[200, 0x82])]),
        // HPACK that does not decode (an index past both tables).
        connection(&[headers(1, &[0xff, 0x7f]), headers(3, &bad)]),
        // Cut short in a header frame.
        connection(&[headers(1, &bad)])[..60].to_vec(),
    ];
    for input in streams {
        passes_byte_for_byte(&input);
    }
}

#[test]
fn a_header_block_over_the_limit_closes_the_connection_only_after_a_rewrite() {
    let mut bad = request_start(b"/a");
    bad.extend(indexing_name(1, BAD));
    bad.extend(indexing(b"x-big", &[b'v'; 4000]));
    // Small as sent, each reference to x-big is 4 KB as a literal.
    let many = vec![0x80 | 62; 20];
    let input = connection(&[headers(1, &bad), headers(3, &many)]);
    assert_eq!(
        filtered(&input, &[]),
        Err(Malformed("a header block larger than h2 takes"))
    );
    // Before a rewrite, the same block is passed on for h2 to refuse.
    let mut big = indexing(b"x-big", &[b'v'; 4000]);
    big.extend(&many);
    big.extend(indexing_name(1, BAD));
    let input = connection(&[headers(1, &big)]);
    assert_eq!(filtered(&input, &[]).unwrap(), input);
}
