#!/usr/bin/env python3
"""A denobridge-style child: answers JSON-RPC 2.0 on stdin/stdout.

`create` returns a state built from the props, on purpose holding what
denobridge loses: a mixed array, an integer beyond float64, a set-like
list, and a `sensitive` part that the provider side stores apart.
"""
import json
import sys


def reply(msg_id, result=None, error=None):
    out = {"jsonrpc": "2.0", "id": msg_id}
    if error is not None:
        out["error"] = error
    else:
        out["result"] = result
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, params, msg_id = msg.get("method"), msg.get("params") or {}, msg.get("id")
    if method == "shutdown":
        reply(msg_id, {})
        break
    if method == "health":
        reply(msg_id, {"ok": True})
    elif method == "create":
        props = params["props"]
        big = int(props["count"]) * 10**30 + 1  # exact in Python and in JSON
        state = {
            "echo": props,
            "mixed": [1, "two", True, None],
            "big": big,
            "ports": sorted(set(props["ports"])),
        }
        reply(msg_id, {
            "id": "res-" + props["name"],
            "state": state,
            "sensitiveState": {"token": "s3cret-" + props["name"]},
            "diagnostics": [{
                "severity": "warning",
                "summary": "name is short",
                "propPath": ["props", "name"],
            }],
        })
    else:
        reply(msg_id, error={"code": -32601, "message": "method not found: %s" % method})
