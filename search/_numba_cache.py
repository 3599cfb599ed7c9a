"""Where numba keeps the compiled kernels of this project.

numba's on-disk cache checks only the source file of the cached function itself. A kernel
that calls a kernel of another module (the hand graph calls the shanten kernels, the agents
call them too) would keep running the old machine code after that other module changed,
which can crash. So the cache goes to a folder named after a digest of every source file of
``search/``: any change there starts a fresh cache. ``NUMBA_CACHE_DIR`` set by the user wins.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def cache_root() -> Path:
    env = os.environ.get("MAHJONG_MDP_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mahjong-mdp"


def source_digest() -> str:
    digest = hashlib.sha1()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def use_versioned_cache() -> None:
    """Point numba's cache at a folder keyed by the digest of ``search/``'s sources."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    folder = cache_root() / "numba" / source_digest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # not writable: numba falls back to __pycache__ beside the sources
    numba.config.CACHE_DIR = str(folder)
