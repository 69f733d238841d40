// A plugin that misbehaves on purpose, for the host's tests: the same modes
// and functions as misbehaving.py. The mode is the first argument:
//
//   speaks2     speaks Seasonings 2.0, so refuses the host's 1.0 in init
//   answers2    answers init with 2.0 without checking (the host must refuse)
//   garbage     writes a stray print to stdout before answering init
//   (other)     a 1.0 plugin with functions that crash, hang, or echo

import { Plugin } from "../../../examples/seasonings/node/seasonings.mjs";

const mode = process.argv[2] ?? "";
const plugin = new Plugin("misbehaving", "0.0.1", { protocolVersion: mode === "speaks2" ? "2.0" : "1.0" });

if (mode === "answers2") {
  plugin.init = () => {
    plugin.initialized = true;
    return { protocol_version: "2.0", name: "misbehaving", version: "0.0.1", capabilities: ["functions"] };
  };
}

if (mode === "garbage") process.stdout.write("hello from a stray print\n");

const str = (name) => ({ parameters: [{ name, type: "string" }], returnType: "string" });

plugin.function("crash", str("why"), (why) => {
  process.stderr.write(`about to crash: ${why}\n`, () => process.exit(3));
  return new Promise(() => {});
});

plugin.function("hang", str("x"), () => new Promise(() => {}));

// Any argument that reaches us becomes a known string: an unknown one (which
// the host must not send, the parameter not allowing unknowns) would show up
// as "called with [object Object]".
plugin.function("echo", str("x"), (x) => `called with '${x}'`);

plugin.function("log_bare", str("message"), (message) => {
  // The RFC's examples taken literally: params a bare map, not [map].
  plugin.send([2, "log", { level: "warn", message }]);
  return "logged";
});

plugin.function("wrong_type", { parameters: [], returnType: "number" }, () => "not a number");

// A value of the wrong type deep inside the result: the host names its path.
plugin.function(
  "wrong_nested",
  { parameters: [], returnType: ["object", { items: ["list", "number"] }] },
  () => ({ items: [1, "two"] }),
);

// A string of `size` bytes: a large answer.
plugin.function("big", { parameters: [{ name: "size", type: "number" }], returnType: "string" }, (size) =>
  "x".repeat(Number(size)),
);

plugin.run();
