"""Test helper: compile a small Cython module against the installed kernels' .pxd and run
Python code that imports it, as a later kernel would."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SETUP = (
    "from setuptools import setup\n"
    "from Cython.Build import cythonize\n"
    "from levata.engine.include import get_include\n"
    "setup(ext_modules=cythonize('probe.pyx', include_path=[get_include()], quiet=True))\n"
)


def build_and_run(folder: Path, pyx: str, code: str) -> str:
    """Build ``pyx`` as module ``probe`` in ``folder``, run ``code`` there, return stdout."""
    (folder / "probe.pyx").write_text(textwrap.dedent(pyx))
    (folder / "setup.py").write_text(SETUP)
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()
