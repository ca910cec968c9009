"""A later kernel can cimport the solver's declarations, now spread over several .pxd files
(``solver`` cimports its search context from ``solver_state``): compile one against the
installed files."""

from __future__ import annotations

from probe import build_and_run


def test_a_new_kernel_can_cimport_the_solver(tmp_path):
    out = build_and_run(
        tmp_path,
        """
        # cython: language_level=3
        from levata.engine.cardmask cimport bit
        from levata.engine.rules cimport TrickRules
        from levata.engine.solver cimport Objective, Solver
        from levata.engine.solver_state cimport Ctx, owner

        def side(Objective o, TrickRules rules):
            return o.side_mask(rules)

        def holder(int card):
            cdef Ctx c
            c.n = 2
            c.hand[0] = bit(3)
            c.hand[1] = bit(card)
            return owner(&c, card)
        """,
        "import probe; from levata.engine.rules import TrickRules;"
        "from levata.engine.solver import tricks;"
        "print(probe.side(tricks(team=1), TrickRules(4, None, teams=(0, 1, 0, 1))),"
        " probe.holder(5))",
    )
    assert out == "10 1"
