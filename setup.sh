#!/usr/bin/env bash
# Install gemmc with its test tools, and LLVM 22 (AMDGPU backend) when it is missing (Debian/Ubuntu).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v clang++-22 >/dev/null || ! command -v ld.lld-22 >/dev/null || ! command -v llvm-mc-22 >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq clang-22 lld-22 llvm-22 >/dev/null
  else
    echo "setup.sh: LLVM 22 not found; install clang-22 lld-22 llvm-22 (or ROCm) for --emit asm/hsaco and the tests" >&2
  fi
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
