#!/usr/bin/env bash
# Installs the pinned onnxruntime-node into bench/.ort (npm), unless that version is
# already there. ONNX Runtime is the reference for bench/run.sh and tests/ort.
set -euo pipefail
ORT_VERSION=1.30.0           # newest onnxruntime-node that installs and runs on Node 20 here
ort_dir=$(cd "$(dirname "$0")/.." && pwd)/bench/.ort
die() { echo "install-ort: $*" >&2; exit 1; }
command -v node >/dev/null || die "node (>= 18) is needed for onnxruntime-node (apt-get install nodejs)"
have=$(node -p "try{require('$ort_dir/node_modules/onnxruntime-node/package.json').version}catch{''}")
[ "$have" = "$ORT_VERSION" ] && exit 0
echo "install-ort: installing onnxruntime-node@$ORT_VERSION into bench/.ort" >&2
command -v npm >/dev/null || die "npm is needed to install onnxruntime-node (apt-get install npm)"
mkdir -p "$ort_dir"
npm install --prefix "$ort_dir" --no-audit --no-fund --loglevel=error \
	"onnxruntime-node@$ORT_VERSION" --onnxruntime-node-install=skip >&2 ||
	die "npm install onnxruntime-node@$ORT_VERSION failed"
