//! The `timeouts` block: how long each operation on a resource may take,
//! as terraform-plugin-framework-timeouts lays it out (a single nested
//! block, or a single nested attribute, named `timeouts`, with an optional
//! string duration per operation: `create`, `read`, `update`, `delete`).
//!
//! A model declares it with a field `#[model(timeouts(create = "20m",
//! delete = "10m"))] timeouts: Option<Timeouts>`: the operations named
//! are the block's attributes, each with the default it is given (an
//! operation named without one, `timeouts(read)`, has no timeout unless
//! configured). ctywire-provider reads it and cancels an operation that
//! outlives its timeout.

use std::sync::Arc;
use std::time::Duration;

use ctywire::{Type, Value};
use serde::{Deserialize, Serialize};

use ctywire::schema::NestingMode;

use crate::model::{AttributeType, BlockContainer, Model};
use crate::schema::{Attribute, Block, Invalid, Presence, Validator};

/// The operations a `timeouts` block can time, in the order of its
/// attributes.
pub const OPERATIONS: [&str; 4] = ["create", "read", "update", "delete"];

/// The summary of a duration that does not parse, in
/// terraform-plugin-framework-timeouts' words.
#[doc(hidden)]
pub const INVALID_DURATION: &str = "Invalid Attribute Value Time Duration";

/// The values of a `timeouts` block: each operation's configured duration
/// (`"30s"`, `"5m"`, `"1h30m"`), `None` when the configuration leaves it
/// out. Its block has the operations the field declares.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Timeouts {
    /// `create`'s timeout.
    #[serde(default)]
    pub create: Option<String>,
    /// `read`'s timeout.
    #[serde(default)]
    pub read: Option<String>,
    /// `update`'s timeout.
    #[serde(default)]
    pub update: Option<String>,
    /// `delete`'s timeout.
    #[serde(default)]
    pub delete: Option<String>,
}

/// Only the operations configured are written, as a map: a block declares
/// some of the four, and a struct field the block lacks, even one skipped
/// as `None`, is refused by ctywire's serializer (it catches misspelt
/// fields), so every create answering a configured block would fail.
impl Serialize for Timeouts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let set = [&self.create, &self.read, &self.update, &self.delete];
        let mut map = serializer.serialize_map(None)?;
        for (op, value) in OPERATIONS.iter().zip(set) {
            if let Some(value) = value {
                map.serialize_entry(op, value)?;
            }
        }
        map.end()
    }
}

impl Model for Timeouts {
    /// All four operations, with no default; `#[model(timeouts(..))]` keeps
    /// those it names and gives them their defaults.
    fn block() -> Block {
        let attributes = OPERATIONS
            .iter()
            .map(|op| {
                let mut a = Attribute::new(*op, Type::String);
                a.presence = Presence::Optional;
                a.description = format!(
                    "How long {op} may take: a duration such as \"30s\", \"5m\" or \"1h30m\" (units \"ns\", \"us\", \"ms\", \"s\", \"m\", \"h\")."
                );
                a.validators = vec![duration_validator()];
                a
            })
            .collect();
        Block {
            attributes,
            description: "How long each operation may take before it is cancelled.".into(),
            ..Block::default()
        }
    }
}

impl AttributeType for Timeouts {
    fn cty_type() -> Type {
        Timeouts::block().implied_type().unwrap_or(Type::Dynamic)
    }
}

/// A `timeouts` block is a single one; `Option<Timeouts>` makes it
/// optional, as Terraform's providers have it.
impl BlockContainer for Timeouts {
    const NESTING: NestingMode = NestingMode::Group;
    type Element = Self;
}

/// The rule on each duration: one [`parse_duration`] reads, not negative.
fn duration_validator() -> Validator {
    Validator::Custom(Arc::new(|value: &Value| match value.as_str() {
        Some(text) => parse_duration(text).map(|_| ()).map_err(|why| {
            // plugin-framework-timeouts' summary, so tests ported from Go
            // keep matching.
            Invalid::new(INVALID_DURATION, why)
        }),
        None => Ok(()),
    }))
}

/// A duration as Go's `time.ParseDuration` reads it (what Terraform's
/// providers accept in `timeouts`): decimal numbers, each with an optional
/// fraction and a unit (`ns`, `us` or `µs`, `ms`, `s`, `m`, `h`), such as
/// `"300ms"`, `"1.5h"` or `"2h45m"`; `"0"` alone needs no unit. A negative
/// duration is refused (no operation can be given less than none).
///
/// ```
/// use std::time::Duration;
/// use ctywire_model::timeouts::parse_duration;
///
/// assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
/// assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
/// assert!(parse_duration("5 minutes").is_err());
/// assert!(parse_duration("-1s").is_err());
/// // Never a panic, whatever the digits.
/// assert!(parse_duration(&format!("{}.{}h", "9".repeat(30), "9".repeat(30))).is_err());
/// assert!(parse_duration("99999999999999999999999999.9h").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let refuse = |what: &str| {
        Err(format!(
            "{text:?} is not a duration{what}: write decimal numbers, each with an optional fraction and a unit, such as \"30s\", \"5m\" or \"1h30m\" (units: \"ns\", \"us\" or \"µs\", \"ms\", \"s\", \"m\", \"h\")."
        ))
    };
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    if rest.is_empty() {
        return refuse("");
    }
    if negative {
        return refuse(" a timeout can be (it is negative)");
    }
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let whole_end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (whole, after) = rest.split_at(whole_end);
        let (fraction, after) = match after.strip_prefix('.') {
            Some(f) => {
                let end = f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len());
                f.split_at(end)
            }
            None => ("", after),
        };
        if whole.is_empty() && fraction.is_empty() {
            return refuse("");
        }
        let unit_end = after
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_end);
        let nanos: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => return refuse(" (a number without a unit)"),
            _ => return refuse(&format!(" (unknown unit {unit:?})")),
        };
        // Digits beyond what a u128 holds only make the duration too long.
        let too_long =
            || Err::<Duration, String>(format!("{text:?} is longer than a timeout can be."));
        let mut value: u128 = 0;
        for d in whole.bytes() {
            value = match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u128::from(d - b'0')))
            {
                Some(v) => v,
                None => return too_long(),
            };
        }
        let Some(mut part) = value.checked_mul(nanos) else {
            return too_long();
        };
        // The fraction, to the nanosecond (further digits are dropped).
        let mut scale = nanos;
        for d in fraction.bytes() {
            scale /= 10;
            if scale == 0 {
                break;
            }
            part = part.saturating_add(u128::from(d - b'0') * scale);
        }
        total = match total.checked_add(part) {
            Some(t) if t <= u128::from(u64::MAX) => t,
            _ => return too_long(),
        };
        rest = after;
    }
    let total = u64::try_from(total).unwrap_or(u64::MAX);
    Ok(Duration::from_nanos(total))
}

/// The types a `#[model(timeouts(..))]` field may have: the framework
/// reads the block as [`Timeouts`], so a type of the provider's own would
/// be read as something it is not.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `timeouts(..)` field holds `Option<ctywire_provider::timeouts::Timeouts>`, not `{Self}`",
    label = "the framework reads this block as `Timeouts`"
)]
pub trait TimeoutsField {}

impl TimeoutsField for Timeouts {}
impl TimeoutsField for Option<Timeouts> {}

/// What `#[model(timeouts(..))]`'s code calls: keeps the operations the
/// declaration names (`(name, default)`), each with its default, and
/// records a default that is no duration as a defect at `at`.
#[doc(hidden)]
pub fn declare(block: &mut Block, declared: &[(&str, Option<&str>)], at: &str) {
    block
        .attributes
        .retain(|a| declared.iter().any(|(op, _)| *op == a.name));
    for a in &mut block.attributes {
        a.timed = true;
    }
    for (op, default) in declared {
        let Some(default) = default else { continue };
        match parse_duration(default) {
            Ok(d) => {
                if let Some(a) = block.attributes.iter_mut().find(|a| a.name == *op) {
                    a.timeout_default = Some(d);
                }
            }
            Err(why) => block
                .defects
                .push(format!("{at}.{op}: the default timeout {why}")),
        }
    }
}
