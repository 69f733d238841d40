#!/usr/bin/env python3
"""denobridge_resource in Python, run through the provider's `command`.

The same JSON-RPC 2.0 over stdio as the Deno scripts; numbers exact:
integers are Python ints, decimals are Decimal, both written back as
their digits. Objects are kept as JSON files in ./store next to this file.
"""
import json
import os
import sys
import uuid
from decimal import Decimal

STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "store")
os.makedirs(STORE, exist_ok=True)


def dumps(v):
    """JSON with Decimals written exactly (json.dumps cannot)."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, (int, Decimal)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(x) for k, x in v.items()) + "}"
    raise TypeError(type(v))


def loads(text):
    return json.loads(text, parse_float=Decimal, parse_constant=Decimal)


def log(line):
    with open(os.path.join(STORE, "calls.log"), "a") as f:
        f.write(line + "\n")


def path(rid):
    return os.path.join(STORE, rid + ".json")


def load(rid):
    try:
        with open(path(rid)) as f:
            return loads(f.read())
    except FileNotFoundError:
        return None


def save(rid, s):
    with open(path(rid), "w") as f:
        f.write(dumps(s))


def state(rid, s):
    return {"echo": s["props"], "updates": s["updates"], "runtime": "python", "ref": "ref-" + rid}


def handle(method, p):
    if method == "create":
        rid = "py-" + uuid.uuid4().hex[:8]
        log("create %s %s" % (rid, dumps(p["props"])))
        s = {"props": p["props"], "updates": 0}
        save(rid, s)
        return {"id": rid, "state": state(rid, s), "sensitiveState": {"token": "py-s3cret-" + rid}}
    if method == "read":
        log("read %s" % p["id"])
        s = load(p["id"])
        if s is None:
            return {"exists": False}
        return {"props": s["props"], "state": state(p["id"], s), "sensitiveState": {"token": "py-s3cret-" + p["id"]}}
    if method == "update":
        log("update %s %s" % (p["id"], dumps(p["nextProps"])))
        old = load(p["id"])
        s = {"props": p["nextProps"], "updates": old["updates"] + 1}
        save(p["id"], s)
        return {"state": state(p["id"], s), "sensitiveState": {"token": "py-s3cret-" + p["id"]}}
    if method == "delete":
        log("delete %s" % p["id"])
        if os.path.exists(path(p["id"])):
            os.remove(path(p["id"]))
        return {"done": True}
    return None


def reply(mid, result=None, error=None):
    out = {"jsonrpc": "2.0", "id": mid}
    if error is not None:
        out["error"] = error
    else:
        out["result"] = result
    sys.stdout.write(dumps(out) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = loads(line)
    method, params, mid = msg.get("method"), msg.get("params") or {}, msg.get("id")
    if method == "shutdown":
        if mid is not None:
            reply(mid, {})
        break
    if method == "health":
        reply(mid, {"ok": True})
        continue
    try:
        result = handle(method, params)
    except Exception as e:  # the error goes back to the provider
        reply(mid, error={"code": -32000, "message": repr(e)})
        continue
    if result is None:
        reply(mid, error={"code": -32601, "message": "Method not found"})
    else:
        reply(mid, result)
