"""What every command-line tool of the project shares: bad input ends in one line, exit 2.

A ``main(argv) -> int`` wrapped by :func:`reports_errors` prints a :class:`MahjongError`
(a malformed record, an unknown agent, a missing model file...) as ``error: <message>`` on
stderr, naming the file and position the error carries, and returns 2, never a traceback.
"""
from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from game.errors import MahjongError, OutputError


def check_output_dir(path: str | Path, option: str) -> Path:
    """``path`` as a Path when it is a directory or not there yet (it is made later);
    OutputError naming it when it is a file, before any slow work is done."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} names a file, not a directory", path=str(path))
    return path


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a hidden temp file in the same folder and a rename:
    a kill or an error leaves the old file or the new one, never half of one (the temp is
    removed on an error). Not ``mkstemp``: the file keeps the ordinary permissions."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def pyplot():
    """matplotlib's pyplot on the Agg backend: the commands write PNG files, no display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str | Path, dpi: int) -> Path:
    """Lay ``fig`` out, write it to ``path`` (its folder made), close it; the path."""
    import matplotlib.pyplot as plt

    path = Path(path)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def reports_errors(main: Callable[..., int]) -> Callable[..., int]:
    @functools.wraps(main)
    def wrapper(*args, **kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except MahjongError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return wrapper
