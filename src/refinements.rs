//! Refinements: what is already known about an unknown value.
//!
//! Terraform ≥ 1.6 sends unknowns that carry facts: "not null", "a string
//! starting with `web-`", "a number in [0, 10)", "a list of 1 to 5
//! elements". A provider must keep them when it plans, and may use them.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::strings::nfc;
use crate::types::Type;

/// A bound of a number range.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    /// The bound itself.
    pub value: Number,
    /// Whether the bound belongs to the range.
    pub inclusive: bool,
}

/// Facts about an unknown value. Which facts apply depends on the type:
/// `not_null` on any type but `dynamic`, the prefix on strings, the bounds
/// on numbers, the lengths on lists, sets and maps.
///
/// ```
/// use ctywire::{Refinements, Type, Value};
/// let r = Refinements { not_null: true, string_prefix: Some("web-".into()), ..Default::default() };
/// let v = Value::unknown(Type::String).refined(r)?;
/// assert_eq!(v.refinements().unwrap().string_prefix.as_deref(), Some("web-"));
///
/// // A definitely-not-null list of exactly two elements is a known list
/// // of two unknowns, as in go-cty.
/// let r = Refinements { not_null: true, length_min: 2, length_max: Some(2), ..Default::default() };
/// let v = Value::unknown(Type::list(Type::String)).refined(r)?;
/// assert!(v.is_known() && v.elements().unwrap().len() == 2);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refinements {
    /// The value will not be null.
    pub not_null: bool,
    /// Strings: the value will start with this (NFC) text.
    pub string_prefix: Option<String>,
    /// Numbers: the lowest the value can be; `None` for no bound.
    pub lower: Option<Bound>,
    /// Numbers: the highest the value can be; `None` for no bound.
    pub upper: Option<Bound>,
    /// Collections: the fewest elements the value can have.
    pub length_min: u64,
    /// Collections: the most elements the value can have; `None` for no bound.
    pub length_max: Option<u64>,
}

impl Refinements {
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == Refinements::default()
    }

    /// Checks that every fact fits `ty` and that the facts agree with each
    /// other; normalizes the prefix to NFC.
    pub(crate) fn validated(mut self, ty: &Type) -> Result<Refinements> {
        if let Some(p) = &self.string_prefix {
            if *ty != Type::String {
                return Err(Error::data("string prefix refinement for non-string type"));
            }
            if p.is_empty() {
                self.string_prefix = None;
            } else {
                self.string_prefix = Some(nfc(p).into_owned());
            }
        }
        if (self.lower.is_some() || self.upper.is_some()) && *ty != Type::Number {
            return Err(Error::data("numeric bound refinement for non-number type"));
        }
        if (self.length_min != 0 || self.length_max.is_some()) && !ty.is_collection() {
            return Err(Error::data(
                "length bound refinement for non-collection type",
            ));
        }
        if let (Some(lo), Some(hi)) = (&self.lower, &self.upper) {
            let contradicts = match lo.value.numeric_cmp(&hi.value) {
                Ordering::Greater => true,
                Ordering::Equal => !(lo.inclusive && hi.inclusive),
                Ordering::Less => false,
            };
            if contradicts {
                return Err(Error::data(format!(
                    "number lower bound {} is greater than upper bound {}",
                    lo.value, hi.value
                )));
            }
        }
        if let Some(max) = self.length_max {
            if max < self.length_min {
                return Err(Error::data(format!(
                    "collection length upper bound {max} is less than lower bound {}",
                    self.length_min
                )));
            }
        }
        Ok(self)
    }

    /// Tightens the lower bound; a looser one is ignored, as in go-cty.
    pub(crate) fn tighten_lower(&mut self, b: Bound) {
        let replace = match &self.lower {
            None => true,
            Some(cur) => match b.value.numeric_cmp(&cur.value) {
                Ordering::Greater => true,
                Ordering::Equal => !b.inclusive || cur.inclusive,
                Ordering::Less => false,
            },
        };
        if replace {
            self.lower = Some(b);
        }
    }

    /// Tightens the upper bound; a looser one is ignored.
    pub(crate) fn tighten_upper(&mut self, b: Bound) {
        let replace = match &self.upper {
            None => true,
            Some(cur) => match b.value.numeric_cmp(&cur.value) {
                Ordering::Less => true,
                Ordering::Equal => !b.inclusive || cur.inclusive,
                Ordering::Greater => false,
            },
        };
        if replace {
            self.upper = Some(b);
        }
    }

    /// Raises the lowest length; a looser bound is ignored.
    pub(crate) fn tighten_length_min(&mut self, n: u64) {
        self.length_min = self.length_min.max(n);
    }

    /// Lowers the highest length; a looser bound is ignored.
    pub(crate) fn tighten_length_max(&mut self, n: u64) {
        self.length_max = Some(self.length_max.map_or(n, |m| m.min(n)));
    }

    /// Everything `self` and `other` say together: each fact at its
    /// tightest. Two prefixes that disagree are a contradiction.
    pub(crate) fn merge(mut self, other: Refinements) -> Result<Refinements> {
        self.not_null |= other.not_null;
        if let Some(p) = other.string_prefix {
            self.add_prefix(p)?;
        }
        if let Some(l) = other.lower {
            self.tighten_lower(l);
        }
        if let Some(u) = other.upper {
            self.tighten_upper(u);
        }
        self.tighten_length_min(other.length_min);
        if let Some(max) = other.length_max {
            self.tighten_length_max(max);
        }
        Ok(self)
    }

    /// Adds a prefix; a shorter one never replaces a longer one, and two
    /// prefixes that disagree are a contradiction.
    pub(crate) fn add_prefix(&mut self, p: String) -> Result<()> {
        match &self.string_prefix {
            Some(cur) => {
                let common = cur.len().min(p.len());
                if cur.as_bytes()[..common] != p.as_bytes()[..common] {
                    return Err(Error::data(format!(
                        "string prefix refinement {p:?} contradicts {cur:?}"
                    )));
                }
                if p.len() > cur.len() {
                    self.string_prefix = Some(p);
                }
            }
            None => self.string_prefix = Some(p),
        }
        Ok(())
    }
}

/// A prefix that stays a prefix whatever text follows it: go-cty's "safe
/// known prefix", used when the encoder must shorten a prefix. Text that a
/// following character could still change is dropped: a trailing
/// character NFC could compose with a combining mark, and a final grapheme
/// cluster that could be extended, unless it is one plain punctuation mark.
pub(crate) fn safe_prefix(s: &str) -> String {
    use unicode_normalization::char::canonical_combining_class as ccc;
    use unicode_segmentation::UnicodeSegmentation;
    let s = nfc(s);
    let Some(last) = s.chars().last() else {
        return String::new();
    };
    if ccc(last) != 0 || composes_with_a_following_mark(last) {
        // NFC's last boundary is before the last starter.
        if let Some((i, _)) = s.char_indices().rev().find(|&(_, c)| ccc(c) == 0) {
            return s[..i].to_string();
        }
    }
    const PUNCTUATION: &str = "-_:;/\\,.(){}[]|?!~ \t@#$%^&*+\"'";
    let Some((start, cluster)) = s.grapheme_indices(true).next_back() else {
        return String::new();
    };
    let mut chars = cluster.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if PUNCTUATION.contains(c) => s.into_owned(),
        _ => s[..start].to_string(),
    }
}

/// Whether NFC could compose `c` with a combining character after it. The
/// candidates are every character that is the second half of a canonical
/// composition in Unicode.
fn composes_with_a_following_mark(c: char) -> bool {
    const SECOND_HALVES: &[(u32, u32)] = &[
        (0x0300, 0x036f),
        (0x0653, 0x0655),
        (0x093c, 0x093c),
        (0x09be, 0x09be),
        (0x09d7, 0x09d7),
        (0x0b3e, 0x0b3e),
        (0x0b56, 0x0b57),
        (0x0bbe, 0x0bbe),
        (0x0bd7, 0x0bd7),
        (0x0c56, 0x0c56),
        (0x0cc2, 0x0cc2),
        (0x0cd5, 0x0cd6),
        (0x0d3e, 0x0d3e),
        (0x0d57, 0x0d57),
        (0x0dca, 0x0dca),
        (0x0dcf, 0x0dcf),
        (0x0ddf, 0x0ddf),
        (0x102e, 0x102e),
        (0x1161, 0x1175),
        (0x11a8, 0x11c2),
        (0x1b35, 0x1b35),
        (0x3099, 0x309a),
        (0x110ba, 0x110ba),
        (0x11127, 0x11127),
        (0x1133e, 0x1133e),
        (0x11357, 0x11357),
        (0x114b0, 0x114b0),
        (0x114ba, 0x114ba),
        (0x114bd, 0x114bd),
        (0x115af, 0x115af),
        (0x11930, 0x11930),
    ];
    SECOND_HALVES.iter().any(|&(lo, hi)| {
        (lo..=hi).any(|m| {
            char::from_u32(m)
                .and_then(|m| unicode_normalization::char::compose(c, m))
                .is_some()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_prefix_keeps_trailing_punctuation_and_drops_a_final_letter() {
        assert_eq!(safe_prefix("abc"), "ab");
        assert_eq!(safe_prefix("ab:"), "ab:");
        assert_eq!(safe_prefix(""), "");
        assert_eq!(safe_prefix("web-"), "web-");
        assert_eq!(safe_prefix(&"x".repeat(255)), "x".repeat(254));
        // "e" could still take an accent; the cluster before it is kept.
        assert_eq!(safe_prefix("cafe"), "caf");
        assert_eq!(safe_prefix("a\u{1F469}\u{200D}\u{1F52C}"), "a");
    }

    #[test]
    fn contradictory_refinements_are_errors() {
        let r = Refinements {
            lower: Some(Bound {
                value: 5.into(),
                inclusive: true,
            }),
            upper: Some(Bound {
                value: 1.into(),
                inclusive: true,
            }),
            ..Default::default()
        };
        assert!(r.validated(&Type::Number).is_err());
        let r = Refinements {
            length_min: 3,
            length_max: Some(2),
            ..Default::default()
        };
        assert!(r.validated(&Type::list(Type::String)).is_err());
        let r = Refinements {
            string_prefix: Some("x".into()),
            ..Default::default()
        };
        assert!(r.validated(&Type::Number).is_err());
        let mut r = Refinements::default();
        r.add_prefix("ab".into()).unwrap();
        r.add_prefix("a".into()).unwrap();
        assert_eq!(r.string_prefix.as_deref(), Some("ab"));
        assert!(r.add_prefix("ac".into()).is_err());
    }

    #[test]
    fn looser_bounds_never_replace_tighter_ones() {
        let mut r = Refinements::default();
        r.tighten_lower(Bound {
            value: 5.into(),
            inclusive: true,
        });
        r.tighten_lower(Bound {
            value: 1.into(),
            inclusive: true,
        });
        assert_eq!(r.lower.as_ref().unwrap().value, Number::from(5));
        r.tighten_lower(Bound {
            value: 5.into(),
            inclusive: false,
        });
        assert!(!r.lower.as_ref().unwrap().inclusive);
        r.tighten_upper(Bound {
            value: 10.into(),
            inclusive: true,
        });
        r.tighten_upper(Bound {
            value: 20.into(),
            inclusive: true,
        });
        assert_eq!(r.upper.as_ref().unwrap().value, Number::from(10));
    }
}
