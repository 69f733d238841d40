"""An example Seasonings plugin with resources: served to Terraform by
`ctywire-seasonings` as the provider "things".

* `things_thing` plans itself: its `slug` is known at plan when `text`
  is, unknown (it arrives as UNKNOWN) when not, and a warning when the
  text has nothing to slug; a new `name` replaces it; `fail_after_create`
  makes its create fail after the object exists, `exit_during_create` makes
  the plugin exit in the middle of it (a crash), the object made; a state
  without an id (what such a create leaves) finds its object by name.
* `things_note` is planned by the host (Terraform's rules); it is at
  schema version 1, and upgrades a version 0 state (`body` for `content`).
* `data.things_slug` and `provider::things::slug(...)` slug a text.

Objects are JSON files in $THINGS_DIR (default ./things).
"""

import json
import os
import re
import secrets
import sys

from seasonings import UNKNOWN, ApplyFailed, PluginError, ResourcePlugin, is_unknown

plugin = ResourcePlugin("things", "0.1.0")


def things_dir():
    d = os.environ.get("THINGS_DIR", "things")
    os.makedirs(d, exist_ok=True)
    return d


def slugify(text):
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


def stored(id_):
    path = os.path.join(things_dir(), f"{id_}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def everything():
    for name in sorted(os.listdir(things_dir())):
        with open(os.path.join(things_dir(), name)) as f:
            yield json.load(f)


def store(state):
    with open(os.path.join(things_dir(), f"{state['id']}.json"), "w") as f:
        json.dump(state, f)


def forget(state):
    path = os.path.join(things_dir(), f"{state['id']}.json")
    if os.path.exists(path):
        os.remove(path)


class Stored:
    """What every resource here does alike: its objects are files by id."""

    def delete(self, prior):
        forget(prior)

    def read(self, state):
        return stored(state["id"])

    def import_(self, id_):
        return stored(id_)


@plugin.function(parameters=[{"name": "text", "type": "string"}], return_type="string", summary="A text as a slug")
def slug(text):
    return slugify(text)


@plugin.resource(
    "thing",
    {
        "attributes": {
            "name": {"type": "string", "required": True, "description": "Changing it replaces the thing."},
            "text": {"type": "string", "required": True},
            "slug": {"type": "string", "computed": True, "description": "The text's slug, known at plan when the text is."},
            "id": {"type": "string", "computed": True},
            "fail_after_create": {"type": "bool", "optional": True},
            "exit_during_create": {"type": "bool", "optional": True},
        },
        "description": "A thing, kept in a file.",
    },
)
class Thing(Stored):
    def validate(self, config):
        name = config["name"]
        if isinstance(name, str) and not re.fullmatch(r"[a-z0-9-]+", name):
            return [{"severity": "error", "summary": "Invalid name", "detail": f"{name!r}: lower-case letters, digits and - only", "path": ["name"]}]
        return []

    def plan(self, prior, proposed, config):
        planned = dict(proposed)
        text = proposed["text"]
        # The unknown text reaches us as UNKNOWN, never as None.
        planned["slug"] = UNKNOWN if is_unknown(text) else slugify(text)
        replace = []
        if prior is None:
            planned["id"] = UNKNOWN
        elif is_unknown(proposed["name"]) or proposed["name"] != prior["name"]:
            replace.append(["name"])
            planned["id"] = UNKNOWN
        warnings = []
        if planned["slug"] == "":
            warnings.append({"severity": "warning", "summary": "Empty slug", "detail": f"{text!r} has no letters or digits to slug", "path": ["text"]})
        plugin.log("debug", "planned thing", text_known=not is_unknown(text))
        return planned, replace, warnings

    def create(self, planned, config):
        state = dict(planned)
        state["id"] = f"{planned['name']}-{secrets.token_hex(4)}"
        state["slug"] = slugify(planned["text"])
        store(state)
        if planned.get("exit_during_create"):
            print(f"things: exiting in the middle of creating {state['id']}", file=sys.stderr, flush=True)
            os._exit(3)
        if planned.get("fail_after_create"):
            raise ApplyFailed(state, "Thing created, then failed", f"the thing {state['id']} exists; fix and apply again")
        return state

    def update(self, prior, planned, config):
        state = dict(planned)
        state["id"] = prior["id"]
        state["slug"] = slugify(planned["text"])
        store(state)
        return state

    def read(self, state):
        if state["id"] is None:
            # A create that never answered leaves its object without an id.
            return next((s for s in everything() if s.get("name") == state["name"]), None)
        return stored(state["id"])



@plugin.resource(
    "note",
    {
        "attributes": {
            "content": {"type": "string", "required": True},
            "id": {"type": "string", "computed": True},
        }
    },
    version=1,
)
class Note(Stored):
    def upgrade(self, version, state):
        # Version 0 called the content `body`.
        return {"content": state["body"], "id": state["id"]}

    def create(self, planned, config):
        state = {"content": planned["content"], "id": f"note-{secrets.token_hex(4)}"}
        store(state)
        return state

    def update(self, prior, planned, config):
        state = {"content": planned["content"], "id": prior["id"]}
        store(state)
        return state



@plugin.data_source(
    "slug",
    {"attributes": {"text": {"type": "string", "required": True}, "slug": {"type": "string", "computed": True}}},
)
def slug_data(config):
    if not isinstance(config.get("text"), str):
        raise PluginError("Invalid text", "text must be a known string", path=["text"])
    return {"text": config["text"], "slug": slugify(config["text"])}


if __name__ == "__main__":
    plugin.run()
