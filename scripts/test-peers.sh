#!/usr/bin/env bash
# Installs the real peers tests/real_peers.rs runs against: Deno and
# Node's json-rpc-2.0 from the npm registry (under target/peers), Neovim
# from Debian when `nvim` is missing; and Python's grpcio from PyPI, in a
# virtual environment at target/peers/venv, the gRPC client
# tfplugin6/tests/handshake.rs serves; and the Seasonings plugins' msgpack
# libraries (scripts/seasonings-peers.sh). Safe to run again.
#
# On a user's machine this is best effort: what cannot be installed is
# named, the tests that need it say SKIPPED, and the script exits 0. Under
# CI=true a peer that is still missing at the end is an error: the script
# names it on a `MISSING:` line and exits 1 (the tests would fail on it
# anyway; this says why before they run).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/peers
mkdir -p "$dir"
ci=false
case "${CI:-}" in true | TRUE | True | 1) ci=true ;; esac

if [ ! -x "$dir/node_modules/.bin/deno" ] || [ ! -d "$dir/node_modules/json-rpc-2.0" ]; then
    if command -v npm > /dev/null; then
        # deno@2 ships its binary in a platform package, no download script.
        npm install --prefix "$dir" --no-audit --no-fund deno@2 json-rpc-2.0@1 > "$dir/npm.log" 2>&1 \
            || { tail -n 20 "$dir/npm.log"; echo "npm install failed (log: $dir/npm.log)"; }
    else
        echo "npm is not installed: deno and json-rpc-2.0 cannot be installed"
    fi
fi
if ! command -v nvim > /dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        (apt-get update > /dev/null && apt-get install -y neovim > /dev/null) \
            || echo "apt-get install neovim failed"
    else
        echo "cannot install neovim here (not root, or no apt-get)"
    fi
fi

venv="$dir/venv"
if ! "$venv/bin/python" -c "import grpc" > /dev/null 2>&1; then
    if command -v python3 > /dev/null; then
        (python3 -m venv "$venv" && "$venv/bin/pip" install --quiet grpcio) > "$dir/pip.log" 2>&1 \
            || { tail -n 20 "$dir/pip.log"; echo "pip install grpcio failed (log: $dir/pip.log)"; }
    else
        echo "python3 is not installed: grpcio cannot be installed"
    fi
fi

# What is here now, each peer named either way.
missing=()
if [ -x "$dir/node_modules/.bin/deno" ] && "$dir/node_modules/.bin/deno" --version > /dev/null 2>&1; then
    echo "deno: $("$dir/node_modules/.bin/deno" --version | head -1)"
else
    missing+=("deno ($dir/node_modules/.bin/deno, from npm)")
fi
if command -v node > /dev/null; then
    echo "node: $(node --version)"
else
    missing+=("node (not on PATH)")
fi
if [ -f "$dir/node_modules/json-rpc-2.0/package.json" ]; then
    echo "json-rpc-2.0: $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$dir/node_modules/json-rpc-2.0/package.json")"
else
    missing+=("json-rpc-2.0 ($dir/node_modules/json-rpc-2.0, from npm)")
fi
if command -v nvim > /dev/null; then
    echo "nvim: $(nvim --version | head -1)"
else
    missing+=("nvim (neovim, from apt-get)")
fi

if "$venv/bin/python" -c "import grpc" > /dev/null 2>&1; then
    echo "grpcio: $("$venv/bin/python" -c "import grpc; print(grpc.__version__)")"
else
    missing+=("grpcio ($venv, from PyPI)")
fi

# The Seasonings plugins' own: Python's msgpack and Node's @msgpack/msgpack
# (it names what it could not install, and exits 1 under CI=true).
bash scripts/seasonings-peers.sh || missing+=("the Seasonings plugins' peers (scripts/seasonings-peers.sh)")

if [ ${#missing[@]} -gt 0 ]; then
    for m in "${missing[@]}"; do
        if $ci; then
            echo "MISSING: $m: under CI=true the tests that need it fail"
        else
            echo "missing: $m: the tests that need it will say SKIPPED"
        fi
    done
    if $ci; then
        exit 1
    fi
fi
exit 0
