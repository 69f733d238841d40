"""The files store of examples/seasonings/python/files.py with faults,
chosen by the state id, for the host's storage tests:

* writing a state that begins with b"CRASH" writes half of it to the
  temporary file and exits: the plugin dies mid-write;
* reading "hang" never answers;
* reading "text" answers a str where the state is bin;
* locking "nameless" answers a holder without its ID;
* listing after `configure` with directory "broken-list" answers ints.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../examples/seasonings/python"))

from files import Files, plugin  # noqa: E402


class Faulty(Files):
    def write(self, state_id, data):
        if data.startswith(b"CRASH"):
            with open(os.path.join(self.directory, "." + state_id + ".partial"), "wb") as f:
                f.write(data[: len(data) // 2])
            print(f"faulty_files: crashing mid-write of {state_id!r}", file=sys.stderr, flush=True)
            os._exit(3)
        super().write(state_id, data)

    def read(self, state_id):
        if state_id == "hang":
            time.sleep(3600)
        if state_id == "text":
            return "not bin"
        return super().read(state_id)

    def lock(self, state_id, info):
        if state_id == "nameless":
            return {"Who": "someone"}
        return super().lock(state_id, info)

    def list(self):
        if os.path.basename(self.directory) == "broken-list":
            return [1, 2]
        return super().list()


plugin.store = Faulty()

if __name__ == "__main__":
    plugin.run()
