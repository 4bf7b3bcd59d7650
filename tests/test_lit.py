"""Run the lit/FileCheck suite under pytest, so one command runs every test.

One pytest test per folder of tests/lit (one folder per pass or emitter), each running lit on one
core: pytest-xdist then spreads the folders over its workers like any other tests, where one test
running the whole suite held a worker for a quarter of the run and ran lit's own workers beside the
other xdist worker's tests."""

import os
import subprocess
import sys

import pytest

LIT_DIR = os.path.join(os.path.dirname(__file__), "lit")
FOLDERS = sorted(d for d in os.listdir(LIT_DIR) if os.path.isdir(os.path.join(LIT_DIR, d)) and not d.startswith("."))


def test_every_lit_test_is_in_a_folder():
    """A test file at the top of tests/lit would be run by no folder's test."""
    loose = [f for f in os.listdir(LIT_DIR) if f.endswith((".mlir", ".gemm"))]
    assert not loose, f"lit tests outside a folder: {loose}"


@pytest.mark.parametrize("folder", FOLDERS)
def test_lit_folder(folder):
    proc = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-q", "-j", "1", os.path.join(LIT_DIR, folder)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
