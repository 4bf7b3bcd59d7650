"""Which handler gives an instruction its meaning, from the families' tables.

A handler is handler(machine, op) -> body: called once per instruction of the program (it may
read op's operands, attributes and the machine's arch, and raise on what it cannot run); the
body, body(act, target), runs op in the waves of `act` (a bool per wave), `target` the program
index of op's branch target or None, and returns each wave's next program counter or None for
the next instruction.

A family module (scalar_alu, vector_alu, memory_ops, matrix_ops, control) has a table from the
mnemonic (BY_MNEMONIC), a mnemonic's prefix (BY_PREFIX) or the instruction format (BY_FORMAT)
to its handler; a new family adds its tables here.  An instruction is looked up by mnemonic,
then prefix, then format; the matrix instructions by their class.
"""

from __future__ import annotations

from gemmc.amdgcn.interp import control, fdiv, matrix_ops, memory_ops, scalar_alu, vector_alu, vector_forms
from gemmc.amdgcn.interp.state import GcnInterpError
from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix


def _merged(*tables: dict) -> dict:
    """The tables as one; a key in two of them is a mistake (which handler would win?)."""
    out: dict = {}
    for table in tables:
        twice = out.keys() & table.keys()
        assert not twice, f"two handlers for {sorted(twice)}"
        out.update(table)
    return out


BY_MNEMONIC = _merged(scalar_alu.BY_MNEMONIC, vector_alu.BY_MNEMONIC, vector_forms.BY_MNEMONIC, control.BY_MNEMONIC,
                      memory_ops.BY_MNEMONIC, fdiv.BY_MNEMONIC)
BY_PREFIX = _merged(scalar_alu.BY_PREFIX, vector_alu.BY_PREFIX, control.BY_PREFIX)
BY_FORMAT = _merged(memory_ops.BY_FORMAT)


def handler(op: GcnInstruction):
    """The handler of op."""
    m = op.MNEMONIC
    if m in BY_MNEMONIC:
        return BY_MNEMONIC[m]
    for prefix, h in BY_PREFIX.items():
        if m.startswith(prefix):
            return h
    if op.FORM.fmt in BY_FORMAT:
        return BY_FORMAT[op.FORM.fmt]
    if is_matrix(op):
        return matrix_ops.matrix
    raise GcnInterpError(f"amdgcn interpreter: no semantics for {m}")
