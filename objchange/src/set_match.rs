//! Which prior set element each configured set element is planned from:
//! core's `validPriorFromConfig`, and `proposedNewNestingSet`'s rule "the
//! first unused prior element, in cty order, that is valid for the config
//! element" — the same answer, found without core's quadratic search.
//!
//! ## How the search is fast and still core's
//!
//! `valid_prior_from_config(p, c)` walks `p` and asks of `c`: at a
//! non-computed leaf attribute, or at any set, `c` must equal `p`; at a
//! computed leaf, `c` must equal `p` or be null; at anything else (a block,
//! a nested attribute, an element of either) `c` must have every child `p`
//! has — unless `p` is null or unknown there, which ends the walk at that
//! point with no demand at all.
//!
//! So each prior element `p` has a *shape*: the tree of places the walk
//! visits in it (the containers it enters, with their attribute names and
//! list lengths; where it stops at a null or unknown; where the leaves and
//! sets are). Whether `p` is valid for `c` depends only on `c` at the
//! places of `p`'s shape, and there some things are necessary: equal values
//! at the strict places (non-computed leaves, sets), an equal value at each
//! computed leaf where `c` is not null, and `c` having every child the
//! shape enters (a longer config list is fine: the walk only asks for the
//! prior's indexes).
//!
//! Prior elements are grouped by shape. For a config element and each
//! shape, `c` is read at the shape's places: a hash of its strict places
//! and of its non-null computed ones, which names one bucket of that
//! shape's prior elements (kept in cty order; built per pattern of
//! non-null computed places, on first use). Every prior element of that
//! shape valid for `c` is in that bucket, so the first unused element of
//! the bucket that the faithful [`valid_prior_from_config`] accepts is the
//! shape's first valid one, and the smallest of those over the shapes is
//! exactly core's "first unused valid element in cty order". Hash
//! collisions only add candidates, which the faithful test then refuses.
//!
//! Left to the faithful test, to keep that exact on any input: the inside
//! of maps (a map's keys would multiply shapes), and config that does not
//! fit a shape's types where the shape cannot judge it (no set where the
//! prior element has one): that config element is matched by the plain
//! scan.
//!
//! Cost: with `k` shapes among the prior elements (one when all are alike;
//! one more per optional block left out, per list length), O(k) bucket
//! look-ups per config element, each reading `c` once. Within a bucket
//! the first unused element is normally valid at once; the search is
//! longer only where prior elements agree everywhere the key looks and
//! still fail the full test (they differ inside maps), which a real plan
//! does not produce in bulk.

use std::collections::HashMap;
use std::hash::Hasher;

use ctywire::{Type, Value};

use super::schema_pos::{Nested, SchemaPos};
use super::value_ops::{
    apply_step, children, hash_unrefined, raw_eq_unrefined, FastHasher, Step, MAX_DEPTH,
};

/// core's `validPriorFromConfig(schema, prior, config)`: whether the prior
/// set element could have come from this configured element, only
/// computed values having been added.
pub fn valid_prior_from_config(schema: Nested<'_>, prior: &Value, config: &Value) -> bool {
    if raw_eq_unrefined(config, prior) {
        return true;
    }
    walk_valid(schema.root(), prior, config, 0)
}

/// One visit of core's `cty.Walk` callback in `validPriorFromConfig`, and
/// the walk below it; `false` is the callback's "stop, invalid".
fn walk_valid(pos: SchemaPos<'_>, p: &Value, c: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if raw_eq_unrefined(c, p) {
        return true;
    }
    // Nested sets cannot be correlated, so they must be equal.
    if matches!(c.ty(), Type::Set(_)) {
        return false;
    }
    if let Some(attr) = pos.attribute() {
        if attr.nested_type.is_none() {
            // A leaf may differ from config only when it is computed and
            // config leaves it null.
            return attr.computed && c.is_null();
        }
    }
    // A block, a nested attribute, or an element of either: descend.
    // cty.Walk does not enter null or unknown values.
    if p.is_null() || !p.is_known() {
        return true;
    }
    for (step, pv) in children(p) {
        let Some(cv) = apply_step(c, step) else {
            return false;
        };
        if !walk_valid(pos.step(step), pv, &cv, depth + 1) {
            return false;
        }
    }
    // A prior set facing a config value that is no set (which does not
    // conform): cty would enter the set's elements with steps keyed by
    // the elements, which such a config value cannot take (a string-keyed
    // step could reach into a config map; that is not followed here).
    !matches!(p.ty(), Type::Set(_)) || p.is_empty()
}

/// The plain rule, as core writes it: for each config element, the first
/// unused prior element that is valid for it. Quadratic; the tests compare
/// [`match_set_elements`] with it.
#[cfg(test)]
pub(crate) fn match_set_elements_plainly(
    schema: Nested<'_>,
    prior: &[Value],
    config: &[Value],
) -> Vec<Option<usize>> {
    let mut used = vec![false; prior.len()];
    config
        .iter()
        .map(|c| {
            let found = (0..prior.len())
                .find(|&i| !used[i] && valid_prior_from_config(schema, &prior[i], c));
            if let Some(i) = found {
                used[i] = true;
            }
            found
        })
        .collect()
}

/// For each config element in order, the index of the prior element core
/// plans it from (`None`: no prior element; the config element is new).
pub fn match_set_elements(
    schema: Nested<'_>,
    prior: &[Value],
    config: &[Value],
) -> Vec<Option<usize>> {
    if prior.is_empty() {
        return vec![None; config.len()];
    }
    let mut index = Index::new(schema, prior);
    let mut used = vec![false; prior.len()];
    config
        .iter()
        .map(|c| {
            let found = index.first_valid(schema, prior, c, &used);
            if let Some(i) = found {
                used[i] = true;
            }
            found
        })
        .collect()
}

/// Where the walk goes in a prior element: see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Shape {
    /// The walk stops here without a demand (null or unknown container,
    /// or a part left to the faithful test).
    Free,
    /// Config must equal the prior value here: a non-computed leaf.
    Strict,
    /// Config must equal the prior value here: a set.
    StrictSet,
    /// A computed leaf: config must equal the prior value or be null.
    Computed,
    /// A container the walk enters; config must have each child.
    Node(Vec<(ShapeStep, Shape)>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum ShapeStep {
    Attr(String),
    Index(usize),
}

/// A prior element, read at its shape's places.
struct Reading {
    /// The hash of the strict places.
    strict: u64,
    /// The hash of each computed place, in walk order.
    computed: Vec<u64>,
}

/// Why a config element cannot be looked up in a shape's buckets.
enum Miss {
    /// No prior element of the shape can be valid for it.
    NoMatch,
    /// It does not fit the shape's types (no set where the prior element
    /// has one), where the shape cannot judge it; the plain scan does.
    Unsure,
}

fn shape_of(
    pos: SchemaPos<'_>,
    p: &Value,
    r: &mut Reading,
    h: &mut FastHasher,
    depth: usize,
) -> Option<Shape> {
    if depth > MAX_DEPTH {
        return None;
    }
    if matches!(p.ty(), Type::Set(_)) {
        hash_unrefined(p, h);
        return Some(Shape::StrictSet);
    }
    if let Some(attr) = pos.attribute() {
        if attr.nested_type.is_none() {
            if attr.computed {
                let mut ch = FastHasher::default();
                hash_unrefined(p, &mut ch);
                r.computed.push(ch.finish());
                return Some(Shape::Computed);
            }
            hash_unrefined(p, h);
            return Some(Shape::Strict);
        }
    }
    if p.is_null() || !p.is_known() || matches!(p.ty(), Type::Map(_)) {
        return Some(Shape::Free);
    }
    let mut nodes = Vec::new();
    for (step, pv) in children(p) {
        let s = match step {
            Step::Attr(n) => ShapeStep::Attr(n.to_string()),
            Step::Index(i) => ShapeStep::Index(i),
            Step::Key(_) => return Some(Shape::Free),
        };
        nodes.push((s, shape_of(pos.step(step), pv, r, h, depth + 1)?));
    }
    Some(Shape::Node(nodes))
}

/// Reads config value `c` at the places of `shape` (the counterpart of
/// [`shape_of`]): the strict places into `h`, and each computed place
/// where `c` is not null into `nonnull` with its number (`computed` counts
/// the computed places passed so far).
fn read_config(
    shape: &Shape,
    c: &Value,
    h: &mut FastHasher,
    computed: &mut usize,
    nonnull: &mut Vec<(usize, u64)>,
) -> Result<(), Miss> {
    match shape {
        Shape::Free => Ok(()),
        // At a non-computed leaf the walk demands equality whatever config is.
        Shape::Strict => {
            hash_unrefined(c, h);
            Ok(())
        }
        // A prior set demands equality of a config set; config that is no
        // set there does not conform, and core's walk would go on.
        Shape::StrictSet if matches!(c.ty(), Type::Set(_)) => {
            hash_unrefined(c, h);
            Ok(())
        }
        Shape::StrictSet => Err(Miss::Unsure),
        Shape::Computed => {
            if !c.is_null() {
                let mut ch = FastHasher::default();
                hash_unrefined(c, &mut ch);
                nonnull.push((*computed, ch.finish()));
            }
            *computed += 1;
            Ok(())
        }
        Shape::Node(nodes) => {
            // A config set facing a prior container that is none: unequal,
            // and an unequal set is invalid.
            if matches!(c.ty(), Type::Set(_)) {
                return Err(Miss::NoMatch);
            }
            for (s, sub) in nodes {
                let step = match s {
                    ShapeStep::Attr(n) => Step::Attr(n),
                    ShapeStep::Index(i) => Step::Index(*i),
                };
                // core's path.Apply fails: the walk stops, invalid.
                let Some(cv) = apply_step(c, step) else {
                    return Err(Miss::NoMatch);
                };
                read_config(sub, &cv, h, computed, nonnull)?;
            }
            Ok(())
        }
    }
}

/// Prior elements (indexes, in cty order) under one key, with the count of
/// used elements at its front.
type Bucket = (Vec<usize>, usize);

struct Group {
    shape: Shape,
    members: Vec<usize>,
    /// Buckets by the computed places config sets (`Vec<usize>`), then by
    /// the combined hash; each bucket with the count of used elements at
    /// its front.
    buckets: HashMap<Vec<usize>, HashMap<u64, Bucket>>,
}

struct Index {
    groups: Vec<Group>,
    readings: Vec<Reading>,
    /// Prior elements whose shape could not be taken (too deep): always
    /// candidates, checked in full.
    odd: Vec<usize>,
}

fn combine(strict: u64, parts: impl Iterator<Item = (usize, u64)>) -> u64 {
    let mut h = FastHasher::default();
    h.write_u64(strict);
    for (i, v) in parts {
        h.write_u64(i as u64);
        h.write_u64(v);
    }
    h.finish()
}

impl Index {
    fn new(schema: Nested<'_>, prior: &[Value]) -> Index {
        let mut by_shape: HashMap<Shape, usize> = HashMap::new();
        let mut groups: Vec<Group> = Vec::new();
        let mut readings = Vec::with_capacity(prior.len());
        let mut odd = Vec::new();
        for (i, p) in prior.iter().enumerate() {
            let mut r = Reading {
                strict: 0,
                computed: Vec::new(),
            };
            let mut h = FastHasher::default();
            match shape_of(schema.root(), p, &mut r, &mut h, 0) {
                Some(shape) => {
                    r.strict = h.finish();
                    let g = *by_shape.entry(shape.clone()).or_insert_with(|| {
                        groups.push(Group {
                            shape,
                            members: Vec::new(),
                            buckets: HashMap::new(),
                        });
                        groups.len() - 1
                    });
                    groups[g].members.push(i);
                }
                None => odd.push(i),
            }
            readings.push(r);
        }
        Index {
            groups,
            readings,
            odd,
        }
    }

    fn first_valid(
        &mut self,
        schema: Nested<'_>,
        prior: &[Value],
        c: &Value,
        used: &[bool],
    ) -> Option<usize> {
        let valid = |i: usize| valid_prior_from_config(schema, &prior[i], c);
        let mut best: Option<usize> = None;
        for group in &mut self.groups {
            let mut h = FastHasher::default();
            let mut computed = 0;
            let mut nonnull = Vec::new();
            match read_config(&group.shape, c, &mut h, &mut computed, &mut nonnull) {
                Err(Miss::NoMatch) => continue,
                Err(Miss::Unsure) => return plain_first(prior, used, valid),
                Ok(()) => {}
            }
            let key = combine(h.finish(), nonnull.iter().copied());
            let pattern: Vec<usize> = nonnull.iter().map(|&(i, _)| i).collect();
            let readings = &self.readings;
            let members = &group.members;
            let buckets = group.buckets.entry(pattern.clone()).or_insert_with(|| {
                let mut b: HashMap<u64, Bucket> = HashMap::new();
                for &m in members {
                    let r = &readings[m];
                    let k = combine(
                        r.strict,
                        pattern
                            .iter()
                            .map(|&j| (j, r.computed.get(j).copied().unwrap_or(0))),
                    );
                    b.entry(k).or_default().0.push(m);
                }
                b
            });
            let Some((items, front)) = buckets.get_mut(&key) else {
                continue;
            };
            while *front < items.len() && used[items[*front]] {
                *front += 1;
            }
            for &i in &items[*front..] {
                if best.is_some_and(|b| b < i) {
                    break;
                }
                if !used[i] && valid(i) {
                    best = Some(i);
                    break;
                }
            }
        }
        for &i in &self.odd {
            if best.is_some_and(|b| b < i) {
                break;
            }
            if !used[i] && valid(i) {
                best = Some(i);
                break;
            }
        }
        best
    }
}

fn plain_first(prior: &[Value], used: &[bool], valid: impl Fn(usize) -> bool) -> Option<usize> {
    (0..prior.len()).find(|&i| !used[i] && valid(i))
}
