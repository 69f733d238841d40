// denobridge_ephemeral_resource: a token opened, renewed and closed; close
// is logged to store/calls.log (needs --allow-write).
import { logCall, serve } from "./rpc.ts";

await serve({
  open({ props }) {
    if (props?.fail) Deno.exit(9);
    logCall(`open ${JSON.stringify(props)}`);
    return {
      result: { token: `tok-${props?.name}` },
      sensitiveResult: { key: `key-${props?.name}` },
      privateData: { opened: props?.name, n: props?.n ?? null },
    };
  },
  renew({ privateData }) {
    logCall(`renew ${JSON.stringify(privateData)}`);
    return { privateData };
  },
  close({ privateData }) {
    logCall(`close ${JSON.stringify(privateData)}`);
    return { done: true };
  },
});
