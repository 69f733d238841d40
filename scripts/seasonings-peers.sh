#!/usr/bin/env bash
# Installs what the Seasonings tests (seasonings/tests) run against: a
# Python venv under target/peers/python with the `msgpack` package from
# PyPI, which the example plugins in examples/seasonings/python use, and
# `@msgpack/msgpack` from npm under target/peers/node for the Node plugins
# in examples/seasonings/node (Node itself is the machine's `node`).
# Safe to run again.
#
# Best effort on a user's machine (what cannot be installed is named, the
# tests say SKIPPED, exit 0); under CI=true a missing peer is a `MISSING:`
# line and exit 1, as scripts/test-peers.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/peers/python
mkdir -p target/peers
ci=false
case "${CI:-}" in true | TRUE | True | 1) ci=true ;; esac
missing=0

if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c 'import msgpack' > /dev/null 2>&1; then
    if command -v python3 > /dev/null; then
        (python3 -m venv "$dir" && "$dir/bin/python" -m pip install --quiet 'msgpack>=1,<2') \
            > target/peers/python.log 2>&1 \
            || { tail -n 20 target/peers/python.log; echo "installing msgpack failed (log: target/peers/python.log)"; }
    else
        echo "python3 is not installed: the Seasonings Python plugin cannot run"
    fi
fi

if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c 'import msgpack' > /dev/null 2>&1; then
    echo "python: $("$dir/bin/python" --version 2>&1), msgpack $("$dir/bin/python" -c 'import msgpack; print(".".join(map(str, msgpack.version)))')"
else
    echo "MISSING: python with msgpack ($dir, from PyPI)"
    missing=1
fi

node_dir=target/peers/node
msgpack_js=$node_dir/node_modules/@msgpack/msgpack/package.json
if [ ! -f "$msgpack_js" ]; then
    if command -v npm > /dev/null; then
        mkdir -p "$node_dir"
        npm install --prefix "$node_dir" --no-audit --no-fund '@msgpack/msgpack@3' > target/peers/node.log 2>&1 \
            || { tail -n 20 target/peers/node.log; echo "npm install failed (log: target/peers/node.log)"; }
    else
        echo "npm is not installed: @msgpack/msgpack cannot be installed"
    fi
fi

if command -v node > /dev/null && [ -f "$msgpack_js" ]; then
    echo "node: $(node --version), @msgpack/msgpack $(node -p "require('./$msgpack_js').version")"
else
    echo "MISSING: node with @msgpack/msgpack (node on PATH, $node_dir from npm)"
    missing=1
fi

if $ci && [ "$missing" = 1 ]; then exit 1; fi
