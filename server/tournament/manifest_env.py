"""Which environment variables a manifest's ``env`` may set: plain names of the entry's own.

A variable is read by every program the entry starts, and some are instructions to the
dynamic loader (``LD_PRELOAD`` runs a library inside each program), to an interpreter
(``PYTHONSTARTUP``, ``NODE_OPTIONS``, ``PERL5OPT``, ``BASH_ENV`` run code) or to the C library
(``GCONV_PATH``, ``GLIBC_TUNABLES`` load modules, change allocators), and some are ours
(``PATH``, ``HOME``, ``LEVATA_TOKEN``). The sandbox runs everything as the entry's own,
unprivileged user, so such a variable could only hurt the entry itself; still, what the
referee starts inside the sandbox before the entry's program (the limits wrapper, the json
bridge) must run as written, so these are refused, not merely ignored: the manifest is wrong.

The rule is an allow-list of shapes plus a deny-list of prefixes: a name is
``[A-Za-z_][A-Za-z0-9_]*`` (at most :data:`MAX_NAME` characters, :data:`MAX_VARS` of them),
a value at most :data:`MAX_VALUE` characters without NUL, and no name is, or starts with,
a reserved one (:data:`RESERVED`, :data:`RESERVED_PREFIXES`; compared case-insensitively, as
some programs read ``http_proxy`` and ``HTTP_PROXY`` alike).

>>> check_env("b", {"MYBOT_LEVEL": "3", "depth": "4"})
{'MYBOT_LEVEL': '3', 'depth': '4'}
>>> check_env("b", {"LD_PRELOAD": "pwn.so"})
Traceback (most recent call last):
levata.engine.contract.BadConfig: manifest b: env may not set LD_PRELOAD (LD_*: read by the ...)
>>> check_env("b", {"A-B": "1"})
Traceback (most recent call last):
levata.engine.contract.BadConfig: manifest b: env name 'A-B' is not a plain name ...
"""

from __future__ import annotations

import re
from typing import Any

from levata.engine import BadConfig

__all__ = ["MAX_NAME", "MAX_VALUE", "MAX_VARS", "RESERVED", "RESERVED_PREFIXES", "check_env"]

MAX_NAME = 64
MAX_VALUE = 4096
MAX_VARS = 64
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Prefixes no name may start with, and who reads them.
RESERVED_PREFIXES: dict[str, str] = {
    "LD_": "read by the dynamic loader",
    "DYLD_": "read by the dynamic loader",
    "LEVATA_": "set by the tournament",
    "PYTHON": "read by Python",
    "PERL": "read by Perl",
    "RUBY": "read by Ruby",
    "NODE_": "read by Node.js",
    "NPM_": "read by npm",
    "JAVA_": "read by Java",
    "JDK_": "read by Java",
    "_JAVA_": "read by Java",
    "DOTNET_": "read by .NET",
    "COMPlus_": "read by .NET",
    "CORECLR_": "read by .NET",
    "GCONV_": "read by the C library",
    "GLIBC_": "read by the C library",
    "MALLOC_": "read by the C library",
    "LC_": "locale, set by the tournament",
    "GIO_": "loads modules",
    "GTK_": "loads modules",
    "QT_": "loads modules",
    "GRPC_": "read by gRPC, which the bridge uses",
    "SSL_": "read by OpenSSL",
    "OPENSSL_": "read by OpenSSL",
    "BASH_FUNC_": "functions imported by bash",
}
#: Whole names that are refused (beyond the prefixes).
RESERVED: dict[str, str] = {
    **dict.fromkeys(("PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE"), "set by the tournament"),
    **dict.fromkeys(
        ("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH", "GLOBIGNORE"),
        "read by shells",
    ),
    **dict.fromkeys(
        (
            "LOCPATH",
            "NLSPATH",
            "HOSTALIASES",
            "RES_OPTIONS",
            "LOCALDOMAIN",
            "TZDIR",
            "TZ",
            "RESOLV_HOST_CONF",
            "MALLOC_CHECK_",
            "MALLOC_TRACE",
            "MEMUSAGE_OUTPUT",
            "SEGFAULT_OUTPUT_NAME",
        ),
        "read by the C library",
    ),
    **dict.fromkeys(
        ("RUSTFLAGS", "GODEBUG", "GOGC", "JAVA_TOOL_OPTIONS", "CLASSPATH", "NODE_PATH"),
        "changes how a runtime loads code",
    ),
    **dict.fromkeys(("OPENSSL_CONF", "SSLKEYLOGFILE"), "read by OpenSSL"),
}


def _reserved(name: str) -> str | None:
    """Why ``name`` is reserved (a prefix or a whole name), or ``None``.

    >>> _reserved("ld_library_path"), _reserved("PYTHONPATH"), _reserved("MY_PATH")
    ('LD_*: read by the dynamic loader', 'PYTHON*: read by Python', None)
    """
    upper = name.upper()
    for prefix, why in RESERVED_PREFIXES.items():
        if upper.startswith(prefix.upper()):
            return f"{prefix}*: {why}"
    return RESERVED.get(upper)


def check_env(manifest: str, env: Any) -> dict[str, str]:
    """Manifest ``manifest``'s ``env`` table, checked; :class:`BadConfig` (one line naming
    the key) when it may not be given to the entry."""
    if not isinstance(env, dict):
        raise BadConfig(f"manifest {manifest}: env must be a table of strings")
    if len(env) > MAX_VARS:
        raise BadConfig(f"manifest {manifest}: env has {len(env)} variables, at most {MAX_VARS}")
    for name, value in env.items():
        if len(name) > MAX_NAME or not _PLAIN.fullmatch(name):
            raise BadConfig(
                f"manifest {manifest}: env name {name[:80]!r} is not a plain name"
                f" ([A-Za-z_][A-Za-z0-9_]*, at most {MAX_NAME} characters)"
            )
        why = _reserved(name)
        if why:
            raise BadConfig(f"manifest {manifest}: env may not set {name} ({why})")
        if not isinstance(value, str):
            raise BadConfig(f"manifest {manifest}: env {name} must be a string")
        if "\0" in value or len(value) > MAX_VALUE:
            raise BadConfig(
                f"manifest {manifest}: env {name} must be at most {MAX_VALUE} characters"
                " and hold no NUL"
            )
    return dict(env)
