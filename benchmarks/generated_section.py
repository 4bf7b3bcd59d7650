"""A doc's generated section: the text between a script's BEGIN and END markers, replaced whole."""

from __future__ import annotations


def splice(doc: str, begin: str, end: str, body: str, where: str, error=ValueError) -> str:
    """`doc` with what stands between `begin` and `end` replaced by `body`; `error(message)` is
    raised where either marker is missing (`where` names the doc and the section)."""
    if begin not in doc or end not in doc:
        raise error(f"{where}: no generated section ({begin!r} ... {end!r})")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}{end}{tail}"
