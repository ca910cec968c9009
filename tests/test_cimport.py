"""Later kernels `cimport` the card-mask helpers: compile one against the installed .pxd."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_new_kernel_can_cimport_cardmask(tmp_path):
    (tmp_path / "probe.pyx").write_text(
        textwrap.dedent(
            """
            # cython: language_level=3
            from levata.engine.cardmask cimport mask_t, popcount, highest, suit_bits

            def spades_and_top(mask_t m):
                return popcount(m & suit_bits(3)), highest(m)
            """
        )
    )
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        "from Cython.Build import cythonize\n"
        "from levata.engine.include import get_include\n"
        "setup(ext_modules=cythonize('probe.pyx', include_path=[get_include()], quiet=True))\n"
    )
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import probe; from levata.engine import cardmask, parse_cards as p;"
            "print(probe.spades_and_top(cardmask.mask_of(p('AS KS 2C'))))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == f"(2, {16 * 3 + 14})"
