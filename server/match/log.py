"""What the referee tells its operator: structured log lines, one logger per area.

* ``levata.referee.connections``: a bot connected (its name, its peer, resumed or not) or
  its stream ended (and why). Never a token.
* ``levata.referee.matches``: a match created, started (or resumed after a restart), ended
  (its result and reason) or aborted.
* ``levata.referee.faults``: strikes, forfeits, and matches suspended while the records
  cannot be written (and going on again).

Each line is an event name and its fields (:func:`note`), shown as a sentence (``text``) or
as one JSON object per line (``json``: ``ts``, ``level``, ``logger``, ``event``, ``msg`` and
the fields). ``levata serve --log-level LEVEL --log-format text|json`` sets them up
(:func:`configure`); elsewhere (``levata match``, a tournament) the lines go where Python's
logging sends them unconfigured: warnings (a suspension) to standard error, the rest nowhere.

None is written per decision (a connection, a match's start and end, a strike), and a
disabled level costs one :meth:`logging.Logger.isEnabledFor` check: no record is made,
nothing is formatted.

>>> import io
>>> stream = io.StringIO()
>>> handler = logging.StreamHandler(stream)
>>> handler.setFormatter(JsonFormatter())
>>> matches.addHandler(handler); matches.setLevel(logging.INFO)
>>> note(matches, logging.INFO, "match_created", "match %s created", "m1", game="whist")
>>> doc = json.loads(stream.getvalue())
>>> doc["event"], doc["msg"], doc["game"], doc["logger"]
('match_created', 'match m1 created', 'whist', 'levata.referee.matches')
>>> matches.removeHandler(handler); matches.setLevel(logging.NOTSET)
"""

from __future__ import annotations

import enum
import json
import logging
import sys
import time
from typing import Any

__all__ = [
    "JsonFormatter",
    "LogFormat",
    "LogLevel",
    "TextFormatter",
    "configure",
    "connections",
    "faults",
    "matches",
    "note",
]

connections = logging.getLogger("levata.referee.connections")
matches = logging.getLogger("levata.referee.matches")
faults = logging.getLogger("levata.referee.faults")


class LogLevel(enum.StrEnum):
    """``levata serve --log-level``."""

    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


class LogFormat(enum.StrEnum):
    """``levata serve --log-format``."""

    text = "text"
    json = "json"


#: The record attributes logging sets itself: what is left is a caller's ``extra``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


def note(
    logger: logging.Logger, level: int, event: str, msg: str, *args: Any, **fields: Any
) -> None:
    """Log ``msg % args`` as ``event`` with ``fields``, if ``logger`` is enabled for ``level``
    (a disabled one costs this check and nothing else)."""
    if logger.isEnabledFor(level):
        logger.log(level, msg, *args, extra={"event": event, "fields": fields})


def _utc(created: float) -> str:
    """A record's time, ISO 8601 in UTC to the millisecond.

    >>> _utc(0.25)
    '1970-01-01T00:00:00.250Z'
    """
    millis = int(created % 1 * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{millis:03d}Z"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, event, message, then the fields. A
    record logged without :func:`note` (a library's, a traceback) still becomes one line."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": _utc(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": getattr(record, "event", None) or "log",
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            doc.update((k, v) for k, v in fields.items() if k not in doc)
        for key, value in vars(record).items():  # a plain extra={...} of other code
            if key not in _STANDARD and key not in ("event", "fields") and key not in doc:
                doc[key] = value
        if record.exc_info:
            doc["exception"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str, separators=(",", ":"))


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER: message``, for a person reading the terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return _utc(record.created)


def configure(level: str = "info", fmt: str = "text", stream: Any = None) -> None:
    """Send levata's log lines to ``stream`` (standard error) at ``level`` and above, as
    ``fmt``; other libraries' lines (gRPC's) from warnings up."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("levata").setLevel(level.upper())
