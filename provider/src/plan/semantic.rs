//! Semantic equality in the plan (and in apply's and read's answers,
//! [`keep_meaning`]): a configured value that means the same
//! as the prior one (its attribute's [`SemanticEquality`]) is planned as
//! the prior value, which core accepts as a functionally equivalent plan
//! (`assertPlannedValueValid`: the planned value is the prior, both it and
//! the configuration being non-null).
//!
//! Linear by construction: a value is compared through its canonical form,
//! and the elements of a set of nested objects that core's matching rule
//! leaves unpaired are paired by the hash of theirs, each element put in
//! canonical form once.

use std::collections::HashMap;

use ctywire::schema::NestingMode;
use ctywire::Value;

use super::elements::hash_of;
use crate::schema::{Attribute, Block};

/// The planned value of an attribute the configuration sets: the prior
/// value when it means the same (only a known, non-null prior; a null
/// configuration against a prior value is a change), else the
/// configuration's.
pub(super) fn configured<'v>(
    attr: &Attribute,
    prior: Option<&'v Value>,
    config: &'v Value,
) -> &'v Value {
    match (&attr.plan.semantic_equality, prior) {
        (Some(rule), Some(p)) if p != config && rule.same(p, config) => p,
        _ => config,
    }
}

/// An apply's or read's answer `new` with each attribute that means what
/// `before` (the planned state, or the state read) holds put back to
/// `before`'s value, as terraform-plugin-framework does for Create, Update
/// and Read responses: an API that answers "WEB" for the configured
/// "web" is no inconsistent result, and the next plan shows no change.
/// The attributes of the object and of its single nested blocks, each
/// compared once; the elements of collections of blocks and of nested
/// attributes are left as answered (their pairing is the plan's).
pub(crate) fn keep_meaning(block: &Block, before: &Value, mut new: Value) -> Value {
    let object = |v: &Value| v.is_known() && !v.is_null();
    if !object(before) || !object(&new) {
        return new;
    }
    for a in &block.attributes {
        let Some(rule) = &a.plan.semantic_equality else {
            continue;
        };
        let kept = match (before.attr(&a.name), new.attr(&a.name)) {
            (Some(b), Some(n)) if b != n && rule.same(b, n) => b.clone(),
            _ => continue,
        };
        // Of the attribute's own type, into a known object: cannot fail.
        let _ = new.set_attr(&a.name, kept);
    }
    for nb in &block.blocks {
        if !matches!(nb.nesting, NestingMode::Single | NestingMode::Group) {
            continue;
        }
        let kept = match (before.attr(&nb.name), new.attr(&nb.name)) {
            (Some(b), Some(n)) => keep_meaning(&nb.block, b, n.clone()),
            _ => continue,
        };
        let _ = new.set_attr(&nb.name, kept);
    }
    new
}

/// Whether the elements of `block`'s sets can be paired by meaning: its
/// objects are flat (no nested blocks or nested attributes, whose computed
/// parts only core's rule can correlate) and an attribute has a rule.
pub(super) fn pairs_by_meaning(block: &Block) -> bool {
    block.blocks.is_empty()
        && block.attributes.iter().all(|a| a.nested.is_none())
        && block
            .attributes
            .iter()
            .any(|a| a.plan.semantic_equality.is_some())
}

/// Pairs each configured element that core's rule left unpaired
/// (`matches[j]` is `None`) with the first unused prior element it means:
/// the same canonical form in every attribute the configuration owns
/// (not computed), and each optional-and-computed attribute the
/// configuration sets meaning the prior's.
pub(super) fn pair_rest(
    block: &Block,
    prior: &[Value],
    configured: &[Value],
    matches: &mut [Option<usize>],
) {
    let mut used = vec![false; prior.len()];
    for i in matches.iter().flatten() {
        if let Some(u) = used.get_mut(*i) {
            *u = true;
        }
    }
    if matches.iter().all(Option::is_some) || used.iter().all(|&u| u) {
        return;
    }
    // Each unused prior element's key, once, by its hash.
    let mut index: HashMap<u64, Vec<(usize, Value)>> = HashMap::new();
    for (i, p) in prior.iter().enumerate() {
        if !used[i] {
            let key = owned_key(block, p);
            index.entry(hash_of(&key)).or_default().push((i, key));
        }
    }
    for (j, c) in configured.iter().enumerate() {
        if matches.get(j).is_some_and(Option::is_some) {
            continue;
        }
        let key = owned_key(block, c);
        let Some(bucket) = index.get_mut(&hash_of(&key)) else {
            continue;
        };
        let found = bucket.iter().position(|(i, k)| {
            *k == key && prior.get(*i).is_some_and(|p| computed_agree(block, p, c))
        });
        if let Some(at) = found {
            let (i, _) = bucket.swap_remove(at);
            if let Some(m) = matches.get_mut(j) {
                *m = Some(i);
            }
        }
    }
}

/// The attributes of a flat object the configuration owns (required or
/// optional, not computed, not write-only), each in canonical form.
fn owned_key(block: &Block, v: &Value) -> Value {
    Value::object(
        block
            .attributes
            .iter()
            .filter(|a| !a.presence.is_computed() && !a.write_only)
            .map(|a| {
                let av = v
                    .attr(&a.name)
                    .cloned()
                    .unwrap_or(Value::null(a.ty.clone()));
                let av = match &a.plan.semantic_equality {
                    Some(rule) => rule.canonical(&av),
                    None => av,
                };
                (a.name.as_str(), av)
            }),
    )
}

/// Whether each optional-and-computed attribute the configured element
/// sets means what the prior element holds (one it leaves null keeps the
/// prior's, as core's rule has it).
fn computed_agree(block: &Block, prior: &Value, config: &Value) -> bool {
    block
        .attributes
        .iter()
        .filter(|a| a.presence.is_optional() && a.presence.is_computed())
        .all(|a| match (prior.attr(&a.name), config.attr(&a.name)) {
            (_, Some(c)) if c.is_null() => true,
            (Some(p), Some(c)) => match &a.plan.semantic_equality {
                Some(rule) => rule.same(p, c),
                None => p == c,
            },
            _ => false,
        })
}

/// A rule's canonical form, for tests that count how often it is taken.
#[cfg(test)]
pub(super) fn counting(
    rule: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static,
) -> (
    crate::schema::SemanticEquality,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    use crate::schema::SemanticEquality;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let rule = SemanticEquality::new(move |v| {
        counted.fetch_add(1, Ordering::Relaxed);
        rule(v)
    });
    (rule, calls)
}
