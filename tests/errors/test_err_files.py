"""The catalogue of bad files, IR inputs and toolchains: missing, unreadable, binary or empty
inputs, outputs that cannot be written, IR that does not parse or verify, and a compiler that
is missing or fails.  Files exit 3, IR exits 1, the toolchain exits 4 (docs/errors.md)."""

from __future__ import annotations

import os
import socket
import stat
import sys
from pathlib import Path

import pytest

from errors.helpers import BASE, Case, run_in_process

LINUX = sys.platform.startswith("linux")
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def _fifo(d: Path) -> None:
    os.mkfifo(d / "f.gemm")


def _socket(d: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(d / "s.gemm"))
    s.close()


def _symlinks(d: Path) -> None:
    (d / "link.hip").symlink_to(d / "k.gemm")
    (d / "dangling.gemm").symlink_to(d / "nowhere.gemm")
    os.link(d / "k.gemm", d / "hard.hip")


def _no_read(d: Path) -> None:
    (d / "k.gemm").chmod(0)


def _fake_clangs(d: Path) -> None:
    """Stand-ins for clang++: one that fails every compile, one without an AMDGPU backend,
    one that does not know gfx950, and a file that is not executable."""
    head = "#!/bin/sh\n"
    probe = ('case "$*" in\n'
             '  *--version*) echo "fake clang version 22.0.0"; exit 0;;\n'
             '  *--print-targets*) echo "    amdgcn      - AMD GCN GPUs"; exit 0;;\n'
             '  *--print-supported-cpus*) echo "    gfx90a"; echo "    gfx942"; exit 0;;\n'
             "esac\n")
    failing = d / "fake-clang"
    failing.write_text(head + probe + 'echo "kernel.hip:1:1: error: fake compiler failure" >&2\nexit 1\n')
    no_amdgcn = d / "host-clang"
    no_amdgcn.write_text(head + 'echo "host clang version 22.0.0"\nexit 0\n')
    for p in (failing, no_amdgcn):
        p.chmod(0o755)
    (d / "not-exec").write_text("nothing")


SOURCE = {"k.gemm": BASE}
NO_TOOLS = {"PATH": "", "ROCM_PATH": "/nonexistent-rocm", "GEMMC_CLANG": ""}

FILES = [
    # -- inputs ----------------------------------------------------------------------------------
    Case("missing-input", ["opt", "{dir}/nope.gemm"], 3, "error: {dir}/nope.gemm: no such file"),
    Case("dangling-symlink", ["opt", "{dir}/dangling.gemm"], 3, "error: {dir}/dangling.gemm: no such file",
         files=SOURCE, setup=_symlinks),
    Case("directory-input", ["opt", "{dir}"], 3, "error: {dir}: is a directory, expected a .gemm or .mlir file"),
    Case("fifo-without-writer", ["opt", "{dir}/f.gemm"], 3,
         "error: {dir}/f.gemm: is a FIFO with no writer; nothing to read", setup=_fifo),
    Case("socket-input", ["opt", "{dir}/s.gemm"], 3, "error: {dir}/s.gemm: cannot read: No such device or address",
         setup=_socket),
    Case("empty-input", ["opt", "{src}"], 3, "error: {src}: is empty", files={"k.gemm": ""}),
    Case("blank-input", ["opt", "{src}"], 3, "error: {src}: is empty", files={"k.gemm": " \n\t\n"}),
    Case("binary-input", ["opt", "{src}"], 3, "error: {src}: is a binary file, expected a .gemm or .mlir file",
         files={"k.gemm": b"\x7fELF\x02\x01\x01\x00\x00"}),
    Case("latin1-input", ["opt", "{src}"], 3, "error: {src}: not UTF-8 text (byte 10)",
         files={"k.gemm": "kernel k {\xe9}".encode("latin-1")}),
    Case("stdin-empty", ["opt", "-"], 3, "error: <stdin>: is empty", stdin=b""),
    Case("stdin-binary", ["opt", "-"], 3, "error: <stdin>: is a binary file, expected a .gemm or .mlir file",
         stdin=b"\x00\x01"),
    Case("stdin-not-utf8", ["opt", "-"], 3, "error: <stdin>: not UTF-8 text (byte 0)", stdin=b"\xff\xfe"),
    Case("stdin-syntax", ["opt", "-"], 1, "<stdin>:1:8: error: unexpected '{'; expected a name",
         stdin=b"kernel {}"),
    # -- outputs ---------------------------------------------------------------------------------
    Case("output-is-input", ["compile", "{src}", "-o", "{src}"], 3, "error: {src}: output would overwrite the input",
         files=SOURCE),
    Case("output-is-input-respelled", ["compile", "{src}", "-o", "{dir}/./k.gemm"], 3,
         "error: {dir}/./k.gemm: output would overwrite the input", files=SOURCE),
    Case("output-symlink-to-input", ["compile", "{src}", "-o", "{dir}/link.hip"], 3,
         "error: {dir}/link.hip: output would overwrite the input", files=SOURCE, setup=_symlinks),
    Case("output-hardlink-to-input", ["opt", "{src}", "-o", "{dir}/hard.hip"], 3,
         "error: {dir}/hard.hip: output would overwrite the input", files=SOURCE, setup=_symlinks),
    Case("output-is-directory", ["compile", "{src}", "-o", "{dir}"], 3, "error: {dir}: is a directory",
         files=SOURCE),
    Case("output-dir-missing", ["compile", "{src}", "-p", "step1", "-o", "{dir}/no/such/x.hip"], 3,
         "error: {dir}/no/such/x.hip: cannot write: No such file or directory", files=SOURCE),
    Case("output-under-a-file", ["opt", "{src}", "-o", "{src}/x.mlir"], 3,
         "error: {src}/x.mlir: cannot write: Not a directory", files=SOURCE),
    # -- IR inputs -------------------------------------------------------------------------------
    Case("ir-syntax", ["opt", "{dir}/bad.mlir"], 1, "{dir}/bad.mlir:2:17: error: Expected argument or type",
         files={"bad.mlir": "builtin.module {\n  func.func @f( {\n}\n"}, located=(2, 17)),
    Case("ir-unknown-op", ["opt", "{dir}/unk.mlir"], 1, "{dir}/unk.mlir:1:10: error: Operation foo.bar is not registered",
         files={"unk.mlir": '"foo.bar"() : () -> ()\n'}),
    Case("ir-does-not-verify", ["opt", "{dir}/v.mlir"], 1,
         "error: IR does not verify: dimension K is 8 in A but 4 in B",
         files={"v.mlir": 'builtin.module {\n  func.func @k(%A: memref<8x8xf32>, %B: memref<4x8xf32>, '
                          '%C: memref<8x8xf32>) {\n    gemm.matmul %A, %B, %C {acc_type = f32} : memref<8x8xf32>, '
                          'memref<4x8xf32>, memref<8x8xf32>\n    func.return\n  }\n}\n'}),
    Case("ir-truncated", ["opt", "{dir}/t.mlir"], 1, "{dir}/t.mlir:3:1: error: unexpected end of file (in block definition)",
         files={"t.mlir": "builtin.module {\n  func.func @f() {\n"}),
    Case("ir-use-before-def", ["opt", "{dir}/u.mlir"], 1,
         "error: IR does not verify: %x is used by 'arith.addf' where it is not defined",
         files={"u.mlir": "builtin.module {\n  func.func @f() {\n    %y = arith.addf %x, %x : f32\n"
                          "    %x = arith.constant 1.0 : f32\n    func.return\n  }\n}\n"}),
    # -- the toolchain ---------------------------------------------------------------------------
    Case("clang-nowhere", ["compile", "{src}", "-p", "step1", "--emit", "asm"], 4,
         "error: GEMMC_CLANG={dir}/no-clang is not an executable compiler", files=SOURCE,
         env={"GEMMC_CLANG": "{dir}/no-clang"}),
    Case("clang-not-executable", ["compile", "{src}", "-p", "step1", "--emit", "asm"], 4,
         "error: GEMMC_CLANG={dir}/not-exec is not an executable compiler", files=SOURCE, setup=_fake_clangs,
         env={"GEMMC_CLANG": "{dir}/not-exec"}),
    Case("clang-without-amdgpu", ["compile", "{src}", "-p", "step1", "--emit", "asm"], 4,
         "re:error: GEMMC_CLANG=.*/host-clang has no AMDGPU \\(amdgcn\\) backend; .*", files=SOURCE,
         setup=_fake_clangs, env={"GEMMC_CLANG": "{dir}/host-clang"}),
    Case("clang-fails", ["compile", "{src}", "-p", "step1", "--emit", "asm"], 4,
         "error: fake-clang failed for gfx942: kernel.hip:1:1: error: fake compiler failure", files=SOURCE,
         setup=_fake_clangs, env={"GEMMC_CLANG": "{dir}/fake-clang"}),
    Case("clang-fails-hsaco", ["compile", "{src}", "-p", "step1", "--emit", "hsaco", "-o", "{dir}/k.hsaco"], 4,
         "error: fake-clang failed for gfx942: kernel.hip:1:1: error: fake compiler failure", files=SOURCE,
         setup=_fake_clangs, env={"GEMMC_CLANG": "{dir}/fake-clang"}),
    Case("clang-without-arch", ["compile", "{src}", "-p", "step1", "--emit", "asm", "--arch", "gfx950"], 4,
         "re:error: .*/fake-clang \\(fake clang version 22.0.0\\) does not know gfx950; .*", files=SOURCE,
         setup=_fake_clangs, env={"GEMMC_CLANG": "{dir}/fake-clang"}),
    Case("no-toolchain-asm", ["compile", "{src}", "-p", "step1", "--emit", "asm"], 4,
         "re:error: no HIP compiler with the AMDGPU backend found; .*", files=SOURCE, env=NO_TOOLS),
    Case("no-toolchain-report", ["compile", "{src}", "-p", "step1", "--report"], 4,
         "re:error: no HIP compiler with the AMDGPU backend found; .*", files=SOURCE, env=NO_TOOLS),
]

SKIPS = {
    "socket-input": (not LINUX, "AF_UNIX sockets as files: Linux"),
    "no-toolchain-asm": (os.path.isdir("/opt/rocm"), "a ROCm install at /opt/rocm is found without PATH"),
    "no-toolchain-report": (os.path.isdir("/opt/rocm"), "a ROCm install at /opt/rocm is found without PATH"),
}


@pytest.mark.parametrize("case", FILES, ids=lambda c: c.id)
def test_bad_file(case: Case, tmp_path):
    skip, why = SKIPS.get(case.id, (False, ""))
    if skip:
        pytest.skip(why)
    argv = case.prepare(tmp_path)
    env = {k: case.fill(v, tmp_path) for k, v in case.env.items()}
    before = sorted(p.name for p in tmp_path.iterdir())
    case.check(tmp_path, *run_in_process(argv, case.stdin, env))
    # a failed command writes nothing: no output, no temporary file
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_unreadable_input_eio():
    """/proc/self/mem exists and is a regular file, but reading it at offset 0 fails (EIO):
    an unreadable input that stays unreadable for root."""
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc/self/mem")
    code, _, err = run_in_process(["opt", "/proc/self/mem"])
    assert code == 3 and err.strip() == "error: /proc/self/mem: cannot read: Input/output error"


@pytest.mark.skipif(ROOT_USER, reason="root reads a file whatever its mode; test_unreadable_input_eio covers it")
def test_unreadable_input_mode(tmp_path):
    case = Case("no-read", ["opt", "{src}"], 3, "error: {src}: cannot read: Permission denied",
                files=SOURCE, setup=_no_read)
    argv = case.prepare(tmp_path)
    case.check(tmp_path, *run_in_process(argv))


def test_unwritable_output_for_root(tmp_path):
    """/sys refuses new files even to root."""
    if not os.path.isdir("/sys/kernel"):
        pytest.skip("no /sys")
    (tmp_path / "k.gemm").write_text(BASE)
    code, _, err = run_in_process(["compile", str(tmp_path / "k.gemm"), "-p", "step1", "-o", "/sys/gemmc-test.hip"])
    assert code == 3 and err.strip().startswith("error: /sys/gemmc-test.hip: cannot write: "), err


def test_stdin_closed(monkeypatch, capsys):
    from gemmc.driver.cli import main

    monkeypatch.setattr(sys, "stdin", None)
    code = main(["opt", "-"])
    err = capsys.readouterr().err
    assert code == 3 and err.strip() == "error: <stdin>: cannot read: standard input is closed"


def test_huge_input_is_refused():
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    code, _, err = run_in_process(["opt", "/dev/zero"])
    assert code == 3 and err.strip() == "error: /dev/zero: is larger than 64 MiB; not a .gemm or .mlir file"


def test_process_substitution_still_reads(tmp_path):
    """A pipe with a writer (bash's <(...)) is read normally despite the FIFO handling."""
    r, w = os.pipe()
    os.write(w, BASE.encode())
    os.close(w)
    try:
        code, out, err = run_in_process(["opt", f"/dev/fd/{r}"])
    finally:
        os.close(r)
    assert code == 0 and "gemm.matmul" in out, err


def test_byte_order_mark_is_ignored(tmp_path):
    (tmp_path / "k.gemm").write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    code, out, err = run_in_process(["opt", str(tmp_path / "k.gemm")])
    assert code == 0 and "gemm.matmul" in out, err


def test_mode_bits_unchanged(tmp_path):
    """The rename keeps the umask's mode (a temporary file must not leave 0600 behind)."""
    (tmp_path / "k.gemm").write_text(BASE)
    code, _, err = run_in_process(["opt", str(tmp_path / "k.gemm"), "-o", str(tmp_path / "k.mlir")])
    assert code == 0, err
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "k.mlir").stat().st_mode) == 0o666 & ~umask
