"""Tournaments over the referee: what one is, its schedule, its entries, how it is played and
how it is reported.

``spec`` (what a tournament is), ``schedule`` (who plays which deal in which seat),
``store`` (its SQLite record), ``entries`` (the bots that enter and their processes),
``process_limits``, ``sandbox``, ``syscall_filter``, ``memory_cgroup``, ``manifest_env`` and
``entry_log`` (how a submitted bot is confined and logged), ``host`` (one process
holding an entry's seats), ``runner`` (plays it over :mod:`levata.server.match`),
``standings`` (statistics) and ``report`` (tables and the HTML page).

It imports :mod:`levata.server.match`, never :mod:`levata.server.cli`.
"""
