// An example Seasonings plugin: slugs, exact sums, and dynamic values (the
// same functions as ../python/slugs.py, so the host's tests run against both).

import { Decimal, Plugin, PluginError, UNKNOWN, dynamic, isUnknown, readDynamic } from "./seasonings.mjs";

const plugin = new Plugin("slugs", "1.2.0");

plugin.function(
  "slug",
  {
    parameters: [
      { name: "text", type: "string" },
      // An unknown separator reaches us (the result is then unknown too).
      { name: "sep", type: "string", allow_unknown_values: true },
    ],
    returnType: "string",
    summary: "Lower-case words joined by a separator",
  },
  (text, sep) => {
    if (isUnknown(sep)) return UNKNOWN;
    if ([...sep].length !== 1) {
      throw new PluginError("Invalid separator", { detail: "the separator must be one character", functionArgument: 1 });
    }
    plugin.log("info", "made slug", { input: text });
    return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(sep);
  },
);

plugin.function(
  "sum",
  {
    parameters: [],
    variadic: { name: "numbers", type: "number" },
    returnType: "number",
    summary: "The exact sum of numbers (30-digit integers stay exact)",
  },
  (...numbers) => numbers.reduce((total, n) => total.add(n), new Decimal(0n)).toWire(),
);

plugin.function(
  "wrap",
  {
    parameters: [{ name: "value", type: "dynamic", is_nullable: true }],
    returnType: "dynamic",
    summary: "The value wrapped in an object {value = ...}, of any type",
  },
  (value) => {
    if (value === null) return null;
    const [type, inner] = readDynamic(value);
    return dynamic(["object", { value: type }], { value: inner });
  },
);

plugin.run();
