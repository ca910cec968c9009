"""levata.server: the referee, match records, tournaments and the ``levata`` command line.

Three layers, each importing only the ones below it (``import-linter`` checks it, see
``[tool.importlinter]`` in ``pyproject.toml``):

- :mod:`levata.server.cli`: the ``levata`` command, one module per command group;
- :mod:`levata.server.tournament`: schedules, entries, runner, standings, reports;
- :mod:`levata.server.match`: the referee of one match, its services and records.

:mod:`levata.engine.options` (``NAME=VALUE`` rule options) serves all three.
"""
