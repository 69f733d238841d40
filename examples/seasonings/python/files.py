"""An example Seasonings plugin with storage: Terraform's states as files,
served by `ctywire-seasonings` as the state store `files_storage`.

    terraform {
      state_store "files_storage" {
        provider "files" {}
        directory = "/var/lib/states"
      }
    }

State `ID` is `ID.tfstate` in the directory, written whole to a temporary
file and renamed into place (so a crash mid-write leaves the last state);
its lock is `ID.tflock`, created exclusively and holding the lock info.
"""

import json
import os
import tempfile

from seasonings import PluginError, StoragePlugin

plugin = StoragePlugin("files", "0.1.0")


@plugin.storage(
    {
        "attributes": {
            "directory": {"type": "string", "required": True, "description": "Where the state files are kept."},
        },
        "description": "Terraform's states as files in a directory.",
    }
)
class Files:
    def __init__(self):
        self.directory = None

    def configure(self, config):
        self.directory = config["directory"]
        os.makedirs(self.directory, exist_ok=True)

    def _path(self, state_id, suffix):
        if self.directory is None:
            raise PluginError("Not configured", "storage.configure comes first")
        if "/" in state_id or state_id.startswith("."):
            raise PluginError("Invalid state id", f"{state_id!r} cannot name a file", path=["state_id"])
        return os.path.join(self.directory, state_id + suffix)

    def read(self, state_id):
        try:
            with open(self._path(state_id, ".tfstate"), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def write(self, state_id, data):
        path = self._path(state_id, ".tfstate")
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix="." + state_id)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise

    def lock(self, state_id, info):
        path = self._path(state_id, ".tflock")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return self._holder(path)
        with os.fdopen(fd, "w") as f:
            json.dump(info, f)
        return None

    def unlock(self, state_id, lock_id):
        path = self._path(state_id, ".tflock")
        holder = self._holder(path)
        if holder is None:
            raise PluginError("Not locked", f"the state {state_id!r} is not locked")
        if holder.get("ID") != lock_id:
            return holder
        os.remove(path)
        return None

    def _holder(self, path):
        try:
            with open(path) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def list(self):
        if self.directory is None:
            raise PluginError("Not configured", "storage.configure comes first")
        names = os.listdir(self.directory)
        return sorted(n[: -len(".tfstate")] for n in names if n.endswith(".tfstate") and not n.startswith("."))

    def delete(self, state_id):
        if self._holder(self._path(state_id, ".tflock")) is not None:
            raise PluginError("State locked", f"the state {state_id!r} is locked; unlock it first")
        try:
            os.remove(self._path(state_id, ".tfstate"))
        except FileNotFoundError:
            pass


if __name__ == "__main__":
    plugin.run()
