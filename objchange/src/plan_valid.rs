//! core's `objchange.AssertPlanValid` (plan_valid.go, Terraform 1.11, and
//! 1.16's computed blocks): may
//! a provider plan this new state from that prior state and
//! configuration? Configured values must be planned as configured (or as
//! the prior value, core's diff-suppression exception); only computed
//! attributes may be filled in where config is null; blocks keep
//! configuration's shape.

use ctywire::schema::{Attribute, Block, NestingMode, Object};
use ctywire::{Path, PathStep, Type, Value};

use super::range::{length_of, range_includes};
use super::value_ops::{go_quote, go_string, raw_eq_unrefined, MAX_DEPTH};
use super::Problem;

/// core's `AssertPlanValid(schema, prior, config, planned)`: every way the
/// planned state breaks core's rules, each at its path.
pub fn assert_plan_valid(
    schema: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    plan_valid_block(
        schema,
        prior,
        config,
        planned,
        &mut Path::root(),
        &mut problems,
        0,
    );
    problems
}

/// Attribute `name` of `v`, as core reads it: null when `v` is null (core
/// checks first), unknown when `v` is unknown.
fn get(v: &Value, name: &str, ty: impl FnOnce() -> Type) -> Value {
    if let Some(a) = v.attr(name) {
        return a.clone();
    }
    let ty = v.ty().attribute_type(name).cloned().unwrap_or_else(ty);
    if v.is_null() || v.is_known() {
        Value::null(ty)
    } else {
        Value::unknown(ty)
    }
}

/// The entries of a map (or of an object standing for one, when the
/// nested schema holds dynamic types), sorted by key; none for a null or
/// unknown value.
fn entries(v: &Value) -> Vec<(&str, &Value)> {
    match (v.entries(), v.attributes()) {
        (Some(e), _) => e.collect(),
        (None, Some(a)) => a.collect(),
        _ => Vec::new(),
    }
}

/// The value at `k` in sorted entries.
fn find(m: &[(&str, &Value)], k: &str) -> Option<Value> {
    m.binary_search_by(|(n, _)| (*n).cmp(k))
        .ok()
        .map(|i| m[i].1.clone())
}

fn too_deep(path: &Path, out: &mut Vec<Problem>) {
    out.push(Problem::new(
        path,
        format!("value nests deeper than {MAX_DEPTH} levels"),
    ));
}

/// core's `assertPlanValid`.
fn plan_valid_block(
    schema: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    if planned.is_null() && !config.is_null() {
        out.push(Problem::new(
            path,
            "planned for absence but config wants existence",
        ));
        return;
    }
    if config.is_null() && !planned.is_null() {
        out.push(Problem::new(
            path,
            "planned for existence but config wants absence",
        ));
        return;
    }
    if planned.is_null() {
        return;
    }
    if depth > MAX_DEPTH {
        return too_deep(path, out);
    }
    plan_valid_attributes(&schema.attributes, prior, config, planned, path, out, depth);

    let mut blocks: Vec<_> = schema.block_types.iter().collect();
    blocks.sort_by(|a, b| a.type_name.cmp(&b.type_name));
    for nb in blocks {
        let name = nb.type_name.as_str();
        path.push(PathStep::Attr(name.to_string()));
        let planned_v = get(planned, name, || Type::Dynamic);
        let config_v = get(config, name, || planned_v.ty().clone());
        let prior_v = get(prior, name, || planned_v.ty().clone());
        plan_valid_nested_block(
            nb.nesting, &nb.block, &prior_v, &config_v, &planned_v, path, out, depth,
        );
        path.pop();
    }
}

/// The block-type part of core's `assertPlanValid`, for one block type.
#[allow(clippy::too_many_arguments)]
fn plan_valid_nested_block(
    nesting: NestingMode,
    block: &Block,
    prior_v: &Value,
    config_v: &Value,
    planned_v: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    if planned_v == config_v {
        return;
    }
    if !config_v.is_known() {
        // A dynamic block with an unknown for_each: the provider cannot
        // change it.
        out.push(Problem::new(
            path,
            format!(
                "planned value {} for unknown dynamic block",
                go_string(planned_v)
            ),
        ));
        return;
    }
    if config_v.is_null() && block.computed {
        // Terraform 1.16's rule for a computed block the configuration
        // leaves out (`PrepareComputedBlocks` made an empty one null): the
        // provider may plan any value of its type, unknown included.
        return;
    }
    if !planned_v.is_known() {
        out.push(Problem::new(
            path,
            "attribute representing nested block must not be unknown itself; set nested attribute values to unknown instead",
        ));
        return;
    }
    const UNKNOWN_ELEMENT: &str =
        "element representing nested block must not be unknown itself; set nested attribute values to unknown instead";
    let null_of = |v: &Value| Value::null(v.ty().clone());
    match nesting {
        NestingMode::Single | NestingMode::Group => {
            plan_valid_block(block, prior_v, config_v, planned_v, path, out, depth + 1);
        }
        NestingMode::List => {
            if planned_v.is_null() {
                out.push(Problem::new(
                    path,
                    "attribute representing a list of nested blocks must be empty to indicate no blocks, not null",
                ));
                return;
            }
            // A null list can come from a legacy provider through
            // ignore_changes; core counts it as empty.
            let planned_e = planned_v.elements().unwrap_or(&[]);
            let config_e = config_v.elements().unwrap_or(&[]);
            if planned_e.len() != config_e.len() {
                out.push(Problem::new(
                    path,
                    format!(
                        "block count in plan ({}) disagrees with count in config ({})",
                        planned_e.len(),
                        config_e.len()
                    ),
                ));
                return;
            }
            let prior_e = if prior_v.is_null() {
                &[][..]
            } else {
                prior_v.elements().unwrap_or(&[])
            };
            for (i, (p_ev, c_ev)) in planned_e.iter().zip(config_e).enumerate() {
                path.push(PathStep::Index(i as u64));
                if !p_ev.is_known() {
                    out.push(Problem::new(path, UNKNOWN_ELEMENT));
                } else {
                    let prior_ev = prior_e.get(i).cloned().unwrap_or_else(|| null_of(p_ev));
                    plan_valid_block(block, &prior_ev, c_ev, p_ev, path, out, depth + 1);
                }
                path.pop();
            }
        }
        NestingMode::Map => {
            if planned_v.is_null() {
                out.push(Problem::new(
                    path,
                    "attribute representing a map of nested blocks must be empty to indicate no blocks, not null",
                ));
                return;
            }
            plan_valid_block_map(block, prior_v, config_v, planned_v, path, out, depth);
        }
        NestingMode::Set => {
            if planned_v.is_null() {
                out.push(Problem::new(
                    path,
                    "attribute representing a set of nested blocks must be empty to indicate no blocks, not null",
                ));
                return;
            }
            // Set elements cannot be correlated with configuration, so
            // core checks only that none is unknown.
            for e in planned_v.elements().unwrap_or(&[]) {
                if !e.is_known() {
                    out.push(Problem::new(path, UNKNOWN_ELEMENT).in_set_element());
                }
            }
        }
        NestingMode::Invalid => {}
    }
}

/// The NestingMap case of core's `assertPlanValid`: a map, or an object
/// when the block holds dynamic types (keys are then attribute steps).
fn plan_valid_block_map(
    block: &Block,
    prior_v: &Value,
    config_v: &Value,
    planned_v: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    const UNKNOWN_ELEMENT: &str =
        "element representing nested block must not be unknown itself; set nested attribute values to unknown instead";
    let as_object = matches!(planned_v.ty(), Type::Object(_));
    let planned_m = entries(planned_v);
    let config_m = entries(config_v);
    let prior_m = entries(prior_v);
    if !as_object && planned_m.len() != config_m.len() {
        out.push(Problem::new(
            path,
            format!(
                "block count in plan ({}) disagrees with count in config ({})",
                planned_m.len(),
                config_m.len()
            ),
        ));
        return;
    }
    for (k, p_ev) in &planned_m {
        let Some(c_ev) = find(&config_m, k) else {
            if as_object {
                out.push(Problem::new(
                    path,
                    format!(
                        "block key {} from plan is not present in config",
                        go_quote(k)
                    ),
                ));
                continue;
            }
            path.push(PathStep::Key(k.to_string()));
            // core checks an unknown element before the key.
            let message = if p_ev.is_known() {
                format!(
                    "block key {} from plan is not present in config",
                    go_quote(k)
                )
            } else {
                UNKNOWN_ELEMENT.to_string()
            };
            out.push(Problem::new(path, message));
            path.pop();
            continue;
        };
        path.push(if as_object {
            PathStep::Attr(k.to_string())
        } else {
            PathStep::Key(k.to_string())
        });
        if !p_ev.is_known() {
            out.push(Problem::new(path, UNKNOWN_ELEMENT));
        } else {
            let prior_ev = find(&prior_m, k).unwrap_or_else(|| Value::null(p_ev.ty().clone()));
            plan_valid_block(block, &prior_ev, &c_ev, p_ev, path, out, depth + 1);
        }
        path.pop();
    }
    for (k, _) in &config_m {
        if find(&planned_m, k).is_none() {
            out.push(Problem::new(
                path,
                format!(
                    "block key {} from config is not present in plan",
                    go_quote(k)
                ),
            ));
        }
    }
}

/// core's `assertPlannedAttrsValid`, attributes in name order.
fn plan_valid_attributes(
    attrs: &[Attribute],
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    let mut sorted: Vec<&Attribute> = attrs.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    sorted.dedup_by(|a, b| a.name == b.name);
    for a in sorted {
        // core's assertPlannedAttrValid: each of the three may be null
        // inside nested attributes; a null object gives null attributes.
        let ty = || a.implied_type().unwrap_or(Type::Dynamic);
        let config_v = get(config, &a.name, ty);
        let prior_v = get(prior, &a.name, || config_v.ty().clone());
        let planned_v = get(planned, &a.name, || config_v.ty().clone());
        path.push(PathStep::Attr(a.name.clone()));
        plan_valid_value(a, &prior_v, &config_v, &planned_v, path, out, depth);
        path.pop();
    }
}

/// core's `assertPlannedValueValid`: the first rule that matches decides.
fn plan_valid_value(
    a: &Attribute,
    prior_v: &Value,
    config_v: &Value,
    planned_v: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    // The provider changed nothing.
    if raw_eq_unrefined(planned_v, config_v) {
        return;
    }
    // The prior value kept: the provider judged config equivalent to it.
    if raw_eq_unrefined(planned_v, prior_v) && !prior_v.is_null() && !config_v.is_null() {
        return;
    }
    if a.write_only {
        if !planned_v.is_null() {
            out.push(Problem::new(
                path,
                "planned value for write-only attribute is not null",
            ));
        }
        return;
    }
    // Computed-only: any value. Optional+computed: any value where config
    // is null.
    if a.computed && (!a.optional || config_v.is_null()) {
        return;
    }
    if config_v.is_null() && !planned_v.is_null() {
        let problem = if a.sensitive {
            Problem::new(path, "sensitive planned value for a non-computed attribute")
        } else {
            Problem::new(
                path,
                format!(
                    "planned value {} for a non-computed attribute",
                    go_string(planned_v)
                ),
            )
        };
        out.push(problem.sensitive(a.sensitive));
        return;
    }
    if let Some(o) = &a.nested_type {
        return plan_valid_object(o, prior_v, config_v, planned_v, path, out, depth + 1);
    }
    let problem = match (prior_v.is_null(), a.sensitive) {
        (true, true) => Problem::new(path, "sensitive planned value does not match config value"),
        (true, false) => Problem::new(
            path,
            format!(
                "planned value {} does not match config value {}",
                go_string(planned_v),
                go_string(config_v)
            ),
        ),
        (false, true) => Problem::new(
            path,
            "sensitive planned value does not match config value nor prior value",
        ),
        (false, false) => Problem::new(
            path,
            format!(
                "planned value {} does not match config value {} nor prior value {}",
                go_string(planned_v),
                go_string(config_v),
                go_string(prior_v)
            ),
        ),
    };
    out.push(problem.sensitive(a.sensitive));
}

/// core's `assertPlannedObjectValid`, for a nested attribute's value.
fn plan_valid_object(
    o: &Object,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    if planned.is_null() && !config.is_null() {
        out.push(Problem::new(
            path,
            "planned for absence but config wants existence",
        ));
        return;
    }
    if config.is_null() && !planned.is_null() {
        out.push(Problem::new(
            path,
            "planned for existence but config wants absence",
        ));
        return;
    }
    if !config.is_null() && !planned.is_known() {
        out.push(Problem::new(path, "planned unknown for configured value"));
        return;
    }
    if planned.is_null() {
        return;
    }
    if depth > MAX_DEPTH {
        return too_deep(path, out);
    }
    let count_problem = |path: &Path, pl: &Value, cl: &Value| {
        Problem::new(
            path,
            format!(
                "count in plan ({}) disagrees with count in config ({})",
                go_string(pl),
                go_string(cl)
            ),
        )
    };
    match o.nesting {
        NestingMode::Single | NestingMode::Group => {
            plan_valid_attributes(&o.attributes, prior, config, planned, path, out, depth);
        }
        NestingMode::List => {
            let (pl, cl) = (length_of(planned), length_of(config));
            if !pl.is_known() && !cl.is_known() {
                return;
            }
            // cty's Equals: known and true only when both are known.
            if !(pl.is_known() && cl.is_known() && pl == cl) {
                out.push(count_problem(path, &pl, &cl));
                return;
            }
            let planned_e = planned.elements().unwrap_or(&[]);
            let config_e = config.elements().unwrap_or(&[]);
            let prior_e = if prior.is_null() {
                &[][..]
            } else {
                prior.elements().unwrap_or(&[])
            };
            for (i, (p_ev, c_ev)) in planned_e.iter().zip(config_e).enumerate() {
                path.push(PathStep::Index(i as u64));
                let prior_ev = prior_e
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| Value::null(p_ev.ty().clone()));
                plan_valid_attributes(&o.attributes, &prior_ev, c_ev, p_ev, path, out, depth);
                path.pop();
            }
        }
        NestingMode::Map => {
            let (pl, cl) = (length_of(planned), length_of(config));
            if !pl.is_known() && !cl.is_known() {
                return;
            }
            if !(pl.is_known() && cl.is_known() && pl == cl) {
                out.push(count_problem(path, &pl, &cl));
                return;
            }
            let (planned_m, config_m, prior_m) =
                (entries(planned), entries(config), entries(prior));
            for (k, p_ev) in &planned_m {
                let Some(c_ev) = find(&config_m, k) else {
                    out.push(Problem::new(
                        path,
                        format!("map key {} from plan is not present in config", go_quote(k)),
                    ));
                    continue;
                };
                // core names a map element with an attribute step here.
                path.push(PathStep::Attr(k.to_string()));
                let prior_ev = find(&prior_m, k).unwrap_or_else(|| Value::null(p_ev.ty().clone()));
                plan_valid_attributes(&o.attributes, &prior_ev, &c_ev, p_ev, path, out, depth);
                path.pop();
            }
            for (k, _) in &config_m {
                if find(&planned_m, k).is_none() {
                    out.push(Problem::new(
                        path,
                        format!("map key {} from config is not present in plan", go_quote(k)),
                    ));
                }
            }
        }
        NestingMode::Set => {
            // Only the count can be checked: set elements have no identity.
            let (pl, cl) = (length_of(planned), length_of(config));
            if range_includes(&pl, &cl) == Some(false) {
                out.push(count_problem(path, &pl, &cl));
            }
        }
        NestingMode::Invalid => {}
    }
}
