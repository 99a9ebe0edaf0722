#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running example:
# installs dependencies, builds ingot into build/, then runs examples/fashion: trains a
# small CNN on Fashion-MNIST (cached in build/fashion-cache), compiles it into a static
# library, and classifies the 10,000 test images from C, here and on aarch64 under qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build
meson compile -C build
examples/fashion/run.sh build/compiler/driver/ingot build/examples/fashion build/fashion-cache
