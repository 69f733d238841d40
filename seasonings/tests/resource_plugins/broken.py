"""A resource plugin that misbehaves on purpose, by the note's content:
"wrong type" answers a new_state whose content is a number where the
schema says string; "refuse" answers the apply with an `error` (nothing
changed); anything else works."""

import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../examples/seasonings/python"))

from seasonings import PluginError, ResourcePlugin  # noqa: E402

plugin = ResourcePlugin("broken", "0.0.1")
objects = {}


@plugin.resource(
    "note",
    {"attributes": {"content": {"type": "string", "required": True}, "id": {"type": "string", "computed": True}}},
)
class Note:
    def _save(self, planned, id_):
        content = planned["content"]
        if content == "wrong type":
            return {"content": ["not", "a", "string"], "id": id_}
        if content == "refuse":
            raise PluginError("Refused", "this content is refused", path=["content"])
        objects[id_] = {"content": content, "id": id_}
        return objects[id_]

    def create(self, planned, config):
        return self._save(planned, f"n{len(objects)}")

    def update(self, prior, planned, config):
        return self._save(planned, prior["id"])

    def delete(self, prior):
        objects.pop(prior["id"], None)

    def read(self, state):
        return objects.get(state["id"])


if __name__ == "__main__":
    plugin.run()
