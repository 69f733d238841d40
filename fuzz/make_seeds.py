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

# typed_decode: a format byte (0, msgpack) and a `Thing` with sets of
# objects in and out of order (written by `ctywire encode --type T` from
# JSON, T the target's type), so that the set paths are reached at once.
for hex_seed in (
    "008ba56578616374cb4029000000000000a5657874726192c4225b226f626a656374222c7b2278223a5b226c697374222c226e756d626572225d7d5d81a178920102a66772616e74739383a56c6576656c01a673636f70657381a178a131a377686fa16283a56c6576656c02a673636f70657380a377686fa16183a56c6576656c02a673636f706573c0a377686fa161a26964a169a46e616d65a16ea47061697292a170c3a5706f7274739250cd01bba5726174696fcb3fe0000000000000a472756c659182a46e6f7465c0a4706f727401a473697a6501a47461677381a161a162",
    "008ba56578616374cb4029000000000000a5657874726192c4225b226f626a656374222c7b2278223a5b226c697374222c226e756d626572225d7d5d81a178920102a66772616e74739383a56c6576656cffa673636f70657380a377686fc083a56c6576656c0aa673636f70657382a16ba176a17aa177a377686fa16183a56c6576656c09a673636f706573c0a377686fa161a26964a169a46e616d65a16ea47061697292a170c3a5706f7274739250cd01bba5726174696fcb3fe0000000000000a472756c659182a46e6f7465c0a4706f727401a473697a6501a47461677381a161a162",
):
    write("typed_decode", bytes.fromhex(hex_seed))


# Flatmap states: `<type JSON>\n` then `key=value` lines.
flat_ty = json.dumps(["object", {
    "id": "string", "n": "number", "ok": "bool",
    "tags": ["map", "string"], "l": ["list", "string"], "s": ["set", "number"],
    "rule": ["list", ["object", {"port": "number", "note": "string",
                                 "cidrs": ["list", "string"]}]],
}], separators=(",", ":")).encode()
for entries in (
    ["id=a", "n=1", "ok=true", "tags.%=1", "tags.k=v", "l.#=2", "l.0=x", "l.1=y"],
    ["s.#=2", "s.1234=1", "s.5678=2", "rule.#=1", "rule.0.port=80",
     "rule.0.cidrs.#=1", "rule.0.cidrs.0=10.0.0.0/8"],
    ["l.#=10000000", "tags.%=74D93920-ED26-11E3-AC10-0800200C9A66"],
    ["rule.#=3", "rule.2.port=1", "l.#=1"],
):
    write("flatmap_decode", flat_ty + b"\n" + "\n".join(entries).encode())


# tfplugin6_service: the first byte picks the RPC (its number in the
# target's table), the rest is the request in protobuf.
def field(number, payload):
    """A length-delimited protobuf field (strings, bytes, messages)."""
    n, size = len(payload), b""
    while True:
        size += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            break
    return bytes([number << 3 | 2]) + size + payload


def dynamic(msgpack_hex):
    return field(1, bytes.fromhex(msgpack_hex.replace(" ", "")))


def varint(n):
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return out


def state_chunk(first, data, total, start, end):
    """A WriteStateBytes.RequestChunk: meta on the first, bytes, total, range."""
    meta = field(1, field(1, b"demo_store") + field(2, b"default")) if first else b""
    rng = bytes([0x08]) + varint(start) + bytes([0x10]) + varint(end)
    return meta + field(2, data) + bytes([0x18]) + varint(total) + field(4, rng)


def grpc(message):
    """A message as a gRPC body frames it: uncompressed, length-prefixed."""
    return b"\x00" + len(message).to_bytes(4, "big") + message


item = "84 a46e616d65 a161 a576616c7565 a178 a474616773 91a174 a26964 c0"  # name, value, tags, id
lookup = "83 a46e616d65 a161 a474616773 c0 a26964 c0"
thing = field(1, b"demo_item")
for rpc, request in [
    (3, thing + field(2, dynamic(item))),
    (7, field(1, b"1.11.0") + field(2, dynamic("81 a6707265666978 a170"))),
    (9, thing + field(2, dynamic("c0")) + field(3, dynamic(item)) + field(4, dynamic(item))),
    (10, thing + field(2, dynamic("c0")) + field(3, dynamic(item)) + field(4, dynamic(item))),
    (11, thing + field(2, b"a")),
    (13, thing + field(2, dynamic(lookup))),
    (14, thing + field(2, dynamic(lookup))),
    (18, field(1, b"upper") + field(2, dynamic("a3616263"))),
    (24, thing + field(2, dynamic("81 a6707265666978 c0")) + bytes([0x18, 1, 0x20, 5])),
    (26, field(1, b"demo_count") + field(2, dynamic("81 a2746f 03"))),
    # State stores: validate, configure (proposing 16-byte chunks), read,
    # write (a gRPC body of two length-prefixed chunks), lock, list.
    (28, field(1, b"demo_store") + field(2, dynamic("81 a46e616d65 a168"))),
    (29, field(1, b"demo_store") + field(2, dynamic("81 a46e616d65 a168")) + field(3, bytes([0x08, 16]))),
    (30, field(1, b"demo_store") + field(2, b"default")),
    (31, grpc(state_chunk(True, b"0123456789abcdef", 20, 0, 15)) + grpc(state_chunk(False, b"ghij", 20, 16, 19))),
    (32, field(1, b"demo_store") + field(2, b"default") + field(3, b"OperationTypeApply")),
    (34, field(1, b"demo_store")),
]:
    write("tfplugin6_service", bytes([rpc]) + request)

# handshake_env: a flags byte (bit i unsets the i-th variable; bit 7 uses
# the given cookie), then PLUGIN_PROTOCOL_VERSIONS, PLUGIN_CLIENT_CERT,
# PLUGIN_UNIX_SOCKET_DIR, PLUGIN_MIN_PORT, PLUGIN_MAX_PORT and the cookie,
# split at 0xff. The certificate is a real one (P-256, self-signed).
cert = b"""-----BEGIN CERTIFICATE-----
MIIBfjCCASWgAwIBAgIUazrWGuSSRNOPQRogFlZOJXCGE8kwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNjE3NDAyNFoYDzIxMjYxMTAy
MTc0MDI0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATSCfMlBSMUgRZsEGwh1a/0rtFe2DEbfK5fWpCFNL7dvmGiZc/iVUva
e0l2VHzw6EvPvoFg6k+M53n+5WehbDjIo1MwUTAdBgNVHQ4EFgQUax2iOCQmIUZ6
2nDn3o5whiTGsngwHwYDVR0jBBgwFoAUax2iOCQmIUZ62nDn3o5whiTGsngwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBNs+CDMkCdPnGJy0n0UNGT
NpWjYXasDmRgBEaPQ01SPgIgbANOf3HRKpchFKv/y3VkSHZj4ClLPUeO24wmtzfP
2gg=
-----END CERTIFICATE-----
"""
for flags, values in [
    (0, [b"5,6", cert, b"/tmp", b"10000", b"25000", b""]),
    (2, [b"6", b"", b"", b"", b"", b""]),
    (0, [b"4,5", b"", b"", b"", b"", b""]),
    (0x80, [b"6", b"", b"", b"", b"", b"not the cookie"]),
]:
    write("handshake_env", bytes([flags]) + b"\xff".join(values))

# http2_authority: a control byte (bit 7: the preface goes first; low bits:
# the size of the pieces pushed, less one), then HTTP/2 frames as a client
# sends them. grpcio's requests carry a percent-encoded :authority (to be
# dropped); entries are added to the dynamic table and referred to across
# blocks, one block in a HEADERS frame and a CONTINUATION.
def hpack_string(s):
    assert len(s) < 127
    return bytes([len(s)]) + s


def h2_frame(kind, flags, stream, payload):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def grpc_request(path, authority):
    return (b"\x83\x86" + b"\x44" + hpack_string(path) + b"\x41" + hpack_string(authority)
            + b"\x40" + hpack_string(b"te") + hpack_string(b"trailers")
            + b"\x40" + hpack_string(b"content-type") + hpack_string(b"application/grpc"))


settings = h2_frame(4, 0, 0, bytes([0, 3, 0, 0, 0, 100, 0, 4, 0, 0x40, 0, 0]))
for authority in (b"tmp%2Fx%2Fprovider.sock", b"localhost"):
    first = grpc_request(b"/tfplugin6.Provider/GetMetadata", authority)
    second = b"\x83\x86" + b"\x44" + hpack_string(b"/tfplugin6.Provider/GetProviderSchema") + bytes([0x80 | 63, 0x80 | 64, 0x80 | 65])
    write("http2_authority", bytes([0x80 | 7]) + settings
          + h2_frame(1, 4, 1, first) + h2_frame(0, 1, 1, b"\0\0\0\0\0")
          + h2_frame(1, 0x20, 3, bytes([0, 0, 0, 0, 16]) + second[:6]) + h2_frame(9, 4, 3, second[6:])
          + h2_frame(0, 1, 3, b"\0\0\0\0\0"))

# seasonings_plugin: what a host sends, from docs/seasonings.md §4 (its
# host → plugin messages, whose hex lines follow their headings), alone
# and in one stream after init.
with open(os.path.join(root, "docs", "seasonings.md")) as f:
    exchange = f.read().split("## 4. Example exchange")[1].split("```text")[1].split("```")[0]
requests, current = [], None
for line in exchange.splitlines():
    if "→" in line:
        current = bytearray() if line.strip().startswith("host → plugin") else None
        if current is not None:
            requests.append(current)
    elif current is not None and line and all(c in "0123456789abcdef" for c in line):
        current.extend(bytes.fromhex(line))
for r in requests:
    write("seasonings_plugin", bytes(r))
write("seasonings_plugin", b"".join(bytes(r) for r in requests))
