"""A plugin that misbehaves on purpose, for the host's tests (misbehaving.mjs
is the same in Node). The mode is the first argument:

  speaks2     speaks Seasonings 2.0, so refuses the host's 1.0 in init
  answers2    answers init with 2.0 without checking (the host must refuse)
  garbage     writes a stray print to stdout before answering init
  (other)     a 1.0 plugin with functions that crash, hang, or echo
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../examples/seasonings/python"))

from seasonings import Plugin  # noqa: E402

mode = sys.argv[1] if len(sys.argv) > 1 else ""
plugin = Plugin("misbehaving", "0.0.1", protocol_version="2.0" if mode == "speaks2" else "1.0")

if mode == "answers2":
    plugin._init = lambda params: setattr(plugin, "_initialized", True) or {
        "protocol_version": "2.0",
        "name": "misbehaving",
        "version": "0.0.1",
        "capabilities": ["functions"],
    }

if mode == "garbage":
    sys.stdout.write("hello from a stray print\n")
    sys.stdout.flush()


@plugin.function(parameters=[{"name": "why", "type": "string"}], return_type="string")
def crash(why):
    print(f"about to crash: {why}", file=sys.stderr, flush=True)
    os._exit(3)


@plugin.function(parameters=[{"name": "x", "type": "string"}], return_type="string")
def hang(x):
    time.sleep(3600)


@plugin.function(parameters=[{"name": "x", "type": "string"}], return_type="string")
def echo(x):
    # Any argument that reaches us becomes a known string: an unknown one
    # (which the host must not send, the parameter not allowing unknowns)
    # would show up as "called with ExtType(...)".
    return f"called with {x!r}"


@plugin.function(parameters=[{"name": "message", "type": "string"}], return_type="string")
def log_bare(message):
    # The RFC's examples taken literally: params a bare map, not [map].
    plugin._send([2, "log", {"level": "warn", "message": message}])
    return "logged"


@plugin.function(parameters=[], return_type="number")
def wrong_type():
    return "not a number"


@plugin.function(parameters=[], return_type=["object", {"items": ["list", "number"]}])
def wrong_nested():
    # A value of the wrong type deep inside the result: the host names its path.
    return {"items": [1, "two"]}


@plugin.function(parameters=[{"name": "size", "type": "number"}], return_type="string")
def big(size):
    # A string of `size` bytes: a large answer.
    return "x" * size


if __name__ == "__main__":
    plugin.run()
