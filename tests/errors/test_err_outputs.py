"""Whole outputs: gemmc writes a temporary file beside the target and renames it, so an error
never leaves a partial, truncated or clobbered output, and `-o` never overwrites the input."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from errors.helpers import BASE, run_in_process
import gemmc
from gemmc.support.diagnostics import GemmcError


def _toolchain():
    try:
        from gemmc.target.toolchain import find_toolchain

        return find_toolchain()
    except GemmcError:
        return None


needs_clang = pytest.mark.skipif(_toolchain() is None, reason="no clang with the AMDGPU backend")


def test_write_goes_through_a_temporary_and_a_rename(tmp_path, monkeypatch):
    target = tmp_path / "out.hip"
    target.write_text("old")
    seen = {}
    real_replace = os.replace

    def spy(src, dst):
        src, dst = Path(src), Path(dst)
        seen.update(src=src, dst=dst, content=src.read_bytes(), target_then=dst.read_text())
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    gemmc.write_output(str(target), "new whole text\n")
    assert seen["dst"] == target and seen["src"].parent == tmp_path and seen["src"] != target
    assert seen["content"] == b"new whole text\n" and seen["target_then"] == "old"
    assert target.read_text() == "new whole text\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.hip"]


def test_disk_full_midway_keeps_the_old_output(tmp_path, monkeypatch):
    """A write that fails halfway (ENOSPC) leaves the previous output as it was."""
    target = tmp_path / "out.hip"
    target.write_text("old")
    real_open = open

    class HalfFile:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("builtins.open", lambda p, mode="r", *a, **k: HalfFile(real_open(p, mode, *a, **k)))
    with pytest.raises(GemmcError) as e:
        gemmc.write_output(str(target), "x" * 10000)
    monkeypatch.undo()
    assert e.value.code == 3 and e.value.message == f"{target}: cannot write: No space left on device"
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.hip"]


def test_failed_rename_keeps_the_old_output(tmp_path, monkeypatch):
    target = tmp_path / "out.hip"
    target.write_text("old")

    def fail(src, dst):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(GemmcError) as e:
        gemmc.write_output(str(target), "new")
    assert e.value.code == 3 and target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.hip"]


def _fake_clang(d: Path) -> str:
    p = d / "fake-clang"
    p.write_text('#!/bin/sh\ncase "$*" in\n  *--version*) echo "fake clang 22"; exit 0;;\n'
                 '  *--print-targets*) echo "  amdgcn - AMD GCN GPUs"; exit 0;;\n'
                 '  *--print-supported-cpus*) echo "  gfx942"; exit 0;;\nesac\n'
                 'echo "kernel.hip:3:1: error: boom" >&2\nexit 1\n')
    p.chmod(0o755)
    return str(p)


@pytest.mark.parametrize("argv, env, code", [
    (["compile", "{src}", "-p", "gemm-to-kernel,register-tiling", "-o", "{out}"], {}, 1),
    (["compile", "{bad}", "-o", "{out}"], {}, 1),
    (["compile", "{src}", "-p", "no-such-pass", "-o", "{out}"], {}, 2),
    (["compile", "{src}", "-p", "step1", "--emit", "asm", "-o", "{out}"], {"GEMMC_CLANG": "{clang}"}, 4),
    (["compile", "{src}", "-p", "step1", "--emit", "hsaco", "-o", "{out}"], {"GEMMC_CLANG": "{clang}"}, 4),
    (["compile", "{src}", "-p", "step1", "--report", "-o", "{out}"], {"GEMMC_CLANG": "{clang}"}, 4),
    (["opt", "{src}", "-p", "gemm-to-kernel,vectorize", "-o", "{out}"], {}, 1),
], ids=["pass-error", "syntax-error", "usage-error", "asm-toolchain-error", "hsaco-toolchain-error",
        "report-toolchain-error", "opt-pass-error"])
def test_an_error_leaves_the_old_output_alone(argv, env, code, tmp_path):
    (tmp_path / "k.gemm").write_text(BASE)
    (tmp_path / "bad.gemm").write_text(BASE.replace("@", "@@"))
    out = tmp_path / "out.file"
    out.write_bytes(b"previous output\n")
    clang = _fake_clang(tmp_path)
    subst = {"{src}": str(tmp_path / "k.gemm"), "{bad}": str(tmp_path / "bad.gemm"), "{out}": str(out),
             "{clang}": clang}

    def fill(s):
        for k, v in subst.items():
            s = s.replace(k, v)
        return s

    before = sorted(p.name for p in tmp_path.iterdir())
    got, _, err = run_in_process([fill(a) for a in argv], env={k: fill(v) for k, v in env.items()})
    assert got == code, err
    assert "Traceback" not in err
    assert out.read_bytes() == b"previous output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("cmd, name", [("compile", "k.gemm"), ("opt", "k.gemm"), ("opt", "k.mlir")])
def test_output_equal_to_input_is_refused_before_any_work(cmd, name, tmp_path):
    src = tmp_path / name
    text = BASE if name.endswith(".gemm") else gemmc.print_ir(gemmc.parse(BASE))
    src.write_text(text)
    for spelling in (str(src), f"{tmp_path}/../{tmp_path.name}/{name}"):
        code, _, err = run_in_process([cmd, str(src), "-o", spelling])
        assert code == 3 and err.strip() == f"error: {spelling}: output would overwrite the input"
    assert src.read_text() == text
    assert [p.name for p in tmp_path.iterdir()] == [name]


@needs_clang
@pytest.mark.parametrize("kind", ["asm", "hsaco"])
def test_emit_asm_and_hsaco_whole(kind, tmp_path):
    """--emit asm and --emit hsaco write exactly what the compiler produced, through the rename."""
    (tmp_path / "k.gemm").write_text(BASE)
    out = tmp_path / f"k.{'s' if kind == 'asm' else 'hsaco'}"
    code, stdout, err = run_in_process(["compile", str(tmp_path / "k.gemm"), "-p", "step2", "--emit", kind,
                                        "-o", str(out)])
    assert code == 0 and stdout == "", err
    m = gemmc.parse(BASE)
    gemmc.lower(m, "step2", "gfx942")
    want = gemmc.emit(m, "gfx942", kind)
    data = out.read_bytes()
    if kind == "hsaco":
        assert data[:4] == b"\x7fELF" and data == want
    else:
        assert data.decode() == want and ".amdgcn_target" in want
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["k.gemm", out.name])


@needs_clang
def test_emit_hsaco_to_an_unwritable_place(tmp_path):
    (tmp_path / "k.gemm").write_text(BASE)
    code, _, err = run_in_process(["compile", str(tmp_path / "k.gemm"), "-p", "step1", "--emit", "hsaco",
                                   "-o", str(tmp_path / "missing" / "k.hsaco")])
    assert code == 3 and "cannot write: No such file or directory" in err
    assert [p.name for p in tmp_path.iterdir()] == ["k.gemm"]
