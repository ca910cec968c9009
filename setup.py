"""Build the Cython kernels; everything else is declared in pyproject.toml.

The kernels live in ``engine_ext/`` but import as ``levata.engine.*``. Cython finds a
module's ``.pxd`` (and any ``cimport levata.engine.x``) by its qualified name, so the
declaration files are staged under ``build/pxd/levata/engine/`` and put on the include path.
"""

import shutil
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
STAGE = HERE / "build" / "pxd"


def stage_declarations() -> Path:
    target = STAGE / "levata" / "engine"
    shutil.rmtree(target, ignore_errors=True)  # a removed kernel's .pxd must not linger
    target.mkdir(parents=True)
    for pxd in (HERE / "engine_ext").glob("*.pxd"):
        shutil.copyfile(pxd, target / pxd.name)
    return STAGE


KERNELS = [
    "cardmask",
    "sampler",
    "rules",
    "solver_bounds",
    "solver_order",
    "solver_table",
    "solver",
    "playouts",
    "macao_playouts",
]

extensions = [Extension(f"levata.engine.{name}", [f"engine_ext/{name}.pyx"]) for name in KERNELS]
# The wire encoder of views and events (the referee's hottest path) belongs to the protocol's
# codec, which the referee and the bots share: it lives in ``proto/levata/wire/``.
extensions.append(Extension("levata.wire.encode", ["proto/levata/wire/encode.pyx"]))

setup(
    ext_modules=cythonize(
        extensions,
        include_path=[str(stage_declarations())],
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False},
    ),
)
