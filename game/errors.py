"""The project's own error types.

Every error a user can cause (a malformed record, an unknown tile, an illegal action, a
missing model file) is raised as a subclass of :class:`MahjongError`, so command-line
tools can catch one type and print one line instead of a traceback.
"""
from __future__ import annotations


class MahjongError(Exception):
    """Base of every error this project raises on bad input."""


class TileError(MahjongError, ValueError):
    """An unknown tile name, id or kind, or a malformed hand string."""


class RecordError(MahjongError):
    """A game record that cannot be read: names the file and the position in it."""

    def __init__(self, message: str, *, path: str | None = None, position: str | None = None):
        self.path = path
        self.position = position
        where = ":".join(str(p) for p in (path, position) if p is not None)
        super().__init__(f"{where}: {message}" if where else message)


class OutputError(MahjongError):
    """An output file that cannot be written: a directory, a missing folder, no permission."""

    def __init__(self, message: str, *, path: str):
        self.path = path
        super().__init__(f"{path}: {message}")


class IllegalActionError(MahjongError):
    """An agent chose an action that is not among the legal ones."""


class ModelFileError(MahjongError):
    """A trained model file is missing or does not match the code that loads it."""
