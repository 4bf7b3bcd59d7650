# lit configuration for gemmc's FileCheck tests: one folder per pass or emitter.
import os
import shutil
import sys

import lit.formats

config.name = "gemmc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".gemm"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

config.substitutions.append(("%python", sys.executable))
# `gemmc` is the console script of the Python running lit (a venv's, when run from one), else the
# one on PATH; fall back to running the module.
gemmc = (shutil.which("gemmc", path=os.path.dirname(sys.executable)) or shutil.which("gemmc")
         or f"{sys.executable} -m gemmc.driver.cli")
config.substitutions.append(("%gemmc", gemmc))
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ.get("PATH", "")]
)
for var in ("HOME", "PYTHONPATH", "GEMMC_CLANG", "ROCM_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
