//! The Rust SDK's `things` plugin, as examples/seasonings/python/things.py:
//! served to Terraform by `ctywire-seasonings` as the provider "things".
//!
//! * `things_thing` plans itself: its `slug` is known at plan when `text`
//!   is, unknown when not, and a warning when the text has nothing to
//!   slug; a new `name` replaces it; `fail_after_create` makes its create
//!   fail after the object exists, `exit_during_create` makes the plugin
//!   exit in the middle of it (a crash), the object made; a state without
//!   an id (what such a create leaves) finds its object by name.
//! * `things_note` is planned by the host (Terraform's rules); it is at
//!   schema version 1, and upgrades a version 0 state (`body` for
//!   `content`).
//! * `data.things_slug` and `provider::things::slug(...)` slug a text.
//!
//! Objects are JSON files in $THINGS_DIR (default ./things). (Small files,
//! read and written in place: a plugin doing slow I/O would use
//! `tokio::fs` or `spawn_blocking`, since calls share the runtime.)

use std::hash::{BuildHasher, Hasher};
use std::path::PathBuf;

use ctywire_seasonings::plugin::{
    async_trait, log, DataSource, Error, Failed, Function, Model, Path, Plan, Plugin, Resource,
    StoredState, Type, Value,
};
use seasonings_plugin_example::slugify;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

fn dir() -> Result<PathBuf, Error> {
    let dir = PathBuf::from(std::env::var("THINGS_DIR").unwrap_or_else(|_| "things".into()));
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
    Ok(dir)
}

fn file(id: &str) -> Result<PathBuf, Error> {
    Ok(dir()?.join(format!("{id}.json")))
}

fn io_error(at: &std::path::Path, e: impl std::fmt::Display) -> Error {
    Error::new("Cannot reach the stored objects").detail(format!("{}: {e}", at.display()))
}

fn stored<T: DeserializeOwned>(id: &str) -> Result<Option<T>, Error> {
    let path = file(id)?;
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| io_error(&path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(&path, e)),
    }
}

/// Every stored object that reads as a `T`, in file name order.
fn everything<T: DeserializeOwned>() -> Result<Vec<T>, Error> {
    let dir = dir()?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| io_error(&dir, e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    names.sort();
    Ok(names
        .iter()
        .filter_map(|path| std::fs::read(path).ok())
        .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
        .collect())
}

fn store<T: Serialize>(id: &str, state: &T) -> Result<(), Error> {
    let path = file(id)?;
    let bytes = serde_json::to_vec(state).map_err(|e| io_error(&path, e))?;
    std::fs::write(&path, bytes).map_err(|e| io_error(&path, e))
}

fn forget(id: &str) -> Result<(), Error> {
    let path = file(id)?;
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&path, e)),
        _ => Ok(()),
    }
}

/// Eight random hex digits (std's hasher keys are random per instance).
fn token() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(std::process::id().into());
    format!("{:08x}", h.finish() as u32)
}

/// A thing, kept in a file.
#[derive(Model, Serialize, Deserialize)]
struct Thing {
    /// Changing it replaces the thing.
    name: String,
    text: String,
    /// The text's slug, known at plan when the text is.
    #[model(computed)]
    slug: Option<String>,
    #[model(computed)]
    id: Option<String>,
    fail_after_create: Option<bool>,
    exit_during_create: Option<bool>,
}

struct Things;

#[async_trait]
impl Resource for Things {
    type State = Thing;
    const PLANS_ITSELF: bool = true;

    fn validate(&self, config: &Value) -> Vec<Error> {
        match config.attr("name").and_then(Value::as_str) {
            Some(name)
                if !name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    || name.is_empty() =>
            {
                vec![Error::new("Invalid name")
                    .detail(format!("'{name}': lower-case letters, digits and - only"))
                    .at(Path::root().attr("name"))]
            }
            _ => Vec::new(),
        }
    }

    async fn plan(&self, prior: Option<Thing>, proposed: Value, _: &Value) -> Result<Plan, Error> {
        let mut planned = proposed;
        // An unknown text reaches the plan as an unknown, never as null.
        let slug = match planned.attr("text").and_then(Value::as_str) {
            Some(text) => Value::string(slugify(text, "-")),
            None => Value::unknown(Type::String),
        };
        log::debug!(text_known = slug.is_known(); "planned thing");
        planned.set_attr("slug", slug)?;
        let mut requires_replace = Vec::new();
        let renamed = match &prior {
            None => true,
            Some(prior) => {
                planned.attr("name").and_then(Value::as_str) != Some(prior.name.as_str())
            }
        };
        if renamed {
            planned.set_attr("id", Value::unknown(Type::String))?;
            if prior.is_some() {
                requires_replace.push(Path::root().attr("name"));
            }
        }
        let mut warnings = Vec::new();
        if planned.attr("slug").and_then(Value::as_str) == Some("") {
            let text = planned
                .attr("text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            warnings.push(
                Error::new("Empty slug")
                    .detail(format!("'{text}' has no letters or digits to slug"))
                    .at(Path::root().attr("text")),
            );
        }
        Ok(Plan {
            state: planned,
            requires_replace,
            warnings,
        })
    }

    async fn create(&self, planned: Thing, _: &Value) -> Result<Thing, Failed<Thing>> {
        let id = format!("{}-{}", planned.name, token());
        let state = Thing {
            slug: Some(slugify(&planned.text, "-")),
            id: Some(id.clone()),
            ..planned
        };
        store(&id, &state)?;
        if state.exit_during_create == Some(true) {
            eprintln!("things: exiting in the middle of creating {id}");
            std::process::exit(3);
        }
        if state.fail_after_create == Some(true) {
            let error = Error::new("Thing created, then failed")
                .detail(format!("the thing {id} exists; fix and apply again"));
            return Err(Failed::after(state, error));
        }
        Ok(state)
    }

    async fn read(&self, state: Thing) -> Result<Option<Thing>, Error> {
        match &state.id {
            Some(id) => stored(id),
            // A create that never answered leaves its object without an id.
            None => Ok(everything::<Thing>()?
                .into_iter()
                .find(|t| t.name == state.name)),
        }
    }

    async fn update(
        &self,
        prior: Thing,
        planned: Thing,
        _: &Value,
    ) -> Result<Thing, Failed<Thing>> {
        let state = Thing {
            slug: Some(slugify(&planned.text, "-")),
            id: prior.id,
            ..planned
        };
        store(state.id.as_deref().unwrap_or_default(), &state)?;
        Ok(state)
    }

    async fn delete(&self, state: Thing) -> Result<(), Error> {
        forget(state.id.as_deref().unwrap_or_default())
    }

    async fn import(&self, id: &str) -> Result<Option<Thing>, Error> {
        stored(id)
    }
}

#[derive(Model, Serialize, Deserialize)]
struct Note {
    content: String,
    #[model(computed)]
    id: Option<String>,
}

/// A note as schema version 0 stored it.
#[derive(Model, Serialize, Deserialize)]
struct NoteV0 {
    body: String,
    #[model(computed)]
    id: Option<String>,
}

struct Notes;

#[async_trait]
impl Resource for Notes {
    type State = Note;
    const VERSION: u64 = 1;

    async fn upgrade(&self, stored: StoredState) -> Result<Note, Error> {
        // Version 0 called the content `body`.
        let v0: NoteV0 = stored.decode()?;
        Ok(Note {
            content: v0.body,
            id: v0.id,
        })
    }

    async fn create(&self, planned: Note, _: &Value) -> Result<Note, Failed<Note>> {
        let id = format!("note-{}", token());
        let note = Note {
            id: Some(id.clone()),
            ..planned
        };
        store(&id, &note)?;
        Ok(note)
    }

    async fn read(&self, state: Note) -> Result<Option<Note>, Error> {
        stored(state.id.as_deref().unwrap_or_default())
    }

    async fn update(&self, prior: Note, planned: Note, _: &Value) -> Result<Note, Failed<Note>> {
        let note = Note {
            id: prior.id,
            ..planned
        };
        store(note.id.as_deref().unwrap_or_default(), &note)?;
        Ok(note)
    }

    async fn delete(&self, state: Note) -> Result<(), Error> {
        forget(state.id.as_deref().unwrap_or_default())
    }

    async fn import(&self, id: &str) -> Result<Option<Note>, Error> {
        stored(id)
    }
}

#[derive(Model, Serialize, Deserialize)]
struct SlugData {
    text: String,
    #[model(computed)]
    slug: Option<String>,
}

struct SlugSource;

#[async_trait]
impl DataSource for SlugSource {
    type Model = SlugData;

    async fn read(&self, config: SlugData) -> Result<SlugData, Error> {
        let slug = Some(slugify(&config.text, "-"));
        Ok(SlugData { slug, ..config })
    }
}

/// A text as a slug
#[derive(Model, Serialize, Deserialize)]
struct SlugArgs {
    text: String,
}

struct Slug;

#[async_trait]
impl Function for Slug {
    type Args = SlugArgs;
    type Output = String;

    async fn call(&self, args: SlugArgs) -> Result<String, Error> {
        Ok(slugify(&args.text, "-"))
    }
}

fn main() -> std::process::ExitCode {
    Plugin::new("things", "0.1.0")
        .resource("thing", Things)
        .resource("note", Notes)
        .data_source("slug", SlugSource)
        .function("slug", Slug)
        .serve()
}
