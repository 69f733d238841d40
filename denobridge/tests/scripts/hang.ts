// denobridge_resource whose create never answers: it writes its process id
// to store/pid (run with permissions = { allow = ["read", "write"] }) and
// then sleeps forever, as a hung cloud call would. For the StopProvider test.
import { serve, storeFile } from "./rpc.ts";

await serve({
  async create() {
    Deno.writeTextFileSync(storeFile("pid"), String(Deno.pid));
    // A timer keeps the event loop alive (a bare pending promise would
    // end Deno with "top-level await never resolved").
    await new Promise(() => setInterval(() => {}, 60_000));
  },
});
