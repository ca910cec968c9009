"""Type stub of the compiled ``levata.engine.solver_bounds`` (see ``solver_bounds.pyx``).

The solver's bounds are C functions for the other solver kernels (``solver_bounds.pxd``):
nothing here is called from Python.
"""
