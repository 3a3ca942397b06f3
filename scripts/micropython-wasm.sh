#!/usr/bin/env bash
# MicroPython's WebAssembly port, for the test that runs the cube's frame code under real
# MicroPython (tests/test_cube_micropython.py). Only `make test` needs it.
set -euo pipefail
dest="${1:-.venv/micropython-wasm}"
version=1.27.0

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31msetup failed:\033[0m %s\n' "$*" >&2; exit 1; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 ||
        fail "the tests need Node.js and npm: install them, then run make test again"
    say "installing system packages: nodejs npm"
    if [ "$(id -u)" = 0 ]; then run=(); else run=(sudo); fi
    "${run[@]}" apt-get update -qq
    "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
say "installing MicroPython $version (WebAssembly) for the tests in $dest"
mkdir -p "$dest"
npm install --silent --no-audit --no-fund --prefix "$dest" \
    "@micropython/micropython-webassembly-pyscript@$version" >"$dest/npm.log" 2>&1 || {
    cat "$dest/npm.log" >&2
    fail "could not install MicroPython's WebAssembly port (above): check the network, then run make test again"
}
