// denobridge_resource: objects kept as JSON files in ./store (run with
// permissions = { allow = ["read", "write"] }). Every call is logged to
// store/calls.log so tests can tell which methods ran, with which props.
import { exact, logCall, MethodNotFound, serve, storeFile } from "./rpc.ts";

type Stored = { props: unknown; writeOnly: unknown; updates: number };

// A number parsed exactly is a JSON.rawJSON object: its text is in .rawJSON.
// deno-lint-ignore no-explicit-any
const asNumber = (x: any) => Number(typeof x === "object" && x !== null ? x.rawJSON : x);

const file = (id: string) => storeFile(`${id}.json`);
// deno-lint-ignore no-explicit-any
const load = (id: string): any => {
  try {
    return JSON.parse(Deno.readTextFileSync(file(id)), (_k, v, ctx?: any) =>
      typeof v === "number" ? (JSON as any).rawJSON(ctx.source) : v);
  } catch {
    return null;
  }
};
const save = (id: string, s: Stored) => Deno.writeTextFileSync(file(id), JSON.stringify(s));

function state(id: string, s: Stored) {
  return {
    echo: s.props,
    updates: s.updates,
    mixed: [1, "two", true, null],
    big: exact("98765432109876543210987654321098765"),
    write_only_seen: s.writeOnly !== undefined && s.writeOnly !== null,
    ref: `ref-${id}`,
  };
}

// deno-lint-ignore no-explicit-any
function misbehave(props: any): unknown[] | undefined {
  switch (props?.misbehave) {
    case "severity":
      return [{ severity: "fatal", summary: "a severity denobridge drops", detail: "" }];
    case "map-key":
      return [{ severity: "warning", summary: "about a numeric map key", detail: "", propPath: ["props", "labels", "123"] }];
    case "flood":
      // 500 diagnostics, one error among those past the first 100.
      return Array.from({ length: 500 }, (_, i) => ({
        severity: i === 450 ? "error" : "warning",
        summary: `note ${i}`,
        detail: "",
        propPath: ["state", "no-such-attribute"],
      }));
  }
  return undefined;
}

await serve({
  create({ props, writeOnlyProps }) {
    const id = `${props?.name ?? "res"}-${crypto.randomUUID().slice(0, 8)}`;
    logCall(`create ${id} ${JSON.stringify(props)} wo=${JSON.stringify(writeOnlyProps ?? null)}`);
    if (props?.misbehave === "crash") {
      console.error("crashing on purpose");
      Deno.exit(3);
    }
    const s = { props, writeOnly: writeOnlyProps, updates: 0 };
    save(id, s);
    return {
      id,
      state: state(id, s),
      sensitiveState: props?.misbehave === "unreadable-secret"
        // A number past any limit, beside a secret that must not be quoted.
        ? { password: "hunter2", n: exact("1e999999") }
        : { token: `s3cret-${id}` },
      diagnostics: misbehave(props),
    };
  },
  read({ id, props }) {
    logCall(`read ${id} ${JSON.stringify(props)}`);
    const s = load(id);
    if (!s) return { exists: false };
    if (s.props?.misbehave === "omit-props") return { state: state(id, s) };
    return { props: s.props, state: state(id, s), sensitiveState: { token: `s3cret-${id}` } };
  },
  update({ id, nextProps, nextWriteOnlyProps, currentProps }) {
    logCall(`update ${id} ${JSON.stringify(nextProps)} wo=${JSON.stringify(nextWriteOnlyProps ?? null)} from=${JSON.stringify(currentProps)}`);
    const old = load(id);
    if (!old) throw new Error(`no resource ${id}`);
    const s = { props: nextProps, writeOnly: nextWriteOnlyProps, updates: asNumber(old.updates) + 1 };
    save(id, s);
    return { state: state(id, s), sensitiveState: { token: `s3cret-${id}` } };
  },
  delete({ id }) {
    logCall(`delete ${id}`);
    try {
      Deno.removeSync(file(id));
    } catch { /* already gone */ }
    return { done: true };
  },
  modifyPlan({ planType, nextProps, currentProps }) {
    logCall(`modifyPlan ${planType} ${JSON.stringify(nextProps)}`);
    if (nextProps?.no_modify_plan) throw new MethodNotFound();
    if (nextProps?.misbehave === "plan-warning") {
      return { noChanges: true, diagnostics: [{ severity: "warning", summary: "planned with care", detail: "", propPath: ["nextProps", "misbehave"] }] };
    }
    if (planType === "update" && nextProps?.name !== currentProps?.name) {
      return { requiresReplacement: true };
    }
    return { noChanges: true };
  },
});
