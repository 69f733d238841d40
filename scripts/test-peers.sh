#!/usr/bin/env bash
# Installs the real peers tests/real_peers.rs runs against: Deno and
# Node's json-rpc-2.0 from the npm registry (under target/peers), Neovim
# from Debian when `nvim` is missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/peers
mkdir -p "$dir"
if [ ! -x "$dir/node_modules/.bin/deno" ] || [ ! -d "$dir/node_modules/json-rpc-2.0" ]; then
    if command -v npm > /dev/null; then
        # deno@2 ships its binary in a platform package, no download script.
        npm install --prefix "$dir" --no-audit --no-fund deno@2 json-rpc-2.0@1 > "$dir/npm.log" 2>&1 \
            || { tail -n 20 "$dir/npm.log"; echo "npm install failed: the Deno and Node tests will say SKIPPED"; }
    else
        echo "npm is not installed: the Deno and Node tests will say SKIPPED"
    fi
fi
if ! command -v nvim > /dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        (apt-get update > /dev/null && apt-get install -y neovim > /dev/null) \
            || echo "apt-get install neovim failed: the Neovim tests will say SKIPPED"
    else
        echo "cannot install neovim here (not root, or no apt-get): the Neovim tests will say SKIPPED"
    fi
fi
[ -x "$dir/node_modules/.bin/deno" ] && echo "deno: $("$dir/node_modules/.bin/deno" --version | head -1)"
command -v node > /dev/null && echo "node: $(node --version), json-rpc-2.0 $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$dir/node_modules/json-rpc-2.0/package.json" 2>/dev/null)"
command -v nvim > /dev/null && echo "nvim: $(nvim --version | head -1)"
exit 0
