//! Tests as their authors think of them: a sequence of [`Step`]s, each a
//! configuration and what should come of it, as terraform-plugin-testing's
//! `TestStep` (a configuration, the planned actions expected per
//! resource, state checks, an expected error, a refresh, and an empty
//! re-plan asserted unless told otherwise).

use serde_json::Value as Json;

use crate::{ChangeAction, Harness, Plan, State};

/// One step of a test, run by [`Harness::run`].
#[derive(Clone, Debug, Default)]
pub struct Step {
    config: Option<String>,
    variables: Vec<(String, Json)>,
    actions: Vec<(String, ChangeAction)>,
    checks: Vec<(String, String, Json)>,
    expect_error: Option<String>,
    refresh: bool,
    non_empty_plan: bool,
}

impl Step {
    /// A step that plans and applies `main_tf` (HCL native syntax).
    pub fn config(main_tf: impl Into<String>) -> Step {
        Step {
            config: Some(main_tf.into()),
            ..Step::default()
        }
    }

    /// A step that refreshes the state (`apply -refresh-only`) with the
    /// configuration of the step before.
    pub fn refresh() -> Step {
        Step {
            refresh: true,
            ..Step::default()
        }
    }

    /// Gives an input variable a value for this step (as `-var`;
    /// `ConfigVariables`): a configuration step starts with none given.
    pub fn variable(mut self, name: &str, value: Json) -> Step {
        self.variables.push((name.to_owned(), value));
        self
    }

    /// The plan must give `address` this action
    /// (`plancheck.ExpectResourceAction`).
    pub fn expect_action(mut self, address: &str, action: ChangeAction) -> Step {
        self.actions.push((address.to_owned(), action));
        self
    }

    /// After the step, the attribute at `path` of `address` (`tags.env`,
    /// `rule.0.port`) must be `value` (`statecheck.ExpectKnownValue`).
    pub fn check(mut self, address: &str, path: &str, value: Json) -> Step {
        self.checks
            .push((address.to_owned(), path.to_owned(), value));
        self
    }

    /// The step must fail with an error whose summary or detail matches
    /// the regular expression `pattern` (`ExpectError`).
    pub fn expect_error(mut self, pattern: &str) -> Step {
        self.expect_error = Some(pattern.to_owned());
        self
    }

    /// The plan after the apply may have changes
    /// (`ExpectNonEmptyPlan`); by default it must have none.
    pub fn expect_non_empty_plan(mut self) -> Step {
        self.non_empty_plan = true;
        self
    }
}

impl Harness {
    /// Runs `steps` in order on this harness's state; the first failure
    /// stops them and names the step (counted from 1, as
    /// terraform-plugin-testing counts) and the resource and attribute.
    pub fn run(&mut self, steps: &[Step]) -> Result<(), String> {
        for (i, step) in steps.iter().enumerate() {
            self.run_step(step)
                .map_err(|e| format!("step {}/{}: {e}", i + 1, steps.len()))?;
        }
        Ok(())
    }

    fn run_step(&mut self, step: &Step) -> Result<(), String> {
        if step.config.is_some() {
            self.variable_values.clear();
        }
        for (name, value) in &step.variables {
            self.variable(name, value.clone())
                .map_err(|d| format!("variable {name:?}: {d}"))?;
        }
        let outcome = self.step_commands(step);
        match (&step.expect_error, outcome) {
            (Some(pattern), Err(e)) => {
                let re = regex_lite::Regex::new(pattern)
                    .map_err(|e| format!("the expected error's pattern is invalid: {e}"))?;
                if re.is_match(&e) {
                    Ok(())
                } else {
                    Err(format!("expected an error matching {pattern:?}, got: {e}"))
                }
            }
            (Some(pattern), Ok(_)) => Err(format!(
                "expected an error matching {pattern:?}, but the step succeeded"
            )),
            (None, Err(e)) => Err(e),
            (None, Ok(state)) => {
                for (address, path, want) in &step.checks {
                    let got = lookup(state.values(address), path);
                    if got != Some(want) {
                        return Err(format!(
                            "{address}.{path}: expected {want}, got {}",
                            got.map_or(
                                "nothing (no such attribute or resource)".into(),
                                Json::to_string
                            )
                        ));
                    }
                }
                if !step.refresh && !step.non_empty_plan {
                    let plan = self
                        .plan()
                        .map_err(|d| format!("the re-plan failed: {d}"))?;
                    if !plan.is_empty() {
                        return Err(format!(
                            "after applying, the plan was not empty: {}",
                            changed(&plan).join(", ")
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// The step's commands; an error is its text.
    fn step_commands(&mut self, step: &Step) -> Result<State, String> {
        if step.refresh {
            return self.refresh().map_err(|d| d.to_string());
        }
        if let Some(text) = &step.config {
            self.config_hcl(text).map_err(|d| d.to_string())?;
        }
        let plan = self.plan().map_err(|d| d.to_string())?;
        for (address, want) in &step.actions {
            let got = plan.action(address);
            if got != Some(*want) {
                return Err(format!(
                    "{address}: expected the plan to {}, it plans {}",
                    want.actions().join(" then "),
                    got.map_or("nothing".into(), |a| a.actions().join(" then "))
                ));
            }
        }
        self.apply_plan(&plan).map_err(|d| d.to_string())
    }
}

/// The addresses a plan changes, with their actions.
fn changed(plan: &Plan) -> Vec<String> {
    plan.changes
        .iter()
        .filter(|c| c.action != ChangeAction::NoOp)
        .map(|c| format!("{} ({})", c.address, c.action.actions().join(", ")))
        .collect()
}

/// The value at a dotted path (`tags.env`, `rule.0.port`).
fn lookup<'a>(v: &'a Json, path: &str) -> Option<&'a Json> {
    if v.is_null() {
        return None;
    }
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Json::Object(o) => o.get(part)?,
            Json::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}
