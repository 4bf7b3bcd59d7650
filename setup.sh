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
# HIP's runtime headers, for the tests that compile the host side of the emitted HIP (Debian's
# libamdhip64-dev; a ROCm install has them).
if [ ! -f /usr/include/hip/hip_runtime.h ] && [ ! -f "${ROCM_PATH:-/opt/rocm}/include/hip/hip_runtime.h" ] \
   && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libamdhip64-dev >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libamdhip64-dev >/dev/null; } \
    || echo "setup.sh: libamdhip64-dev not installed; the host-side compile tests use a stand-in header" >&2
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
