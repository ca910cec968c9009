"""Later kernels `cimport` the card-mask helpers: compile one against the installed .pxd."""

from __future__ import annotations

from probe import build_and_run


def test_a_new_kernel_can_cimport_cardmask(tmp_path):
    out = build_and_run(
        tmp_path,
        """
        # cython: language_level=3
        from levata.engine.cardmask cimport mask_t, popcount, highest, suit_bits

        def spades_and_top(mask_t m):
            return popcount(m & suit_bits(3)), highest(m)
        """,
        "import probe; from levata.engine import cardmask, parse_cards as p;"
        "print(probe.spades_and_top(cardmask.mask_of(p('AS KS 2C'))))",
    )
    assert out == f"(2, {16 * 3 + 14})"
