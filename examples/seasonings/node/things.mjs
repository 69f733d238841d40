// An example Seasonings plugin with resources: served to Terraform by
// `ctywire-seasonings` as the provider "things" (the same plugin as
// ../python/things.py, so the Terraform tests run against both).
//
// * `things_thing` plans itself: its `slug` is known at plan when `text`
//   is, unknown (it arrives as UNKNOWN) when not, and a warning when the
//   text has nothing to slug; a new `name` replaces it; `fail_after_create`
//   makes its create fail after the object exists, `exit_during_create`
//   makes the plugin exit in the middle of it (a crash), the object made; a
//   state without an id (what such a create leaves) finds its object by name.
// * `things_note` is planned by the host (Terraform's rules); it is at
//   schema version 1, and upgrades a version 0 state (`body` for `content`).
// * `data.things_slug` and `provider::things::slug(...)` slug a text.
//
// Objects are JSON files in $THINGS_DIR (default ./things).

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { ApplyFailed, PluginError, ResourcePlugin, UNKNOWN, isUnknown } from "./seasonings.mjs";

const plugin = new ResourcePlugin("things", "0.1.0");

function thingsDir() {
  const d = process.env.THINGS_DIR ?? "things";
  fs.mkdirSync(d, { recursive: true });
  return d;
}

const slugify = (text) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join("-");
const file = (id) => path.join(thingsDir(), `${id}.json`);
const token = () => randomBytes(4).toString("hex");

function stored(id) {
  return fs.existsSync(file(id)) ? JSON.parse(fs.readFileSync(file(id), "utf8")) : null;
}

function everything() {
  return fs
    .readdirSync(thingsDir())
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(thingsDir(), name), "utf8")));
}

function store(state) {
  fs.writeFileSync(file(state.id), JSON.stringify(state));
}

// What every resource here does alike: its objects are files by id.
const Stored = {
  delete: (prior) => fs.rmSync(file(prior.id), { force: true }),
  read: (state) => stored(state.id),
  import: (id) => stored(id),
};

plugin.function(
  "slug",
  { parameters: [{ name: "text", type: "string" }], returnType: "string", summary: "A text as a slug" },
  slugify,
);

plugin.resource(
  "thing",
  {
    attributes: {
      name: { type: "string", required: true, description: "Changing it replaces the thing." },
      text: { type: "string", required: true },
      slug: { type: "string", computed: true, description: "The text's slug, known at plan when the text is." },
      id: { type: "string", computed: true },
      fail_after_create: { type: "bool", optional: true },
      exit_during_create: { type: "bool", optional: true },
    },
    description: "A thing, kept in a file.",
  },
  {
    ...Stored,
    validate(config) {
      const name = config.name;
      if (typeof name === "string" && !/^[a-z0-9-]+$/.test(name)) {
        return [{ severity: "error", summary: "Invalid name", detail: `'${name}': lower-case letters, digits and - only`, path: ["name"] }];
      }
      return [];
    },
    plan(prior, proposed) {
      const planned = { ...proposed };
      const text = proposed.text;
      // The unknown text reaches us as UNKNOWN, never as null.
      planned.slug = isUnknown(text) ? UNKNOWN : slugify(text);
      const requiresReplace = [];
      if (prior === null) {
        planned.id = UNKNOWN;
      } else if (isUnknown(proposed.name) || proposed.name !== prior.name) {
        requiresReplace.push(["name"]);
        planned.id = UNKNOWN;
      }
      const diagnostics = [];
      if (planned.slug === "") {
        diagnostics.push({ severity: "warning", summary: "Empty slug", detail: `'${text}' has no letters or digits to slug`, path: ["text"] });
      }
      plugin.log("debug", "planned thing", { text_known: !isUnknown(text) });
      return { planned, requiresReplace, diagnostics };
    },
    create(planned) {
      const state = { ...planned, id: `${planned.name}-${token()}`, slug: slugify(planned.text) };
      store(state);
      if (planned.exit_during_create) {
        console.error(`things: exiting in the middle of creating ${state.id}`);
        process.exit(3);
      }
      if (planned.fail_after_create) {
        throw new ApplyFailed(state, "Thing created, then failed", `the thing ${state.id} exists; fix and apply again`);
      }
      return state;
    },
    update(prior, planned) {
      const state = { ...planned, id: prior.id, slug: slugify(planned.text) };
      store(state);
      return state;
    },
    read(state) {
      // A create that never answered leaves its object without an id.
      if (state.id === null) return everything().find((s) => s.name === state.name) ?? null;
      return stored(state.id);
    },
  },
);

plugin.resource(
  "note",
  { attributes: { content: { type: "string", required: true }, id: { type: "string", computed: true } } },
  {
    ...Stored,
    // Version 0 called the content `body`.
    upgrade: (version, state) => ({ content: state.body, id: state.id }),
    create(planned) {
      const state = { content: planned.content, id: `note-${token()}` };
      store(state);
      return state;
    },
    update(prior, planned) {
      const state = { content: planned.content, id: prior.id };
      store(state);
      return state;
    },
  },
  { version: 1 },
);

plugin.dataSource(
  "slug",
  { attributes: { text: { type: "string", required: true }, slug: { type: "string", computed: true } } },
  (config) => {
    if (typeof config.text !== "string") throw new PluginError("Invalid text", { detail: "text must be a known string", path: ["text"] });
    return { text: config.text, slug: slugify(config.text) };
  },
);

plugin.run();
