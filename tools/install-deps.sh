#!/usr/bin/env bash
# Installs what ingot needs to build and test on Debian 12 (as root, or through sudo).
# Idempotent: packages already present are left alone.
set -euo pipefail
pkgs=(meson ninja-build gcc clang libclang-rt-14-dev make cmake libprotobuf-c-dev protobuf-c-compiler libonnx-dev
      python3-onnx python3-numpy python3-sklearn python3-torch python3-torchvision python3-pil libjpeg-turbo-progs
      dataset-fashion-mnist
      gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-user gcc-arm-none-eabi libnewlib-arm-none-eabi
      qemu-system-arm nodejs time graphviz pkg-config man-db
      pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo)   # --target opencl on the CPU
# llvm-14-dev: the optional LLVM backend, used only by a -Dllvm=enabled build (the default
# build leaves it out); clang-14's kernel bitcode must load in LLVM 14
pkgs+=(llvm-14-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "installing: ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# ONNX Runtime (npm onnxruntime-node, pinned) into bench/.ort, tests/ort's reference; without
# it (no network, say) only that test fails, with a message, so the rest still runs
"$(dirname "$0")/install-ort.sh" || echo "install-deps: onnxruntime-node missing: test ort_reference will fail" >&2
