"""Shanten, the reduced hand graph and the retrograde kernels (Kurita & Hoki, Sec. VI-D).

See ``search/README.md`` for each function's section and equation in the paper.
"""
from search._numba_cache import use_versioned_cache

use_versioned_cache()
