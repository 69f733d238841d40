"""A Seasonings plugin in Python: what every plugin would otherwise write.

The protocol (ctywire's docs/seasonings.md) is msgpack-rpc over stdin and
stdout; stderr is free text. This module answers `init`, `ping`,
`shutdown`, `functions.getSchema` and `functions.call`, middleware hooks
(`Plugin.hook`) and, in `ResourcePlugin`, resources and data sources;
it sends `log` notifications, and turns exceptions into error answers. Only the
`msgpack` package is needed.

Values arrive as msgpack decodes them: strings, ints, lists, dicts,
`UNKNOWN` (or another `msgpack.ExtType`) for an unknown, a string for a
number that is not an exact int64 or float (30-digit integers, "0.1"), and
`[type JSON as bytes, value]` where the type is "dynamic".
"""

import decimal
import json
import os
import sys
import traceback

import msgpack

PROTOCOL_VERSION = "1.0"

# Decimal arithmetic rounds to 28 digits by default, which would round a
# sum of 30-digit numbers: give it more than cty's own 512-bit numbers hold.
decimal.getcontext().prec = 200

# cty's unknown value: ext type 0 holding one zero byte. Ext type 12 is an
# unknown with refinements; `is_unknown` takes both.
UNKNOWN = msgpack.ExtType(0, b"\x00")

# Error codes (docs/seasonings.md §1.3).
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_VERSION = -32001
REQUEST_FAILED = 1


class PluginError(Exception):
    """A failure to report to the host: a function's error by default
    (code 1), naming the argument at fault when one is."""

    def __init__(self, message, detail=None, function_argument=None, code=REQUEST_FAILED, path=None):
        super().__init__(message)
        self.error = {"code": code, "message": message}
        if detail is not None:
            self.error["detail"] = detail
        if function_argument is not None:
            self.error["function_argument"] = function_argument
        if path is not None:
            self.error["path"] = path


def is_unknown(value):
    return isinstance(value, msgpack.ExtType) and value.code in (0, 12)


def number(value):
    """A cty number as an exact Python number: int, or Decimal."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return decimal.Decimal(value)
    if isinstance(value, float):
        # A float on the wire is exact in binary; keep exactly that value.
        return int(value) if value.is_integer() else decimal.Decimal(value)
    return value


def to_number(n):
    """An exact number for msgpack: an int that fits 64 bits as itself,
    anything else as its exact decimal string (never rounded)."""
    if isinstance(n, decimal.Decimal):
        if n == n.to_integral_value():
            n = int(n)
        else:
            return format(n, "f")
    if isinstance(n, int) and not isinstance(n, bool) and not (-(2**63) <= n < 2**64):
        return str(n)
    return n


def dynamic(type_json, value):
    """A value where the type is "dynamic": it carries its type."""
    return [json.dumps(type_json, separators=(",", ":")).encode(), value]


def read_dynamic(value):
    """(type as JSON data, value) of a value whose type was "dynamic"."""
    if is_unknown(value):
        return "dynamic", value
    type_bytes, inner = value
    return json.loads(type_bytes), inner


class Plugin:
    """A plugin: name, version, functions; `run()` serves stdin/stdout."""

    def __init__(self, name, version, protocol_version=PROTOCOL_VERSION):
        self.name = name
        self.version = version
        self.protocol_version = protocol_version
        self.functions = {}
        self.methods = {
            "ping": lambda params: {"status": "ok"},
            "functions.getSchema": self._get_schema,
            "functions.call": self._call_function,
        }
        self._out = sys.stdout.buffer
        self._packer = msgpack.Packer()
        self._initialized = False

    def hook(self, name):
        """Declares a middleware hook (docs/seasonings.md §7): `name` is
        `prePlan`, `postPlan`, `planStageCompleted`, ...; the function takes
        the hook's params and answers {status: "success"|"fail", message?}.
        A plugin with hooks offers the `hooks` capability."""

        def register(fn):
            self.methods[f"hooks.{name}"] = fn
            return fn

        return register

    def capabilities(self):
        hooks = any(m.startswith("hooks.") for m in self.methods)
        return ["functions"] + (["hooks"] if hooks else [])

    def function(self, parameters, return_type, variadic=None, summary=None, name=None):
        """Declares a function: `parameters` are dicts {name, type,
        is_nullable?, allow_unknown_values?}, types are cty type JSON."""

        def register(fn):
            schema = {"parameters": parameters, "return_type": return_type}
            if variadic is not None:
                schema["variadic_parameter"] = variadic
            if summary is not None:
                schema["summary"] = summary
            self.functions[name or fn.__name__] = (schema, fn)
            return fn

        return register

    def log(self, level, message, **fields):
        self._send([2, "log", [{"level": level, "message": message, "fields": fields}]])

    def _send(self, message):
        self._out.write(self._packer.pack(message))
        self._out.flush()

    def _get_schema(self, params):
        return {"functions": {n: schema for n, (schema, _) in self.functions.items()}}

    def _call_function(self, params):
        name = params.get("name")
        if name not in self.functions:
            raise PluginError("Unknown function", f"this plugin has no function {name!r}", code=INVALID_PARAMS)
        schema, fn = self.functions[name]
        args = params.get("arguments") or []
        return {"result": fn(*args)}

    def _init(self, params):
        theirs = str(params.get("protocol_version", ""))
        if theirs.split(".")[0] != self.protocol_version.split(".")[0]:
            raise PluginError(
                "Unsupported protocol version",
                f"the host speaks Seasonings {theirs}; this plugin speaks {self.protocol_version}",
                code=UNSUPPORTED_VERSION,
            )
        self._initialized = True
        return {
            "protocol_version": self.protocol_version,
            "name": self.name,
            "version": self.version,
            "capabilities": self.capabilities(),
        }

    def _answer(self, msgid, method, params):
        method = method.replace("/", ".")
        # Params are one map in an array; a bare map is read too.
        if isinstance(params, list):
            params = params[0] if params else {}
        if not isinstance(params, dict):
            params = {}
        try:
            if method == "init":
                result = self._init(params)
            elif method == "shutdown":
                self._send([1, msgid, None, {}])
                sys.exit(0)
            elif not self._initialized:
                raise PluginError("Invalid request", f"{method!r} before init", code=INVALID_REQUEST)
            elif method in self.methods:
                result = self.methods[method](params)
            else:
                raise PluginError("Method not found", f'this plugin has no method "{method}"', code=METHOD_NOT_FOUND)
            self._send([1, msgid, None, result])
        except PluginError as e:
            self._send([1, msgid, e.error, None])
        except Exception as e:  # an exception in the plugin: -32603, traceback to stderr
            traceback.print_exc()
            self._send([1, msgid, {"code": INTERNAL_ERROR, "message": str(e) or type(e).__name__}, None])

    def run(self):
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=64 << 20)
        stdin = sys.stdin.buffer.fileno()
        while True:
            chunk = os.read(stdin, 1 << 16)
            if not chunk:
                sys.exit(0)  # the host closed stdin: done
            unpacker.feed(chunk)
            for message in unpacker:
                if isinstance(message, list) and len(message) == 4 and message[0] == 0:
                    self._answer(message[1], message[2], message[3])
                else:
                    print(f"seasonings: ignoring a message that is not a request: {message!r}", file=sys.stderr)


# ---------------------------------------------------------------------
# Level 4: resources and data sources (docs/seasonings.md §6)


class ApplyFailed(Exception):
    """An apply that failed after creating or changing the object: the
    host gets `state` with the error, and Terraform keeps the object
    (tainted when it was just created) instead of losing it (§6.3)."""

    def __init__(self, state, summary, detail=None):
        super().__init__(summary)
        self.state = state
        self.diagnostic = {"severity": "error", "summary": summary}
        if detail is not None:
            self.diagnostic["detail"] = detail


class ResourcePlugin(Plugin):
    """A plugin with resources and data sources besides functions.

    A resource is a class registered with `@plugin.resource(name, block)`;
    an instance answers `create(planned, config)`, `update(prior, planned,
    config)`, `delete(prior)`, `read(state)` (None: gone) and optionally
    `validate(config)` -> diagnostics, `import_(id)`, `upgrade(version,
    state)` (a state stored at an older schema version, parsed from its
    JSON) and `plan(prior, proposed, config)` -> (planned, requires_replace
    paths[, diagnostics]): with `plan` the plugin plans the type itself
    (`plan_change: true`), else the host plans as Terraform would. A data
    source is a function of its config registered with
    `@plugin.data_source(name, block)`. Blocks are `terraform providers
    schema -json`'s shape. Values arrive with unknowns as `UNKNOWN`.
    """

    def __init__(self, name, version, protocol_version=PROTOCOL_VERSION):
        super().__init__(name, version, protocol_version)
        self.resources = {}
        self.data_sources = {}
        self.methods.update(
            {
                "resources.getSchema": self._resource_schemas,
                "resources.validateConfig": self._validate_resource,
                "dataSources.validateConfig": lambda params: {"diagnostics": []},
                "resources.planChange": self._plan_change,
                "resources.applyChange": self._apply_change,
                "resources.read": self._read,
                "resources.import": self._import,
                "resources.upgradeState": self._upgrade_state,
                "dataSources.read": self._read_data_source,
            }
        )

    def resource(self, name, block, version=0):
        def register(cls):
            instance = cls()
            schema = {"version": version, "block": block}
            if hasattr(instance, "plan"):
                schema["plan_change"] = True
            self.resources[name] = (schema, instance)
            return cls

        return register

    def data_source(self, name, block):
        def register(fn):
            self.data_sources[name] = ({"version": 0, "block": block}, fn)
            return fn

        return register

    def capabilities(self):
        return super().capabilities() + ["resources"]

    def _resource_schemas(self, params):
        return {
            "resource_schemas": {n: s for n, (s, _) in self.resources.items()},
            "data_source_schemas": {n: s for n, (s, _) in self.data_sources.items()},
        }

    def _of(self, kinds, params):
        name = params.get("type")
        if name not in kinds:
            raise PluginError("Unknown type", f"this plugin has no type {name!r}", code=INVALID_PARAMS)
        return kinds[name][1]

    def _validate_resource(self, params):
        r = self._of(self.resources, params)
        check = getattr(r, "validate", None)
        return {"diagnostics": check(params.get("config")) if check else []}

    def _plan_change(self, params):
        r = self._of(self.resources, params)
        planned, requires_replace, *diagnostics = r.plan(params.get("prior_state"), params["proposed_new_state"], params.get("config"))
        return {
            "planned_state": planned,
            "requires_replace": requires_replace,
            "planned_private": params.get("prior_private"),
            "diagnostics": diagnostics[0] if diagnostics else [],
        }

    def _apply_change(self, params):
        r = self._of(self.resources, params)
        prior, planned, config = params.get("prior_state"), params.get("planned_state"), params.get("config")
        try:
            if planned is None:
                r.delete(prior)
                state = None
            elif prior is None:
                state = r.create(planned, config)
            else:
                state = r.update(prior, planned, config)
        except ApplyFailed as e:
            return {"new_state": e.state, "private": params.get("planned_private"), "diagnostics": [e.diagnostic]}
        return {"new_state": state, "private": params.get("planned_private"), "diagnostics": []}

    def _read(self, params):
        r = self._of(self.resources, params)
        return {"new_state": r.read(params.get("current_state")), "private": params.get("private"), "diagnostics": []}

    def _import(self, params):
        name = params.get("type")
        r = self._of(self.resources, params)
        if not hasattr(r, "import_"):
            raise PluginError("Import not supported", f"{name} cannot be imported")
        state = r.import_(params.get("id"))
        imported = [] if state is None else [{"type": name, "state": state, "private": None}]
        return {"imported": imported, "diagnostics": []}

    def _upgrade_state(self, params):
        name, version = params.get("type"), params.get("version")
        r = self._of(self.resources, params)
        if not hasattr(r, "upgrade"):
            raise PluginError("Cannot upgrade state", f"{name} has no upgrade from schema version {version}")
        return {"upgraded_state": r.upgrade(version, json.loads(params["raw_state"])), "diagnostics": []}

    def _read_data_source(self, params):
        fn = self._of(self.data_sources, params)
        return {"state": fn(params.get("config")), "diagnostics": []}


# ---------------------------------------------------------------------
# Level 2: storage (docs/seasonings.md §8)


class StoragePlugin(Plugin):
    """A plugin that keeps Terraform's states, served by the host as the
    state store `NAME_storage`.

    The store is a class registered with `@plugin.storage(block)`, `block`
    the `state_store` block's schema (`terraform providers schema -json`'s
    shape). Its instance answers `configure(config)`, `read(state_id)` ->
    bytes or None, `write(state_id, data)` (replace the state whole, or
    not at all), `lock(state_id, info)` and `unlock(state_id, lock_id)` ->
    None, or the holder's lock info (a dict with "ID", "Who", ...) when
    another lock holds the state, `list()` -> state ids and
    `delete(state_id)`. Chunking, lock ids and lock info are the host's.
    """

    def __init__(self, name, version, protocol_version=PROTOCOL_VERSION):
        super().__init__(name, version, protocol_version)
        self.store = None
        self.store_schema = None
        self.methods.update(
            {
                "storage.getSchema": lambda params: {"schema": self.store_schema},
                "storage.configure": lambda params: self._store().configure(params.get("config")) or {},
                "storage.read": lambda params: {"state": self._store().read(_state_id(params))},
                "storage.write": self._write,
                "storage.lock": lambda params: _held(self._store().lock(_state_id(params), params.get("info") or {})),
                "storage.unlock": lambda params: _held(self._store().unlock(_state_id(params), params.get("lock_id"))),
                "storage.list": lambda params: {"state_ids": list(self._store().list())},
                "storage.delete": lambda params: self._store().delete(_state_id(params)) or {},
            }
        )

    def storage(self, block, version=0):
        def register(cls):
            self.store = cls()
            self.store_schema = {"version": version, "block": block}
            return cls

        return register

    def _store(self):
        if self.store is None:
            raise PluginError("No store", "this plugin registered no store (@plugin.storage)", code=INTERNAL_ERROR)
        return self.store

    def _write(self, params):
        data = params.get("state")
        if not isinstance(data, bytes):
            raise PluginError("Invalid state", "the state is bin", code=INVALID_PARAMS, path=["state"])
        self._store().write(_state_id(params), data)
        return {}

    def _init(self, params):
        result = super()._init(params)
        result["capabilities"] = ["functions", "storage"]
        return result


def _state_id(params):
    # The RFC calls it `path`; read that too (§8).
    state_id = params.get("state_id", params.get("path"))
    if not isinstance(state_id, str) or not state_id:
        raise PluginError("Invalid state id", "state_id is a non-empty string", code=INVALID_PARAMS, path=["state_id"])
    return state_id


def _held(holder):
    return {} if holder is None else {"held": holder}
