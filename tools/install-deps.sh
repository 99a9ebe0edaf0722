#!/usr/bin/env bash
# Installs what ingot needs to build and test on Debian 12 (as root, or through sudo).
# Idempotent: packages already present are left alone.
set -euo pipefail
pkgs=(meson ninja-build gcc clang make cmake libprotobuf-c-dev protobuf-c-compiler libonnx-dev
      python3-onnx python3-numpy python3-torch python3-torchvision
      gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-user gcc-arm-none-eabi libnewlib-arm-none-eabi
      qemu-system-arm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
