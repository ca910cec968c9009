"""Where the kernels' ``.pxd`` files are, for extensions that ``cimport`` them.

Like ``numpy.get_include()``: pass it to ``cythonize(include_path=[...])`` and write
``from levata.engine.cardmask cimport mask_t, popcount``.

>>> import os
>>> os.path.exists(os.path.join(get_include(), "levata", "engine", "cardmask.pxd"))
True
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["get_include"]


def get_include() -> str:
    """A directory holding ``levata/engine/*.pxd``.

    An installed package already has that shape; an editable install points into the source
    tree (``engine_ext/``), where ``setup.py`` staged the files under ``build/pxd``.
    """
    here = Path(__file__).resolve().parent
    if here.name == "engine" and here.parent.name == "levata":
        return str(here.parent.parent)
    return str(here.parent / "build" / "pxd")
