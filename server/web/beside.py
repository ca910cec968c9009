"""The web table beside a referee, as a process of its own (``levata serve --web PORT`` starts
it and stops it): the referee's event loop never writes to an onlooker's connection, so what
the onlookers cost is this process's time, not the referee's.

It takes the live matches from the referee's admin service as any spectator client does
(:mod:`levata.server.web.live`), and the finished records from the file as ``levata web``
does. Its settings come as one JSON line on its standard input (the admin token and the
records' location, a PostgreSQL URL's password included, never on a command line, which
every local user may read); it stops when its standard input ends: when the referee closes
it, or is gone.

    python -m levata.server.web.beside < settings.json    # one line: db, host, port,
                                                          # referee, admin_token, public, tls_ca
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["STOP_S", "Settings", "WebProcess", "main", "referee_address"]

#: Seconds the web table has to stop once told to (its event streams are cut after 2).
STOP_S = 5.0
#: Wildcard addresses, and where this machine reaches a referee listening on them.
_NEAR = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def referee_address(host: str, port: int, tls: bool = False) -> str:
    """Where the web table reaches a referee of this machine listening on ``host:port``: a
    wildcard address on loopback; with TLS by the name its certificate is checked against
    (``localhost`` on loopback, else ``host``).

    >>> referee_address("0.0.0.0", 50051), referee_address("::", 50051)
    ('127.0.0.1:50051', '[::1]:50051')
    >>> referee_address("127.0.0.1", 50051, tls=True), referee_address("ref.example", 1, tls=True)
    ('localhost:50051', 'ref.example:1')
    """
    near = _NEAR.get(host, host)
    if tls and near in ("127.0.0.1", "::1"):
        near = "localhost"
    return f"[{near}]:{port}" if ":" in near else f"{near}:{port}"


@dataclass(frozen=True)
class Settings:
    """What the web table beside a referee needs: the records (``db``: a file or a URL), its
    own address, the referee's (``HOST:PORT``), the admin token, whether finished records are
    public, and for TLS the referee's certificate (a file)."""

    db: str
    host: str
    port: int
    referee: str
    admin_token: str
    public: bool = False
    tls_ca: str | None = None

    def to_line(self) -> bytes:
        """The settings as the child reads them.

        >>> s = Settings("x.db", "127.0.0.1", 0, "127.0.0.1:1", "t")
        >>> Settings.from_line(s.to_line()) == s
        True
        """
        return (json.dumps(self.__dict__) + "\n").encode()

    @classmethod
    def from_line(cls, line: bytes) -> Settings:
        return cls(**json.loads(line))


class WebProcess:
    """The web table's process, seen from the referee: :meth:`start` it, :meth:`stop` it."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int) -> None:
        self.proc, self.port = proc, port
        # what it writes after its port (nothing, as a rule) is read, never left to fill a pipe
        self._drain = asyncio.get_running_loop().create_task(self._read_rest())

    @classmethod
    async def start(cls, settings: Settings, timeout: float = 60.0) -> WebProcess:
        """Start it, hand it ``settings`` and wait for its port; :class:`RuntimeError` if
        it does not start (its own error went to the referee's standard error)."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "levata.server.web.beside",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            # its own session: a Ctrl-C at the terminal reaches the referee alone, which
            # stops the web table in its turn (mid-start, Python would die of it noisily)
            start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(settings.to_line())  # kept open: its end tells the child to stop
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), timeout)
            return cls(proc, int(line))
        except BaseException as exc:  # no port: it failed, or the referee is stopping
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            if not isinstance(exc, TimeoutError | ValueError):
                raise
            await proc.wait()
            raise RuntimeError(f"exit status {proc.returncode}") from None

    async def _read_rest(self) -> None:
        assert self.proc.stdout is not None
        while await self.proc.stdout.read(1 << 16):
            pass

    async def stop(self) -> None:
        """Tell it to stop (its standard input ends) and wait; killed past :data:`STOP_S`."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        self._drain.cancel()


async def run(settings: Settings) -> None:
    """Serve until standard input ends (or SIGTERM, SIGINT); the bound port is the first
    line written to standard output."""
    from levata.server.match.store import Store
    from levata.server.web.app import WebRules, make_app, serve_web
    from levata.server.web.live import RefereeLink

    ca = Path(settings.tls_ca).read_bytes() if settings.tls_ca else None
    link = RefereeLink(settings.referee, settings.admin_token, ca)
    store = Store(settings.db)  # a connection of its own: never waits on the referee's writes
    app = make_app(store, WebRules(settings.admin_token, settings.public), link)
    server, bound = await serve_web(app, settings.host, settings.port)
    sys.stdout.write(f"{bound}\n")
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    gone = loop.create_task(reader.read())  # EOF: the referee closed it, or is gone
    said = loop.create_task(stopping.wait())
    await asyncio.wait([gone, said, server.task], return_when=asyncio.FIRST_COMPLETED)
    gone.cancel()
    said.cancel()
    await server.stop()
    store.close()


def main() -> None:
    line = sys.stdin.buffer.readline()
    try:
        settings = Settings.from_line(line)
    except (ValueError, TypeError) as exc:
        sys.exit(f"levata web beside a referee: unreadable settings on standard input ({exc})")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(settings))


if __name__ == "__main__":
    main()
