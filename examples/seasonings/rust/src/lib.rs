//! What both example plugins share.

/// A text as a slug: its lower-case letters and digits, in runs, joined
/// by `sep` (Python's `sep.join(re.findall(r"[a-z0-9]+", text.lower()))`).
pub fn slugify(text: &str, sep: &str) -> String {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| !w.is_empty())
        .collect();
    words.join(sep)
}
