#!/usr/bin/env bash
# Install gemmc with its test tools, matplotlib (--plot, and its tests), Ray (tune --shapes
# --ray, and its test) and Triton (benchmarks/triton_compare.py, and its test) into a virtual environment, .venv (activate it with
# `. .venv/bin/activate`), and LLVM 22 (AMDGPU backend) when it is missing (Debian/Ubuntu).
# A venv because a system Python may refuse pip (PEP 668, "externally-managed-environment",
# Debian and Ubuntu's python3), and one place on every machine keeps the README's commands true.
# PYTHON=python3.12 ./setup.sh chooses the Python the venv is made from (3.10 or later).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
VENV=.venv
root_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }
apt_updated=
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
  apt-get install -y -qq --no-upgrade "$@" >/dev/null  # (what is installed stays as it is)
}
die() { echo "setup.sh: $*" >&2; exit 1; }

# Python first: a wrong one is said before a long LLVM install
command -v "$PYTHON" >/dev/null || die "$PYTHON not found; install Python 3.10 or later (or set PYTHON=...)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
  die "$PYTHON is Python $("$PYTHON" -c 'import platform; print(platform.python_version())'); gemmc needs 3.10 or later"

if ! command -v clang++-22 >/dev/null || ! command -v ld.lld-22 >/dev/null || ! command -v llvm-mc-22 >/dev/null; then
  if root_apt; then
    apt_install clang-22 lld-22 llvm-22
  else
    echo "setup.sh: LLVM 22 not found; install clang-22 lld-22 llvm-22 (or ROCm) for --emit asm/hsaco and the tests" >&2
  fi
fi
# HIP's runtime headers, for the tests that compile the host side of the emitted HIP (Debian's
# libamdhip64-dev; a ROCm install has them).
if [ ! -f /usr/include/hip/hip_runtime.h ] && [ ! -f "${ROCM_PATH:-/opt/rocm}/include/hip/hip_runtime.h" ]; then
  if root_apt; then
    apt_install libamdhip64-dev || echo "setup.sh: libamdhip64-dev not installed; the host-side compile tests use a stand-in header" >&2
  fi
fi

# A venv whose pip runs (a half-made one, e.g. from a Python without ensurepip, is made again).
if ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$VENV"
  if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    # Debian/Ubuntu ship venv's pip bootstrap (ensurepip) separately, as python3-venv
    root_apt || die "$PYTHON cannot make a virtual environment (no ensurepip); install python3-venv (apt-get install python3-venv)"
    apt_install python3-venv "python$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv" ||
      apt_install python3-venv
    "$PYTHON" -m venv "$VENV" || { rm -rf "$VENV"; die "$PYTHON -m venv $VENV failed"; }
  fi
fi
# Ray's wheel is ~80 MB (about 8 s to download and install): within CI's time.  A Python that
# Ray has no wheel for still gets gemmc; --ray then says how to install it and its test skips.
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test,plot,ray]'; then
  echo "setup.sh: installing without Ray (gemmc tune --ray and its test need it)" >&2
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test,plot]' ||
    die "pip could not install gemmc into $VENV (see above)"
fi
# Triton (an optional extra, ~290 MB, about 50 s to download and install) writes docs/triton.md and
# lets its CI test check it; without it (no wheel for this Python or platform) that test skips.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[triton]' ||
  echo "setup.sh: installing without Triton (benchmarks/triton_compare.py and its test need it)" >&2
echo "setup.sh: gemmc is installed in $VENV; activate it in your shell with: . $VENV/bin/activate" >&2
