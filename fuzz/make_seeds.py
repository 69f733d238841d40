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
