//! Checking a value against the rules its schema states.

use super::{Attribute, Block, NestedBlock, NestingMode, Object};
use crate::error::Error;
use crate::path::{Path, PathStep};
use crate::value::Value;

/// Which kind of value is checked, which decides the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Configuration: required attributes are set, blocks respect their
    /// item limits (skipped while a block collection holds unknowns, as
    /// Terraform defers it).
    Config,
    /// A planned value: write-only attributes are null.
    Plan,
    /// A state to store: write-only attributes are null, and nothing is
    /// unknown.
    State,
}

fn problem(path: &Path, message: String) -> Error {
    Error::data(message).within(path)
}

pub(super) fn block(
    b: &Block,
    v: &Value,
    purpose: Purpose,
    path: &mut Path,
    errors: &mut Vec<Error>,
) {
    if v.is_null() || !v.is_known() {
        if purpose == Purpose::State && !v.is_known() {
            errors.push(problem(path, "a state must not hold unknown values".into()));
        }
        return;
    }
    for a in &b.attributes {
        let Some(av) = v.attr(&a.name) else { continue };
        with_step(path, PathStep::Attr(a.name.clone()), |path| {
            attribute(a, av, purpose, path, errors)
        });
    }
    for nb in &b.block_types {
        let Some(bv) = v.attr(&nb.type_name) else {
            continue;
        };
        with_step(path, PathStep::Attr(nb.type_name.clone()), |path| {
            nested_block(nb, bv, purpose, path, errors)
        });
    }
}

fn with_step(path: &mut Path, step: PathStep, f: impl FnOnce(&mut Path)) {
    path.push(step);
    f(path);
    path.pop();
}

fn attribute(a: &Attribute, v: &Value, purpose: Purpose, path: &mut Path, errors: &mut Vec<Error>) {
    match purpose {
        Purpose::Config if a.required && v.is_null() => {
            errors.push(problem(
                path,
                format!("the attribute {:?} is required", a.name),
            ));
        }
        Purpose::Plan | Purpose::State if a.write_only && !v.is_null() => {
            errors.push(problem(
                path,
                format!(
                    "the write-only attribute {:?} must be null outside configuration",
                    a.name
                ),
            ));
        }
        Purpose::State if !v.is_wholly_known() && (a.nested_type.is_none() || !v.is_known()) => {
            errors.push(problem(path, "a state must not hold unknown values".into()));
        }
        _ => {}
    }
    if let Some(o) = &a.nested_type {
        nested_attributes(o, v, purpose, path, errors);
    }
}

fn nested_attributes(
    o: &Object,
    v: &Value,
    purpose: Purpose,
    path: &mut Path,
    errors: &mut Vec<Error>,
) {
    if v.is_null() || !v.is_known() {
        return;
    }
    let check = |obj: &Value, path: &mut Path, errors: &mut Vec<Error>| {
        if obj.is_null() || !obj.is_known() {
            return;
        }
        for a in &o.attributes {
            if let Some(av) = obj.attr(&a.name) {
                with_step(path, PathStep::Attr(a.name.clone()), |path| {
                    attribute(a, av, purpose, path, errors)
                });
            }
        }
    };
    each_element(o.nesting, v, path, errors, check);
}

/// Calls `f` on each element of a nested collection (or on `v` itself for
/// SINGLE/GROUP), with its path.
fn each_element(
    nesting: NestingMode,
    v: &Value,
    path: &mut Path,
    errors: &mut Vec<Error>,
    mut f: impl FnMut(&Value, &mut Path, &mut Vec<Error>),
) {
    match nesting {
        NestingMode::Single | NestingMode::Group => f(v, path, errors),
        NestingMode::List | NestingMode::Set => {
            // A null or unknown list of blocks has no block to check.
            for (i, e) in v.elements().unwrap_or(&[]).iter().enumerate() {
                with_step(path, PathStep::Index(i as u64), |path| f(e, path, errors));
            }
        }
        NestingMode::Map => {
            if let Some(entries) = v.entries() {
                for (k, e) in entries {
                    with_step(path, PathStep::Key(k.to_string()), |path| {
                        f(e, path, errors)
                    });
                }
            } else if let Some(attrs) = v.attributes() {
                // A MAP block that fell back to dynamic is an object.
                for (k, e) in attrs {
                    with_step(path, PathStep::Key(k.to_string()), |path| {
                        f(e, path, errors)
                    });
                }
            }
        }
        NestingMode::Invalid => {}
    }
}

fn nested_block(
    nb: &NestedBlock,
    v: &Value,
    purpose: Purpose,
    path: &mut Path,
    errors: &mut Vec<Error>,
) {
    if !v.is_known() {
        if purpose == Purpose::State {
            errors.push(problem(path, "a state must not hold unknown values".into()));
        }
        return;
    }
    if purpose == Purpose::Config {
        let name = &nb.type_name;
        match nb.nesting {
            NestingMode::Single if nb.min_items >= 1 && v.is_null() => {
                errors.push(problem(path, format!("a {name:?} block is required")));
            }
            NestingMode::List | NestingMode::Set | NestingMode::Map if v.is_wholly_known() => {
                let n = v.len().unwrap_or(0) as i64;
                if n < nb.min_items {
                    errors.push(problem(
                        path,
                        format!(
                            "at least {} {name:?} blocks are required, {n} given",
                            nb.min_items
                        ),
                    ));
                }
                if nb.max_items > 0 && n > nb.max_items {
                    errors.push(problem(
                        path,
                        format!(
                            "at most {} {name:?} blocks are allowed, {n} given",
                            nb.max_items
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    if v.is_null() {
        return;
    }
    each_element(nb.nesting, v, path, errors, |e, path, errors| {
        block(&nb.block, e, purpose, path, errors)
    });
}
