"""What `explain --plot` and `layout --plot` share: everything that can fail is checked
before any work (the format, the place, matplotlib), and the picture is written whole or
not at all, through gemmc.driver.api.write_output like every other output.

    check_plot_path(path, input_path)   before the command does anything
    plt = pyplot()                      matplotlib's pyplot on the Agg backend
    save(fig, path, input_path)         render into memory, then the atomic write
"""

from __future__ import annotations

import io

from gemmc.support.diagnostics import EXIT_USAGE, GemmcError
from gemmc.driver.source import check_output_path, write_output

INSTALL_HINT = "pip install 'gemmc[plot]' (or pip install matplotlib)"
FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: str, input_path: str | None = None) -> None:
    """Refuse a plot that cannot be written, before the command prints or computes anything."""
    if not path.lower().endswith(FORMATS):
        raise GemmcError(f"{path or repr(path)}: --plot writes .png, .svg or .pdf", code=EXIT_USAGE)
    check_output_path(path, input_path)
    pyplot()


def pyplot():
    """matplotlib.pyplot, drawing off-screen; a usage error naming the install when missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise GemmcError(f"--plot needs matplotlib: {INSTALL_HINT}", code=EXIT_USAGE) from None
    return plt


def save(fig, path: str, input_path: str | None = None, **savefig_args) -> None:
    """Render `fig` in the format its suffix names, then write the bytes atomically: a
    failure while rendering or writing leaves an existing file at `path` as it was."""
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=path.rsplit(".", 1)[-1].lower(), **savefig_args)
    finally:
        pyplot().close(fig)
    write_output(path, buf.getvalue(), input_path=input_path)
