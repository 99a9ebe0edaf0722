#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running example:
# installs dependencies, builds ingot into build/, compiles examples/digits into a
# static library, links the example app against it and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build
meson compile -C build
examples/digits/run.sh build/compiler/driver/ingot build/examples/digits
