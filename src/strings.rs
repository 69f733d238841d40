//! NFC normalization: every string that becomes a cty string, map key or
//! attribute name is normalized, as go-cty does.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

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
    fn nfd_text_is_composed_and_nfc_text_is_borrowed() {
        assert_eq!(nfc("e\u{301}"), "é");
        assert!(matches!(nfc("plain ascii"), Cow::Borrowed(_)));
        assert!(matches!(nfc("日本語 é"), Cow::Borrowed(_)));
        // The Angstrom sign is not NFC: it becomes Å.
        assert_eq!(nfc("\u{212b}"), "\u{c5}");
        assert_eq!(into_nfc("a\u{30a}".to_string()), "å");
    }
}
