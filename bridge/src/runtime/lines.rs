//! Newline-delimited reading with a bound: a line longer than the limit
//! is skipped as it streams past, never held whole.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What one read found.
pub(super) enum Line {
    /// A line, without its newline.
    Text(Vec<u8>),
    /// A line longer than the limit, skipped; how long it was.
    TooLong(usize),
}

/// Reads the next line of at most `max` bytes; `None` at the end of the
/// stream. A last line without a newline still counts.
pub(super) async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut seen = 0usize;
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            return Ok(match (seen, seen > max) {
                (0, _) => None,
                (n, true) => Some(Line::TooLong(n)),
                (_, false) => Some(Line::Text(line)),
            });
        }
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        seen = seen.saturating_add(chunk.len());
        if seen <= max {
            line.extend_from_slice(chunk);
        } else if !line.is_empty() {
            // Over the limit: let go of what was kept.
            line = Vec::new();
        }
        let used = found.unwrap_or(buf.len());
        r.consume(used);
        if found.is_some() {
            return Ok(Some(if seen > max {
                Line::TooLong(seen)
            } else {
                Line::Text(line)
            }));
        }
    }
}
