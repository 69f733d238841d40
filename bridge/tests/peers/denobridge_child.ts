// A denobridge child written from the protocol document (newline-delimited
// JSON-RPC 2.0 on stdin/stdout), with no imports: a resource kept in
// memory, plus methods that misbehave on purpose for the runtime's tests.

const encoder = new TextEncoder();

function write(text: string) {
  const bytes = encoder.encode(text);
  let done = 0;
  while (done < bytes.length) done += Deno.stdout.writeSync(bytes.subarray(done));
}

function send(message: unknown) {
  write(JSON.stringify(message) + "\n");
}

function answer(id: unknown, result: unknown) {
  send({ jsonrpc: "2.0", result, id });
}

function fail(id: unknown, code: number, message: string, data?: unknown) {
  send({ jsonrpc: "2.0", error: { code, message, data }, id });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The resource's store: id -> state.
const store = new Map<string, { props: unknown; state: unknown }>();
let nextId = 1;

async function handle(m: any) {
  if (!m.method) return; // an answer to something we sent: none here
  const p = m.params ?? {};
  switch (m.method) {
    case "health":
      return answer(m.id, { ok: true });
    case "shutdown":
      answer(m.id, {});
      Deno.exit(0);
      return;
    case "create": {
      const id = `res-${nextId++}`;
      const state = { created: true, size: JSON.stringify(p.props ?? {}).length };
      store.set(id, { props: p.props, state });
      return answer(m.id, { id, state });
    }
    case "read": {
      const found = store.get(p.id);
      if (!found) return answer(m.id, { exists: false });
      return answer(m.id, { props: found.props, state: found.state });
    }
    case "update": {
      const found = store.get(p.id);
      if (!found) return fail(m.id, -32000, `no resource ${p.id}`);
      found.props = p.nextProps;
      found.state = { updated: true };
      return answer(m.id, { state: found.state });
    }
    case "delete":
      store.delete(p.id);
      return answer(m.id, { done: true });
    case "invoke": {
      // Progress notifications, then the answer.
      for (let i = 1; i <= 3; i++) {
        send({ jsonrpc: "2.0", method: "invokeProgress", params: { message: `step ${i}` } });
        await sleep(5);
      }
      return answer(m.id, { done: true });
    }
    case "slow":
      await sleep(p.ms ?? 0);
      return answer(m.id, { tag: p.tag });
    case "echo":
      return answer(m.id, p);
    case "exit":
      console.error(`exiting on purpose with status ${p.status}`);
      Deno.exit(p.status ?? 3);
      return;
    case "garbage":
      write("this is not JSON\n");
      return answer(m.id, { after: "garbage" });
    case "bigline":
      // One line of p.mb megabytes, written in pieces, then an answer.
      {
        const piece = "x".repeat(1 << 20);
        for (let i = 0; i < (p.mb ?? 1); i++) write(piece);
        write("\n");
      }
      return answer(m.id, { after: "bigline" });
    case "wrongid":
      send({ jsonrpc: "2.0", result: { stray: true }, id: 987654321 });
      return answer(m.id, { after: "wrongid" });
    case "never":
      return; // no answer, ever
    case "fail":
      return fail(m.id, -32001, "failed on purpose", { why: "test", n: 12345678901234567890 });
    default:
      return fail(m.id, -32601, "Method not found");
  }
}

const decoder = new TextDecoder();
let buffered = "";
for await (const chunk of Deno.stdin.readable) {
  buffered += decoder.decode(chunk, { stream: true });
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.trim()) continue;
    // Not awaited: calls run concurrently and may finish out of order.
    handle(JSON.parse(line));
  }
}
