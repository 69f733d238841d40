// Newline-delimited JSON-RPC 2.0 on stdin/stdout, as the denobridge protocol
// document describes it, with no imports from jsr or npm. Numbers are kept
// exact: every number is parsed into JSON.rawJSON of its source text, so a
// value sent back unchanged is written with the same digits (JavaScript's
// own numbers would round 2^64 + 1 and turn 1e400 into Infinity, then null).

const encoder = new TextEncoder();

function write(text: string) {
  const bytes = encoder.encode(text);
  let done = 0;
  while (done < bytes.length) done += Deno.stdout.writeSync(bytes.subarray(done));
}

function send(message: unknown) {
  write(JSON.stringify(message) + "\n");
}

// deno-lint-ignore no-explicit-any
const J = JSON as any;

export function parse(text: string): any {
  // deno-lint-ignore no-explicit-any
  return JSON.parse(text, (_k: string, v: unknown, ctx?: any) =>
    typeof v === "number" ? J.rawJSON(ctx.source) : v);
}

/** A number written exactly as `text`. */
export function exact(text: string): unknown {
  return J.rawJSON(text);
}

export class MethodNotFound extends Error {}

// deno-lint-ignore no-explicit-any
export type Methods = Record<string, (params: any) => unknown>;

export async function serve(methods: Methods) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of Deno.stdin.readable) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const m = parse(line);
      if (typeof m.method !== "string") continue;
      if (m.method === "shutdown") {
        if (m.id !== undefined) send({ jsonrpc: "2.0", result: {}, id: m.id });
        Deno.exit(0);
      }
      const handler = m.method === "health" ? () => ({ ok: true }) : methods[m.method];
      try {
        if (!handler) throw new MethodNotFound();
        const result = await handler(m.params ?? {});
        if (m.id !== undefined) send({ jsonrpc: "2.0", result: result ?? null, id: m.id });
      } catch (e) {
        if (m.id === undefined) continue;
        const error = e instanceof MethodNotFound
          ? { code: -32601, message: "Method not found" }
          : { code: -32000, message: String((e as Error)?.message ?? e) };
        send({ jsonrpc: "2.0", error, id: m.id });
      }
    }
  }
}

/** Appends one line to store/calls.log next to the script (needs --allow-write). */
export function logCall(line: string) {
  const dir = new URL("./store/", import.meta.url);
  Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(new URL("calls.log", dir), line + "\n", { append: true });
}

export function storeFile(name: string): URL {
  const dir = new URL("./store/", import.meta.url);
  Deno.mkdirSync(dir, { recursive: true });
  return new URL(name, dir);
}
