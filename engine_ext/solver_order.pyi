"""Type stub of the compiled ``levata.engine.solver_order`` (see ``solver_order.pyx``).

Move ordering is C for the other solver kernels (``solver_order.pxd``); Python sees only
the tunable scores, for ``benchmarks/solver_tune.py``.
"""

def _order_weights(new: dict[str, int] | None = None) -> dict[str, int]: ...
