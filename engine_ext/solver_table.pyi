"""Type stub of the compiled ``levata.engine.solver_table`` (see ``solver_table.pyx``).

The solver's tables are C functions for the other solver kernels (``solver_table.pxd``):
nothing here is called from Python.
"""
