r"""SQL scripts as their statements, one by one: a migration runs them inside its own
transaction (``executescript`` would commit it), and the PostgreSQL adapter sends them one
at a time.

>>> script_statements("CREATE TABLE a (x INTEGER);\n\nCREATE TABLE b (y TEXT);\n")
['CREATE TABLE a (x INTEGER);', 'CREATE TABLE b (y TEXT);']
"""

from __future__ import annotations

import sqlite3

__all__ = ["script_statements"]


def script_statements(script: str) -> list[str]:
    """The statements of ``script``, in order, stripped."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
