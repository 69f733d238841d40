//! Timeouts: a resource's `timeouts` block (terraform-plugin-framework-timeouts'
//! layout), declared on its model and enforced by the framework.
//!
//! ```
//! use ctywire_provider::timeouts::Timeouts;
//! use ctywire_provider::Model;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Model)]
//! struct Server {
//!     name: String,
//!     /// create may take 20 minutes unless configured otherwise; delete
//!     /// has no timeout unless configured.
//!     #[model(timeouts(create = "20m", delete))]
//!     timeouts: Option<Timeouts>,
//! }
//!
//! let block = Server::block();
//! let timeouts = &block.block("timeouts").unwrap().block;
//! let names: Vec<&str> = timeouts.attributes.iter().map(|a| a.name.as_str()).collect();
//! assert_eq!(names, ["create", "delete"]);
//! assert_eq!(block.check(), Ok(()));
//! ```
//!
//! The framework runs `create`, `read`, `update` and `delete` under the
//! operation's timeout: the duration the configuration gives (the planned
//! state's for create and update, the prior state's for read and delete),
//! else the declared default, else none. An operation that outlives it is
//! cancelled (its future dropped at its next `.await`) and answered with
//! an error naming the operation and the duration, at
//! `timeouts.<operation>`. A duration that does not parse is refused when
//! the configuration is validated, at its attribute.
//!
//! Only a block the model declared (its attributes marked
//! [`timed`](crate::schema::Attribute::timed)) is enforced: a runtime
//! schema's own block named `timeouts` is the provider's to read.
//!
//! While an operation runs under a timeout, [`Context::deadline`] says
//! when it ends. Cancelling a create part-way can leave an object that
//! exists remotely but that Terraform does not know of (its state is
//! never answered): a create that may run long should watch the deadline,
//! stop a little before it and return the object as it stands (with an
//! error diagnostic, so Terraform keeps it, tainted, and destroys or
//! replaces it next time) rather than be cancelled.
//!
//! [`Context::deadline`]: crate::Context::deadline

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use ctywire::{Path, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

pub use ctywire_model::timeouts::{parse_duration, Timeouts, OPERATIONS};

use ctywire_model::timeouts::INVALID_DURATION;
#[doc(hidden)]
pub use ctywire_model::timeouts::{declare, TimeoutsField};

use crate::schema::Block;

/// The name Terraform's providers give the block.
const BLOCK: &str = "timeouts";

/// An operation's timeout, and how to name it.
pub(crate) struct Limit {
    /// When the operation must be done: `None` when the duration reaches
    /// past what an `Instant` can hold (then it never times out).
    deadline: Option<Instant>,
    /// As configured, or the default written as a duration.
    shown: String,
    configured: bool,
}

/// The timeout of `operation` on the object `state` (its planned or prior
/// state) of a resource of `block`: `None` when the resource declares no
/// timeout for it, or neither configures one nor gives a default.
pub(crate) fn limit(
    block: &Block,
    operation: &str,
    state: &Value,
) -> Result<Option<Limit>, Diagnostics> {
    let body = match (block.block(BLOCK), block.attribute(BLOCK)) {
        (Some(nb), _) => &nb.block,
        (None, Some(a)) => match &a.nested {
            Some(n) => &n.block,
            None => return Ok(None),
        },
        (None, None) => return Ok(None),
    };
    // Only a block the model declared is the framework's to enforce.
    let Some(attr) = body.attribute(operation).filter(|a| a.timed) else {
        return Ok(None);
    };
    let configured = state
        .attr(BLOCK)
        .and_then(|t| t.attr(operation))
        .and_then(Value::as_str);
    match configured {
        Some(text) => match parse_duration(text) {
            Ok(duration) => Ok(Some(Limit::starting_now(duration, text.to_string(), true))),
            // Validation refuses it in a configuration; a state written
            // before the rule was can still hold one.
            Err(why) => Err(Diagnostic::error(INVALID_DURATION)
                .with_detail(why)
                .at(Path::root().attr(BLOCK).attr(operation))
                .into()),
        },
        None => Ok(attr
            .timeout_default
            .map(|duration| Limit::starting_now(duration, show(duration), false))),
    }
}

impl Limit {
    /// The timeout of an operation starting now.
    fn starting_now(duration: Duration, shown: String, configured: bool) -> Limit {
        Limit {
            // Go's grammar reaches 2^63 ns; an `Instant` may not.
            deadline: Instant::now().checked_add(duration),
            shown,
            configured,
        }
    }

    /// When the operation must be done, for [`Context::deadline`].
    ///
    /// [`Context::deadline`]: crate::Context::deadline
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
}

/// Runs `call`, the resource's `operation`, within `limit`: past it, the
/// call is dropped (cancelled) and the answer is an error saying so.
pub(crate) async fn within<T>(
    limit: Option<Limit>,
    type_name: &str,
    operation: &str,
    call: impl Future<Output = Result<T, Diagnostics>>,
) -> Result<T, Diagnostics> {
    let Some((limit, deadline)) = limit.and_then(|l| l.deadline.map(|d| (l, d))) else {
        return call.await;
    };
    match tokio::time::timeout_at(deadline, call).await {
        Ok(answer) => answer,
        Err(_) => {
            let source = if limit.configured {
                "as configured"
            } else {
                "the resource's default"
            };
            Err(Diagnostic::error(format!("{type_name} {operation} timed out"))
                .with_detail(format!(
                    "The {operation} of {type_name} did not finish within its timeout of {} ({source}), so the provider cancelled it. If it needs longer, set `timeouts {{ {operation} = \"…\" }}` in the resource's configuration.",
                    limit.shown
                ))
                .at(Path::root().attr(BLOCK).attr(operation))
                .into())
        }
    }
}

/// A duration as it is written in a configuration: `1h30m`, `45s`,
/// `200ms`.
fn show(d: Duration) -> String {
    if d.subsec_nanos() != 0 {
        // Not whole seconds: Rust's own form (`1.5s`, `200ms`) reads as
        // Go's does.
        return format!("{d:?}");
    }
    let s = d.as_secs();
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_shown_as_configurations_write_them() {
        assert_eq!(show(Duration::from_secs(5400)), "1h30m");
        assert_eq!(show(Duration::from_secs(1200)), "20m");
        assert_eq!(show(Duration::from_secs(45)), "45s");
        assert_eq!(show(Duration::from_millis(200)), "200ms");
        assert_eq!(show(Duration::ZERO), "0s");
    }
}
