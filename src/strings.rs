//! NFC normalization: every string that becomes a cty string, map key or
//! attribute name is normalized, as go-cty does.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Bytes from the wire as text, and whether it is all ASCII (and so
/// already NFC). Most text in provider payloads is short ASCII, where this
/// check is several times cheaper than the general UTF-8 validation.
#[allow(unsafe_code)]
pub(crate) fn text_from_wire(bytes: &[u8]) -> Result<(&str, bool), std::str::Utf8Error> {
    if bytes.is_ascii() {
        // SAFETY: every ASCII byte sequence is valid UTF-8.
        Ok((unsafe { std::str::from_utf8_unchecked(bytes) }, true))
    } else {
        std::str::from_utf8(bytes).map(|s| (s, false))
    }
}

/// Text from the wire as an NFC `CompactString`.
///
/// Inlined into the decoders, with the rare non-ASCII path kept out of
/// line: as a call, its prologue and epilogue were ~25 of the ~60
/// instructions a short ASCII string costs (callgrind, dynamic payload:
/// 8.2M of 33M in `compact_nfc` itself over 315,000 calls).
#[inline(always)]
pub(crate) fn compact_nfc(s: &str, ascii: bool) -> compact_str::CompactString {
    if ascii {
        compact_str::CompactString::new(s)
    } else {
        compact_nfc_unicode(s)
    }
}

#[cold]
#[inline(never)]
fn compact_nfc_unicode(s: &str) -> compact_str::CompactString {
    compact_str::CompactString::from(nfc(s))
}

/// `s` in Normalization Form C. Borrowed when it already is, which is
/// decided without allocating: ASCII is always NFC, and the quick check
/// settles almost everything else.
pub(crate) fn nfc(s: &str) -> Cow<'_, str> {
    if is_nfc_fast(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.nfc().collect())
    }
}

/// Whether `s` is certainly NFC.
#[inline]
pub(crate) fn is_nfc_fast(s: &str) -> bool {
    s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes
}

/// Text read from the input, in NFC: still the input's own text where it
/// already is (nearly always), so that it can be lent on as it is.
#[cfg(feature = "serde")]
#[inline(always)]
pub(crate) fn cow_nfc(s: Cow<'_, str>, ascii: bool) -> Cow<'_, str> {
    if ascii {
        s
    } else {
        cow_nfc_unicode(s)
    }
}

#[cfg(feature = "serde")]
#[cold]
#[inline(never)]
fn cow_nfc_unicode(s: Cow<'_, str>) -> Cow<'_, str> {
    match nfc(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => Cow::Owned(o),
    }
}

/// `s` as an owned NFC string, reusing the allocation when it already is NFC.
pub(crate) fn into_nfc(s: String) -> String {
    if is_nfc_fast(&s) {
        s
    } else {
        s.nfc().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_text_is_checked_with_an_ascii_fast_path() {
        assert_eq!(text_from_wire(b"plain").unwrap(), ("plain", true));
        assert_eq!(text_from_wire("é".as_bytes()).unwrap(), ("é", false));
        assert!(text_from_wire(b"a\xffb").is_err());
        assert_eq!(compact_nfc("e\u{301}", false), "é");
    }

    #[test]
    fn nfd_text_is_composed_and_nfc_text_is_borrowed() {
        assert_eq!(nfc("e\u{301}"), "é");
        assert!(matches!(nfc("plain ascii"), Cow::Borrowed(_)));
        assert!(matches!(nfc("日本語 é"), Cow::Borrowed(_)));
        // The Angstrom sign is not NFC: it becomes Å.
        assert_eq!(nfc("\u{212b}"), "\u{c5}");
        assert_eq!(into_nfc("a\u{30a}".to_string()), "å");
    }
}
