"""Reaching a running referee from the command line (``levata admin``): the ``--server``,
TLS and admin-token options, the channel, and a failed call said in one line.

The admin token comes from ``$LEVATA_ADMIN_TOKEN`` or an owner-only ``--admin-token-file``,
never from the command line (``/proc/PID/cmdline`` is readable by every local user).

A refused call is one ``error:`` line: status 2 when the request was at fault (a bad
argument, an unknown match, a name taken, a wrong admin token), 1 when the referee could not
be reached or failed at run time.

>>> check_server("localhost:50051"), check_server("[::1]:7")
('localhost:50051', '[::1]:7')
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import typer

from levata.engine import BadConfig
from levata.server.cli.common import EXIT_RUNTIME, EXIT_USAGE, admin_token_of, fail
from levata.server.match.auth import admin_metadata, client_admin_token

__all__ = [
    "SERVER_OPTION",
    "TLS_CA_OPTION",
    "Remote",
    "check_ca",
    "check_server",
    "connect",
]

SERVER_OPTION = typer.Option(
    "--server", metavar="HOST:PORT", help="The referee (levata serve's --host and --port)."
)
TLS_CA_OPTION = typer.Option(
    "--tls-ca",
    help="Connect with TLS, trusting this CA certificate (PEM); plaintext without it.",
)
TOKEN_FILE_HELP = (
    "Owner-only file holding the referee's admin token (default: $LEVATA_ADMIN_TOKEN)."
)

#: Seconds a call may take before the referee counts as not answering.
CALL_TIMEOUT_S = 10.0
#: What the request got wrong: status 2, like any bad input; anything else is status 1.
_CALLER_FAULTS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.OUT_OF_RANGE,
}
_HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


def check_server(server: str) -> str:
    """``server`` if it reads ``HOST:PORT``; one line and status 2 otherwise."""
    m = _HOST_PORT.match(server)
    if m is None or not 0 < int(m.group(2)) < 65536:
        raise fail(f"--server {server!r}: expected HOST:PORT (e.g. localhost:50051)")
    return server


def check_ca(path: Path) -> bytes:
    """The CA certificate at ``path`` (PEM); one line and status 2 if it cannot be read or
    is not PEM."""
    try:
        ca = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read the TLS CA {path}: {exc.strerror}") from None
    if b"-----BEGIN " not in ca:
        raise fail(f"the TLS CA {path} is not PEM (no -----BEGIN line)")
    return ca


class Remote:
    """The calls one command makes to one referee: each with the admin metadata, a timeout,
    and its failure said in one line (:meth:`call`)."""

    def __init__(self, channel: grpc.Channel, server: str, token: str | None) -> None:
        self.channel = channel
        self.server = server
        self.metadata = admin_metadata(token) if token else ()

    def call(self, method: Any, request: Any, timeout: float | None = CALL_TIMEOUT_S) -> Any:
        """``method(request)`` with the admin token; a refusal is one ``error:`` line."""
        try:
            return method(request, metadata=self.metadata, timeout=timeout)
        except grpc.RpcError as exc:
            raise self.failed(exc) from None

    def failed(self, exc: grpc.RpcError) -> typer.Exit:
        """A failed call as one line and its exit status (see the module's docstring)."""
        code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
        details = (exc.details() if hasattr(exc, "details") else "") or code.name
        if code == grpc.StatusCode.UNAVAILABLE:
            return fail(f"cannot reach the referee at {self.server}: {details}", EXIT_RUNTIME)
        if code == grpc.StatusCode.DEADLINE_EXCEEDED and details == "Deadline Exceeded":
            return fail(f"the referee at {self.server} did not answer in time", EXIT_RUNTIME)
        if code == grpc.StatusCode.UNAUTHENTICATED:
            details += " (is $LEVATA_ADMIN_TOKEN or --admin-token-file that referee's?)"
        status = EXIT_USAGE if code in _CALLER_FAULTS else EXIT_RUNTIME
        return fail(f"the referee at {self.server} refused: {details}", status)


@contextmanager
def connect(
    server: str,
    tls_ca: Path | None,
    token_file: Path | None,
    token_needed: bool = True,
) -> Iterator[Remote]:
    """A channel to ``server`` (TLS when ``tls_ca`` is given) and the admin token to send;
    every problem with them is one line, status 2, before anything is sent."""
    check_server(server)
    token: str | None
    if token_needed:
        token = admin_token_of(server, token_file)
    else:  # only what needs no token (health's first look): a file given must still read
        try:
            token = client_admin_token(token_file)
        except BadConfig as exc:
            raise fail(str(exc)) from None
    if tls_ca is not None:
        channel = grpc.secure_channel(server, grpc.ssl_channel_credentials(check_ca(tls_ca)))
    else:
        channel = grpc.insecure_channel(server)
    with channel:
        yield Remote(channel, server, token)
