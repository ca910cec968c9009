"""Build the Cython kernels; everything else is declared in pyproject.toml.

The kernels live in ``engine_ext/`` but import as ``levata.engine.*``. Cython finds a
module's ``.pxd`` (and any ``cimport levata.engine.x``) by its qualified name, so the
declaration files are staged under ``build/pxd/levata/engine/`` and put on the include path.
"""

import os
import shutil
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
STAGE = HERE / "build" / "pxd"


def stage_declarations() -> Path:
    """Copy the ``.pxd`` files that changed (Cython rebuilds every kernel that cimports a
    declaration newer than its C file, so an unchanged copy keeps its time) and remove the
    ones whose kernel is gone."""
    target = STAGE / "levata" / "engine"
    target.mkdir(parents=True, exist_ok=True)
    wanted = {pxd.name: pxd for pxd in (HERE / "engine_ext").glob("*.pxd")}
    for staged in target.glob("*.pxd"):
        if staged.name not in wanted:
            staged.unlink()  # a removed kernel's .pxd must not linger
    for name, pxd in wanted.items():
        staged = target / name
        if not staged.is_file() or staged.read_bytes() != pxd.read_bytes():
            shutil.copyfile(pxd, staged)
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
    "playout_base",
    "macao_playouts",
    "huzur_playouts",
    "tabinet_playouts",
    "toci_playouts",
    "kemps_playouts",
    "trombon_playouts",
    "repezita_playouts",
    "trick_search",
    "whist_table",
]

extensions = [Extension(f"levata.engine.{name}", [f"engine_ext/{name}.pyx"]) for name in KERNELS]
# The wire encoder of views and events (the referee's hottest path) belongs to the protocol's
# codec, which the referee and the bots share: it lives in ``proto/levata/wire/``.
extensions.append(Extension("levata.wire.encode", ["proto/levata/wire/encode.pyx"]))

#: The ``levata.*`` packages and the folders of the fixed layout they live in.
PACKAGE_DIRS = {
    "levata.engine": "engine_ext",
    "levata.engine.games": "engine_ext/games",
    "levata.engine.family": "engine_ext/family",
    "levata.server": "server",
    "levata.server.match": "server/match",
    "levata.server.tournament": "server/tournament",
    "levata.server.cli": "server/cli",
    "levata.server.web": "server/web",
    "levata.bots": "bots",
    "levata.bots.heuristic": "bots/heuristic",
    "levata.bots.search": "bots/search",
    "levata.bots.strategy": "bots/strategy",
    "levata.envs": "envs",
    "levata.v1": "proto/levata/v1",
    "levata.wire": "proto/levata/wire",
}


def game_packages() -> list[str]:
    """Every game package (a folder with an ``__init__.py`` under engine_ext/games/)."""
    games = HERE / "engine_ext" / "games"
    return sorted(
        f"levata.engine.games.{d.name}" for d in games.iterdir() if (d / "__init__.py").is_file()
    )


class BuildOnEveryCore(build_ext):
    """Compile the kernels on every core: pip gives ``build_ext`` no ``-j``, and the solver's
    C files take minutes one at a time."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


setup(
    package_dir=PACKAGE_DIRS,
    packages=[*PACKAGE_DIRS, *game_packages()],
    cmdclass={"build_ext": BuildOnEveryCore},
    ext_modules=cythonize(
        extensions,
        include_path=[str(stage_declarations())],
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False},
        nthreads=os.cpu_count() or 1,  # .pyx to C on every core too
    ),
)
