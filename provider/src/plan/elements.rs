//! Element matching: which prior element each configured element of a
//! list, set or map continues, and the walk through those elements.

use std::collections::HashMap;
use std::hash::Hasher;

use ctywire::schema::{self as tf, NestingMode};
use ctywire::{Type, Value};

use super::walk::{Planning, Walk};
use super::{semantic, Mode, Prior};
use crate::schema::Block;
use ctywire_objchange::{self as objchange, Step};

impl<'a> Walk<'a> {
    pub(super) fn same_nested(
        &mut self,
        nesting: NestingMode,
        block: &'a Block,
        prior: Option<&'a Value>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<bool> {
        if config.is_null() || !config.is_known() {
            return Ok(prior == Some(config));
        }
        let Some(prior) = prior.filter(|p| p.is_known() && !p.is_null()) else {
            return Ok(false);
        };
        match nesting {
            NestingMode::Single | NestingMode::Group => {
                self.same_object(block, Some(prior), config, depth)
            }
            NestingMode::List => {
                let configured = config
                    .elements()
                    .ok_or_else(|| self.shape_error("a list was expected"))?;
                let paired = prior.elements().unwrap_or(&[]);
                if configured.is_empty() || configured.len() != paired.len() {
                    return Ok(prior == config);
                }
                for (i, (c, p)) in configured.iter().zip(paired).enumerate() {
                    self.trail.push(Step::Index(i));
                    let same = self.same_object(block, Some(p), c, depth);
                    self.trail.pop();
                    if !same? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            NestingMode::Map => {
                let keys = |v: &'a Value| -> Option<Vec<(&'a str, &'a Value)>> {
                    match v.entries() {
                        Some(es) => Some(es.collect()),
                        None => v.attributes().map(Iterator::collect),
                    }
                };
                let configured =
                    keys(config).ok_or_else(|| self.shape_error("a map was expected"))?;
                let paired = keys(prior).unwrap_or_default();
                if configured.is_empty() || configured.len() != paired.len() {
                    return Ok(prior == config);
                }
                for ((k, c), (pk, p)) in configured.into_iter().zip(paired) {
                    if k != pk {
                        return Ok(false);
                    }
                    self.trail.push(Step::Key(k));
                    let same = self.same_object(block, Some(p), c, depth);
                    self.trail.pop();
                    if !same? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            NestingMode::Set => self.same_set(block, prior, config, depth),
            NestingMode::Invalid => Ok(prior == config),
        }
    }

    /// Whether the proposed set equals the prior set: the elements that
    /// propose exactly their matched prior element, plus the proposals of
    /// the others found among the prior elements, must be all of them.
    pub(super) fn same_set(
        &mut self,
        block: &'a Block,
        prior: &'a Value,
        config: &'a Value,
        depth: usize,
    ) -> Planning<bool> {
        let configured = config
            .elements()
            .ok_or_else(|| self.shape_error("a set was expected"))?;
        let paired = prior.elements().unwrap_or(&[]);
        if configured.is_empty() || configured.len() < paired.len() {
            // Fewer proposals than prior elements cannot make the same set.
            return Ok(prior == config);
        }
        let pairs = self.set_matches(block, paired, configured);
        let mut covered = vec![false; paired.len()];
        let mut others = Vec::new();
        let before = self.trail.enter_set();
        for (j, c) in configured.iter().enumerate() {
            let pair = pairs.get(j).copied().flatten();
            let same = match pair.and_then(|i| paired.get(i)) {
                Some(p) => self.same_object(block, Some(p), c, depth),
                None => Ok(false),
            };
            match same {
                Ok(true) => {
                    if let Some(i) = pair {
                        if let Some(c) = covered.get_mut(i) {
                            *c = true;
                        }
                    }
                }
                Ok(false) => others.push((j, pair)),
                Err(e) => {
                    self.trail.leave_set(before);
                    return Err(e);
                }
            }
        }
        if !others.is_empty() {
            // Rare: a changed element whose proposal may equal another
            // prior element. Look each proposal up among them.
            let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
            for (i, p) in paired.iter().enumerate() {
                index.entry(hash_of(p)).or_default().push(i);
            }
            for (j, pair) in others {
                let Some(c) = configured.get(j) else {
                    continue;
                };
                let pair = Prior::pair(pair.and_then(|i| paired.get(i)));
                let proposal = self.object(block, pair, c, depth);
                let proposal = match proposal {
                    Ok(v) => v,
                    Err(e) => {
                        self.trail.leave_set(before);
                        return Err(e);
                    }
                };
                let found = index.get(&hash_of(&proposal)).and_then(|b| {
                    b.iter().find(|&&i| {
                        paired
                            .get(i)
                            .is_some_and(|p| objchange::raw_eq_unrefined(p, &proposal))
                    })
                });
                match found {
                    Some(&i) => {
                        if let Some(c) = covered.get_mut(i) {
                            *c = true;
                        }
                    }
                    None => {
                        self.trail.leave_set(before);
                        return Ok(false);
                    }
                }
            }
        }
        self.trail.leave_set(before);
        Ok(covered.iter().all(|&c| c))
    }

    // ---- the building passes --------------------------------------------

    /// Plans a nested block's or nested attribute's value.
    pub(super) fn nested(
        &mut self,
        nesting: NestingMode,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        if config.is_null() || !config.is_known() {
            // No blocks written as null; an unknown collection (a `dynamic`
            // block whose `for_each` is unknown) stays unknown, as in core.
            return Ok(config.clone());
        }
        let prior = prior.known();
        let collection = matches!(
            nesting,
            NestingMode::List | NestingMode::Map | NestingMode::Set
        );
        if collection && config.is_empty() {
            // No elements: nothing to plan in them.
            return Ok(config.clone());
        }
        match nesting {
            NestingMode::Single | NestingMode::Group => self.object(block, prior, config, depth),
            NestingMode::List => self.list(block, prior, config, depth),
            NestingMode::Map => self.map(block, prior, config, depth),
            NestingMode::Set => self.set(block, prior, config, depth),
            NestingMode::Invalid => Ok(config.clone()),
        }
    }

    pub(super) fn list(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        let (configured, paired) = self.elements(prior, config, "a list was expected")?;
        let kept = match (self.mode, prior.keep.and_then(Value::elements)) {
            (Mode::Mark, Some(kept)) => continuations(self.forms.block(), kept, configured)
                .into_iter()
                .map(|m| m.and_then(|i| kept.get(i)))
                .collect(),
            _ => Vec::new(),
        };
        let mut out = Vec::with_capacity(configured.len());
        for (i, c) in configured.iter().enumerate() {
            let p = Prior {
                pair: paired.get(i),
                keep: kept.get(i).copied().flatten(),
            };
            self.trail.push(Step::Index(i));
            let v = self.object(block, p, c, depth);
            self.trail.pop();
            out.push(v?);
        }
        if let Type::Tuple(_) = config.ty() {
            // A list of blocks with dynamic content is a tuple.
            return Ok(Value::tuple(out));
        }
        Value::list(Type::Dynamic, out).map_err(|e| self.collection_error(&e))
    }

    pub(super) fn map(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        if let Some(entries) = config.entries() {
            let mut out = Vec::with_capacity(entries.len());
            for (k, c) in entries {
                let p = Prior {
                    pair: prior.pair.and_then(|p| p.entry(k)),
                    keep: prior.keep.and_then(|p| p.entry(k)),
                };
                self.trail.push(Step::Key(k));
                let v = self.object(block, p, c, depth);
                self.trail.pop();
                out.push((k, v?));
            }
            return Value::map(Type::Dynamic, out).map_err(|e| self.collection_error(&e));
        }
        // A map of blocks with dynamic content is an object.
        let entries = config
            .attributes()
            .ok_or_else(|| self.shape_error("a map was expected"))?;
        let mut out = Vec::with_capacity(entries.len());
        for (k, c) in entries {
            self.trail.push(Step::Key(k));
            let v = self.object(block, prior.attr(k), c, depth);
            self.trail.pop();
            out.push((k, v?));
        }
        Ok(Value::object(out))
    }

    pub(super) fn set(
        &mut self,
        block: &'a Block,
        prior: Prior<'a>,
        config: &'a Value,
        depth: usize,
    ) -> Planning<Value> {
        let (configured, paired) = self.elements(prior, config, "a set was expected")?;
        let kept_from = match self.mode {
            Mode::Propose => None,
            Mode::Mark => prior.keep.and_then(Value::elements),
        };
        let pairs = self.set_matches(block, paired, configured);
        // `None`: kept state comes from the paired elements.
        let keeps = match kept_from {
            Some(k) if std::ptr::eq(k, paired) => None,
            Some(k) => Some(self.set_matches(block, k, configured)),
            None => Some(vec![None; configured.len()]),
        };
        let before = self.trail.enter_set();
        let mut out = Vec::with_capacity(configured.len());
        for (j, c) in configured.iter().enumerate() {
            let pair = pairs.get(j).copied().flatten().and_then(|i| paired.get(i));
            let keep = match (&keeps, kept_from) {
                (None, _) => pair,
                (Some(m), Some(k)) => m.get(j).copied().flatten().and_then(|i| k.get(i)),
                (Some(_), None) => None,
            };
            let v = self.object(block, Prior { pair, keep }, c, depth);
            match v {
                Ok(v) => out.push(v),
                Err(e) => {
                    self.trail.leave_set(before);
                    return Err(e);
                }
            }
        }
        self.trail.leave_set(before);
        Value::set(Type::Dynamic, out).map_err(|e| self.collection_error(&e))
    }

    /// What planning a list and a set opens with: the configured
    /// elements (`expected` says what the configuration should have been
    /// otherwise) and the paired prior's.
    fn elements(
        &self,
        prior: Prior<'a>,
        config: &'a Value,
        expected: &str,
    ) -> Planning<(&'a [Value], &'a [Value])> {
        let configured = config
            .elements()
            .ok_or_else(|| self.shape_error(expected))?;
        let paired = prior.pair.and_then(Value::elements).unwrap_or(&[]);
        Ok((configured, paired))
    }

    /// Core's set matching of `configured` against `prior` (elements of
    /// `block`, whose protocol form is the current object's forms), then
    /// semantic equality's pairing of the rest; made once per plan.
    pub(super) fn set_matches(
        &mut self,
        block: &'a Block,
        prior: &'a [Value],
        configured: &'a [Value],
    ) -> Vec<Option<usize>> {
        if prior.is_empty() {
            return vec![None; configured.len()];
        }
        let key = (prior.as_ptr() as usize, configured.as_ptr() as usize);
        if let Some(m) = self.matched.get(&key) {
            return m.clone();
        }
        let mut m = match_set_elements(self.forms.block(), prior, configured);
        if semantic::pairs_by_meaning(block) {
            semantic::pair_rest(block, prior, configured, &mut m);
        }
        self.matched.insert(key, m.clone());
        m
    }
}

/// For each configuration element of a list, the prior element whose state
/// it keeps: the one at the same index when the configuration element
/// continues it (core's `validPriorFromConfig`), else the first unused
/// prior element it continues (core's set rule), else none.
pub(super) fn continuations(
    schema: &tf::Block,
    prior: &[Value],
    config: &[Value],
) -> Vec<Option<usize>> {
    let mut out = vec![None; config.len()];
    let mut used = vec![false; prior.len()];
    for (i, (p, c)) in prior.iter().zip(config).enumerate() {
        if valid_prior_from_config(schema, p, c) {
            out[i] = Some(i);
            used[i] = true;
        }
    }
    let rest_c: Vec<usize> = (0..config.len()).filter(|&i| out[i].is_none()).collect();
    let rest_p: Vec<usize> = (0..prior.len()).filter(|&i| !used[i]).collect();
    if rest_c.is_empty() || rest_p.is_empty() {
        return out;
    }
    // Only the elements that moved are copied.
    let moved_p: Vec<Value> = rest_p
        .iter()
        .filter_map(|&i| prior.get(i).cloned())
        .collect();
    let moved_c: Vec<Value> = rest_c
        .iter()
        .filter_map(|&i| config.get(i).cloned())
        .collect();
    for (j, m) in match_set_elements(schema, &moved_p, &moved_c)
        .into_iter()
        .enumerate()
    {
        if let (Some(m), Some(&i)) = (m, rest_c.get(j)) {
            out[i] = rest_p.get(m).copied();
        }
    }
    out
}

/// Core's set rule (objchange's, the code `ProposedNew` uses): for each
/// configuration element, the index of the prior element it continues.
pub(super) fn match_set_elements(
    schema: &tf::Block,
    prior: &[Value],
    config: &[Value],
) -> Vec<Option<usize>> {
    objchange::match_set_elements(objchange::Nested::Block(schema), prior, config)
}

/// Core's `validPriorFromConfig`: whether the configuration element could
/// have planned the prior element, only computed values having been added.
pub(super) fn valid_prior_from_config(schema: &tf::Block, prior: &Value, config: &Value) -> bool {
    objchange::valid_prior_from_config(objchange::Nested::Block(schema), prior, config)
}

/// A hash under which equal values meet.
pub(super) fn hash_of(v: &Value) -> u64 {
    let mut h = objchange::FastHasher::default();
    objchange::hash_unrefined(v, &mut h);
    h.finish()
}
