// An ipc-jsonrpc server: JSON-RPC 2.0 over a unix socket, one message per
// line, with Node's json-rpc-2.0 package. Usage: node ipc_server.mjs SOCKET
import net from "node:net";
import { createRequire } from "node:module";

const require = createRequire(process.env.JSON_RPC_2_0 + "/");
const { JSONRPCServer, JSONRPCClient, JSONRPCServerAndClient, JSONRPCErrorException } =
  require("json-rpc-2.0");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const server = net.createServer((socket) => {
  const peer = new JSONRPCServerAndClient(
    new JSONRPCServer(),
    new JSONRPCClient((request) => {
      socket.write(JSON.stringify(request) + "\n");
      return Promise.resolve();
    }),
  );
  // Answers after a delay the caller picks, so answers come out of order.
  peer.addMethod("delayed", async ({ n, ms }) => {
    await sleep(ms);
    return { n };
  });
  peer.addMethod("fails", () => {
    throw new JSONRPCErrorException("it failed", -32042, { detail: "with data", count: 3 });
  });
  peer.addMethod("pushme", ({ text }) => {
    peer.notify("pushed", { text });
    return { pushed: true };
  });
  let buffered = "";
  socket.on("data", (chunk) => {
    buffered += chunk.toString("utf8");
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      peer.receiveAndSend(message).then(() => {}, () => {});
    }
  });
});
server.listen(process.argv[2], () => console.log("listening"));
