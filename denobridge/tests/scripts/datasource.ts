// denobridge_datasource: echoes its props, with a sensitive part.
import { exact, serve } from "./rpc.ts";

await serve({
  read({ props }) {
    if (props?.fail) {
      console.error("failing on purpose");
      Deno.exit(7);
    }
    // A warning beside the result, when asked for one.
    const diagnostics = props?.warn ? [{ severity: "warning", summary: props.warn, detail: "" }] : [];
    return {
      result: { echo: props, tuple: ["a", 1, false], exact: exact("0.1000000000000000000000000000001") },
      sensitiveResult: { password: `pw-${props?.name}` },
      diagnostics,
    };
  },
});
