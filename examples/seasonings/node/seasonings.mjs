// A Seasonings plugin in Node: what every plugin would otherwise write.
//
// The protocol (ctywire's docs/seasonings.md) is msgpack-rpc over stdin and
// stdout; stderr is free text. This module answers `init`, `ping`,
// `shutdown`, `functions.getSchema` and `functions.call`, sends `log`
// notifications, and turns exceptions into error answers. Only the
// `@msgpack/msgpack` package is needed (found the ordinary way, or through
// NODE_PATH: `bash scripts/seasonings-peers.sh` installs it under
// target/peers/node).
//
// Values arrive as msgpack decodes them: strings, numbers, BigInts (int64
// and uint64 on the wire, so integers beyond 2^53 stay exact), arrays,
// plain objects, `UNKNOWN` (or another `ExtData`) for an unknown, a string
// for a number that is not an exact int64 or float (30-digit integers,
// "0.1"), and `[type JSON as bytes, value]` where the type is "dynamic".
// `Decimal` does exact arithmetic on any of those numbers. `ResourcePlugin`
// adds resources and data sources (level 4) to the functions.

import { createRequire } from "node:module";

// `require` rather than `import`, because only `require` honours NODE_PATH.
const require = createRequire(import.meta.url);
const { Encoder, ExtData, decodeMultiStream } = require("@msgpack/msgpack");

export const PROTOCOL_VERSION = "1.0";

// cty's unknown value: ext type 0 holding one zero byte. Ext type 12 is an
// unknown with refinements; `isUnknown` takes both.
export const UNKNOWN = new ExtData(0, Uint8Array.of(0));

// Error codes (docs/seasonings.md §1.3).
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const UNSUPPORTED_VERSION = -32001;
export const REQUEST_FAILED = 1;

// The largest message read: the host's own limit (§1).
const MAX_MESSAGE = 64 << 20;

/** A failure to report to the host: a function's error by default (code 1),
 * naming the argument at fault when one is. */
export class PluginError extends Error {
  constructor(message, { detail, functionArgument, code = REQUEST_FAILED, path } = {}) {
    super(message);
    this.error = { code, message };
    if (detail !== undefined) this.error.detail = detail;
    if (functionArgument !== undefined) this.error.function_argument = functionArgument;
    if (path !== undefined) this.error.path = path;
  }
}

export function isUnknown(value) {
  return value instanceof ExtData && (value.type === 0 || value.type === 12);
}

/** An exact decimal number: `coef / 10^scale`. cty numbers are arbitrary
 * precision; a JS number would round 30-digit integers and "0.1". */
export class Decimal {
  constructor(coef, scale = 0) {
    this.coef = coef;
    this.scale = scale;
    // Canonical: no trailing zeros after the point, so equal values look equal.
    while (this.scale > 0 && this.coef % 10n === 0n) {
      this.coef /= 10n;
      this.scale -= 1;
    }
  }

  /** A number as it came off the wire: a number, a BigInt, or a string of
   * the exact decimal. */
  static from(value) {
    if (value instanceof Decimal) return value;
    if (typeof value === "bigint") return new Decimal(value);
    if (typeof value === "number") return Decimal.fromFloat(value);
    if (typeof value === "string") return Decimal.parse(value);
    throw new PluginError("Not a number", { detail: `${String(value)} is not a number`, code: INVALID_PARAMS });
  }

  static parse(text) {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    if (!m || (m[2] === "" && (m[3] ?? "") === "")) {
      throw new PluginError("Not a number", { detail: `${JSON.stringify(text)} is not a decimal number`, code: INVALID_PARAMS });
    }
    const frac = m[3] ?? "";
    let coef = BigInt((m[2] || "0") + frac);
    let scale = frac.length - Number(m[4] ?? 0);
    if (scale < 0) {
      coef *= 10n ** BigInt(-scale);
      scale = 0;
    }
    return new Decimal(m[1] === "-" ? -coef : coef, scale);
  }

  /** A float64 exactly as it is in binary (0.1 is not 1/10 there). */
  static fromFloat(x) {
    if (!Number.isFinite(x)) {
      throw new PluginError("Not a number", { detail: `${x} is not a finite number`, code: INVALID_PARAMS });
    }
    if (Number.isInteger(x)) return new Decimal(BigInt(x));
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const bits = view.getBigUint64(0);
    const negative = bits >> 63n === 1n;
    const exponent = Number((bits >> 52n) & 0x7ffn);
    let mantissa = bits & ((1n << 52n) - 1n);
    // value = mantissa * 2^e = mantissa * 5^-e / 10^-e (e < 0: not an integer)
    let e;
    if (exponent === 0) {
      e = -1074;
    } else {
      mantissa |= 1n << 52n;
      e = exponent - 1075;
    }
    const coef = mantissa * 5n ** BigInt(-e);
    return new Decimal(negative ? -coef : coef, -e);
  }

  add(other) {
    const b = Decimal.from(other);
    const scale = Math.max(this.scale, b.scale);
    const widen = (d) => d.coef * 10n ** BigInt(scale - d.scale);
    return new Decimal(widen(this) + widen(b), scale);
  }

  toString() {
    if (this.scale === 0) return this.coef.toString();
    const negative = this.coef < 0n;
    const digits = (negative ? -this.coef : this.coef).toString().padStart(this.scale + 1, "0");
    const point = digits.length - this.scale;
    return `${negative ? "-" : ""}${digits.slice(0, point)}.${digits.slice(point)}`;
  }

  /** The number for msgpack: an integer as a number or a BigInt (which
   * the plugin writes exactly, whatever its size), anything else as its
   * exact decimal string (never rounded). */
  toWire() {
    if (this.scale > 0) return this.toString();
    const safe = this.coef >= BigInt(Number.MIN_SAFE_INTEGER) && this.coef <= BigInt(Number.MAX_SAFE_INTEGER);
    return safe ? Number(this.coef) : this.coef;
  }
}

/** An encoder that writes a BigInt exactly: as an int64 or uint64 when it
 * fits, else as its decimal string (cty's form for a number msgpack's
 * integers cannot hold). @msgpack/msgpack's own would wrap it silently. */
class ExactEncoder extends Encoder {
  encodeBigInt64(n) {
    if (n < -(2n ** 63n) || n >= 2n ** 64n) {
      this.encodeString(n.toString());
    } else {
      super.encodeBigInt64(n);
    }
  }
}

const utf8 = { encode: (s) => new TextEncoder().encode(s), decode: (b) => new TextDecoder().decode(b) };

/** A value where the type is "dynamic": it carries its type. */
export function dynamic(typeJson, value) {
  return [utf8.encode(JSON.stringify(typeJson)), value];
}

/** [type as JSON data, value] of a value whose type was "dynamic". */
export function readDynamic(value) {
  if (isUnknown(value)) return ["dynamic", value];
  const [typeBytes, inner] = value;
  return [JSON.parse(utf8.decode(typeBytes)), inner];
}

/** A plugin: name, version, functions; `run()` serves stdin/stdout. */
export class Plugin {
  constructor(name, version, { protocolVersion = PROTOCOL_VERSION } = {}) {
    this.name = name;
    this.version = version;
    this.protocolVersion = protocolVersion;
    this.functions = new Map();
    this.methods = new Map([
      ["ping", () => ({ status: "ok" })],
      ["functions.getSchema", () => this.#getSchema()],
      ["functions.call", (params) => this.#callFunction(params)],
    ]);
    this.capabilities = ["functions"];
    this.initialized = false;
    // BigInts out exactly, so integers beyond 2^53 stay integers.
    this.encoder = new ExactEncoder({ useBigInt64: true, ignoreUndefined: true });
  }

  /** Declares function `name`: `parameters` are objects {name, type,
   * is_nullable?, allow_unknown_values?}, types are cty type JSON. `fn`
   * may be async. */
  function(name, { parameters, returnType, variadic, summary }, fn) {
    const schema = { parameters, return_type: returnType };
    if (variadic !== undefined) schema.variadic_parameter = variadic;
    if (summary !== undefined) schema.summary = summary;
    this.functions.set(name, { schema, fn });
  }

  log(level, message, fields = {}) {
    this.send([2, "log", [{ level, message, fields }]]);
  }

  send(message, then) {
    process.stdout.write(this.encoder.encode(message), then);
  }

  #getSchema() {
    const functions = {};
    for (const [name, { schema }] of this.functions) functions[name] = schema;
    return { functions };
  }

  async #callFunction(params) {
    const entry = this.functions.get(params.name);
    if (entry === undefined) {
      throw new PluginError("Unknown function", {
        detail: `this plugin has no function ${JSON.stringify(params.name)}`,
        code: INVALID_PARAMS,
      });
    }
    return { result: await entry.fn(...(params.arguments ?? [])) };
  }

  init(params) {
    const theirs = String(params.protocol_version ?? "");
    if (theirs.split(".")[0] !== this.protocolVersion.split(".")[0]) {
      throw new PluginError("Unsupported protocol version", {
        detail: `the host speaks Seasonings ${theirs}; this plugin speaks ${this.protocolVersion}`,
        code: UNSUPPORTED_VERSION,
      });
    }
    this.initialized = true;
    return {
      protocol_version: this.protocolVersion,
      name: this.name,
      version: this.version,
      capabilities: this.capabilities,
    };
  }

  async #answer(msgid, method, params) {
    method = String(method).replaceAll("/", ".");
    // Params are one map in an array; a bare map is read too.
    if (Array.isArray(params)) params = params.length > 0 ? params[0] : {};
    if (params === null || typeof params !== "object" || Array.isArray(params)) params = {};
    try {
      let result;
      if (method === "init") {
        result = this.init(params);
      } else if (method === "shutdown") {
        this.send([1, msgid, null, {}], () => process.exit(0));
        return;
      } else if (!this.initialized) {
        throw new PluginError("Invalid request", { detail: `"${method}" before init`, code: INVALID_REQUEST });
      } else if (this.methods.has(method)) {
        result = await this.methods.get(method)(params);
      } else {
        throw new PluginError("Method not found", {
          detail: `this plugin has no method "${method}"`,
          code: METHOD_NOT_FOUND,
        });
      }
      this.send([1, msgid, null, result]);
    } catch (e) {
      if (e instanceof PluginError) {
        this.send([1, msgid, e.error, null]);
      } else {
        // An exception in the plugin: -32603, the stack to stderr.
        console.error(e);
        this.send([1, msgid, { code: INTERNAL_ERROR, message: String(e?.message || e) }, null]);
      }
    }
  }

  /** Serves requests from stdin until it closes. Requests are answered as
   * they finish (async functions may overlap; answers carry their ids). */
  async run() {
    const decoder = { useBigInt64: true, maxStrLength: MAX_MESSAGE, maxBinLength: MAX_MESSAGE };
    for await (const message of decodeMultiStream(process.stdin, decoder)) {
      if (Array.isArray(message) && message.length === 4 && message[0] === 0) {
        this.#answer(message[1], message[2], message[3]);
      } else {
        console.error(`seasonings: ignoring a message that is not a request: ${JSON.stringify(message, bigints)}`);
      }
    }
    // The host closed stdin: done, once what is written has gone out.
    process.stdout.write("", () => process.exit(0));
  }
}

// ---------------------------------------------------------------------
// Level 4: resources and data sources (docs/seasonings.md §6)

/** An apply that failed after creating or changing the object: the host
 * gets `state` with the error, and Terraform keeps the object (tainted
 * when it was just created) instead of losing it (§6.3). */
export class ApplyFailed extends Error {
  constructor(state, summary, detail) {
    super(summary);
    this.state = state;
    this.diagnostic = { severity: "error", summary };
    if (detail !== undefined) this.diagnostic.detail = detail;
  }
}

/** A plugin with resources and data sources besides functions.
 *
 * A resource is an object registered with `plugin.resource(name, block,
 * impl, {version})`; it answers `create(planned, config)`, `update(prior,
 * planned, config)`, `delete(prior)`, `read(state)` (null: gone) and
 * optionally `validate(config)` -> diagnostics, `import(id)`,
 * `upgrade(version, state)` (a state stored at an older schema version,
 * parsed from its JSON) and `plan(prior, proposed, config)` -> {planned,
 * requiresReplace?, diagnostics?}: with `plan` the plugin plans the type
 * itself (`plan_change: true`), else the host plans as Terraform would.
 * A data source is a function of its config registered with
 * `plugin.dataSource(name, block, fn)`. Blocks are `terraform providers
 * schema -json`'s shape; every method may be async. Values arrive with
 * unknowns as `UNKNOWN`. */
export class ResourcePlugin extends Plugin {
  constructor(name, version, options) {
    super(name, version, options);
    this.capabilities = ["functions", "resources"];
    this.resources = new Map();
    this.dataSources = new Map();
    const resource = (params) => this.#of(this.resources, params);
    const methods = {
      "resources.getSchema": () => this.#schemas(),
      "resources.validateConfig": async (params) => ({
        diagnostics: (await resource(params).validate?.(params.config)) ?? [],
      }),
      "dataSources.validateConfig": () => ({ diagnostics: [] }),
      "resources.planChange": async (params) => {
        const r = resource(params);
        const plan = await r.plan(params.prior_state ?? null, params.proposed_new_state, params.config);
        return {
          planned_state: plan.planned,
          requires_replace: plan.requiresReplace ?? [],
          planned_private: params.prior_private ?? null,
          diagnostics: plan.diagnostics ?? [],
        };
      },
      "resources.applyChange": (params) => this.#apply(resource(params), params),
      "resources.read": async (params) => ({
        new_state: (await resource(params).read(params.current_state)) ?? null,
        private: params.private ?? null,
        diagnostics: [],
      }),
      "resources.import": async (params) => {
        const r = resource(params);
        if (r.import === undefined) throw new PluginError("Import not supported", { detail: `${params.type} cannot be imported` });
        const state = (await r.import(params.id)) ?? null;
        return { imported: state === null ? [] : [{ type: params.type, state, private: null }], diagnostics: [] };
      },
      "resources.upgradeState": async (params) => {
        const r = resource(params);
        const state = JSON.parse(params.raw_state);
        const version = Number(params.version);
        if (r.upgrade === undefined) {
          throw new PluginError("Cannot upgrade state", {
            detail: `${params.type} has no upgrade from schema version ${version}`,
          });
        }
        return { upgraded_state: await r.upgrade(version, state), diagnostics: [] };
      },
      "dataSources.read": async (params) => ({
        state: await this.#of(this.dataSources, params)(params.config),
        diagnostics: [],
      }),
    };
    for (const [method, fn] of Object.entries(methods)) this.methods.set(method, fn);
  }

  resource(name, block, impl, { version = 0 } = {}) {
    const schema = { version, block };
    if (impl.plan !== undefined) schema.plan_change = true;
    this.resources.set(name, { schema, impl });
  }

  dataSource(name, block, fn) {
    this.dataSources.set(name, { schema: { version: 0, block }, impl: fn });
  }

  #schemas() {
    const of = (kinds) => Object.fromEntries([...kinds].map(([n, { schema }]) => [n, schema]));
    return { resource_schemas: of(this.resources), data_source_schemas: of(this.dataSources) };
  }

  #of(kinds, params) {
    const entry = kinds.get(params.type);
    if (entry === undefined) {
      throw new PluginError("Unknown type", { detail: `this plugin has no type ${JSON.stringify(params.type)}`, code: INVALID_PARAMS });
    }
    return entry.impl;
  }

  async #apply(r, params) {
    const prior = params.prior_state ?? null;
    const planned = params.planned_state ?? null;
    const answer = (state, diagnostics) => ({ new_state: state, private: params.planned_private ?? null, diagnostics });
    try {
      if (planned === null) {
        await r.delete(prior);
        return answer(null, []);
      }
      const state = prior === null ? await r.create(planned, params.config) : await r.update(prior, planned, params.config);
      return answer(state, []);
    } catch (e) {
      if (e instanceof ApplyFailed) return answer(e.state, [e.diagnostic]);
      throw e;
    }
  }
}

function bigints(_key, value) {
  return typeof value === "bigint" ? value.toString() : value;
}

export { ExtData };
