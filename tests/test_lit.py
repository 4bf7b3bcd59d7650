"""Run the lit/FileCheck suite under pytest, so one command runs every test."""

import os
import subprocess
import sys

LIT_DIR = os.path.join(os.path.dirname(__file__), "lit")


def test_lit_suite():
    workers = str(max(1, os.cpu_count() or 1))
    proc = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-q", "-j", workers, LIT_DIR],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
