#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets from the fixtures in testdata/.

usage: fuzz/make_seeds.py [OUTDIR]   (default fuzz/seeds)
Each decode seed is `<type JSON>\n<payload>`, the format the targets read.
"""
import hashlib
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "fuzz", "seeds")


def write(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


for fixture in ("gocty-edge.jsonl", "gocty-random.jsonl"):
    with open(os.path.join(root, "testdata", fixture)) as f:
        for line in f:
            case = json.loads(line)
            ty = json.dumps(case["type"], separators=(",", ":")).encode()
            write("type_json", ty)
            if "msgpack" in case:
                seed = ty + b"\n" + bytes.fromhex(case["msgpack"])
                write("msgpack_decode", seed)
                write("roundtrip", seed)
            else:
                write("json_decode", ty + b"\n" + case["json"].encode())


# Framing and schema seeds.
write("jsonrpc_framing", b'{"jsonrpc":"2.0","id":1,"method":"health"}\n\n'
      b'{"jsonrpc":"2.0","id":"a","result":{"ok":true}}\r\n'
      b'{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}\n'
      b'{"jsonrpc":"2.0","method":"shutdown","params":[]}\nnot json\n')
write("msgpack_rpc_stream", bytes([3]) + bytes.fromhex("9400 01 a4706c616e 91 d40000".replace(" ", ""))
      + bytes.fromhex("9401 01 c0 a26f6b".replace(" ", "")) + bytes.fromhex("9302 a178 90".replace(" ", "")))
with open(os.path.join(root, "testdata", "terraform", "providers-schema-builtin.json"), "rb") as f:
    write("schema_json", f.read())
write("schema_json", b'{"format_version":"1.0","provider_schemas":{"p":{"resource_schemas":{"r":{"block":{'
      b'"attributes":{"a":{"type":["list","string"],"optional":true},'
      b'"n":{"nested_type":{"nesting_mode":"list","attributes":{"x":{"type":"dynamic"}}}}},'
      b'"block_types":{"b":{"nesting_mode":"group","block":{}},"l":{"nesting_mode":"list","block":{'
      b'"attributes":{"v":{"type":"dynamic"}}}}}}}}}}}')
write("json_document", b'{"id":"x","state":{"n":1.50,"big":123456789012345678901234567890},'
      b'"diagnostics":[{"severity":"warning","summary":"s","propPath":["a",0]}],"e":"\\u00e9\\n"}')
write("json_document", b'[null,true,false,-0,1e400,"",{},[]]')
