"""TLS end to end: ``levata serve --tls-cert/--tls-key`` with a certificate made for the
test, bots over ``levata bot run --tls-ca``, a plaintext client refused."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import grpc
import pytest

from levata.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

from live import AdminAuth

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


def make_certificate(folder):
    """A self-signed certificate for localhost and 127.0.0.1, and its key (PEM)."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_match_over_tls(tmp_path, levata_cli):
    cert, key = make_certificate(tmp_path)
    port = free_port()
    db = tmp_path / "tls.db"
    serve = subprocess.Popen(
        [sys.executable, "-m", "levata.server.cli", "serve", "--port", str(port), "--db",
         str(db), "--tls-cert", str(cert), "--tls-key", str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    bots: list[subprocess.Popen[str]] = []
    try:
        token_file = tmp_path / "tls.db.admin-token"
        end = time.monotonic() + 30
        while not (token_file.exists() and token_file.read_text().strip()):
            assert time.monotonic() < end and serve.poll() is None, serve.communicate()
            time.sleep(0.1)
        time.sleep(0.5)
        creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        channel = grpc.intercept_channel(
            grpc.secure_channel(f"localhost:{port}", creds),
            AdminAuth(token_file.read_text().strip()),
        )
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        names = []
        for name in ("tls-a", "tls-b"):
            reg = admin.RegisterBot(admin_pb2.RegisterBotRequest(name=name), timeout=10)
            names.append(reg.name)
            bot = subprocess.Popen(
                [sys.executable, "-m", "levata.server.cli", "bot", "run", "heuristic",
                 "--game", "macao", "--server", f"localhost:{port}", "--tls-ca", str(cert),
                 "--matches", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "LEVATA_TOKEN": reg.token},
            )  # fmt: skip
            bots.append(bot)
        created = admin.CreateMatch(
            admin_pb2.CreateMatchRequest(
                game="macao",
                players=2,
                seat_bots=names,
                seed=3,
                options={"action_cap": "300"},
                policy=arena_pb2.MatchPolicy(move_ms=5000),
            ),
            timeout=10,
        )
        match_id = created.match.match_id
        end = time.monotonic() + 120
        while True:
            info = admin.GetMatch(admin_pb2.GetMatchRequest(match_id=match_id), timeout=10).match
            if info.status in (admin_pb2.MATCH_STATUS_FINISHED, admin_pb2.MATCH_STATUS_ABORTED):
                break
            assert time.monotonic() < end, "the match over TLS did not end"
            time.sleep(0.1)
        assert info.status == admin_pb2.MATCH_STATUS_FINISHED
        assert not info.result.forfeited and sum(info.strikes) == 0
        for b in bots:
            out, err = b.communicate(timeout=30)
            assert b.returncode == 0, err
            assert f"match {match_id} seat" in out
        plain = admin_pb2_grpc.AdminServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
        with pytest.raises(grpc.RpcError) as refused:
            plain.ListMatches(admin_pb2.ListMatchesRequest(), timeout=5)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        channel.close()
        # levata admin over TLS with --tls-ca; without it, one line (no answer in plaintext)
        where = ["--server", f"localhost:{port}", "--admin-token-file", token_file]
        status, out, err = levata_cli("admin", "get", match_id, *where, "--tls-ca", cert, "--json")
        assert status == 0 and json.loads(out)["status"] == "finished", err
        status, _, err = levata_cli("admin", "get", match_id, *where)
        assert status == 1 and err.startswith("error: cannot reach the referee"), err
        _match_over_tls(levata_cli, where, cert)
    finally:
        for p in (*bots, serve):
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=10)


def _match_over_tls(levata_cli, where: list, cert) -> None:
    """``levata match`` on that referee: its admin calls and the bots it starts trust the
    CA; without ``--tls-ca`` it cannot reach the referee, said in one line."""
    play = ["match", "--game", "macao", "--bots", "heuristic,random", "-o", "action_cap=300"]
    status, out, err = levata_cli(*play, *where, "--tls-ca", cert, "--seed", "4")
    assert status == 0 and "refereed over gRPC" in out, (out, err)
    assert "forfeit" not in out
    status, _, err = levata_cli(*play, *where)
    assert status == 1 and err.startswith("error: referee at") and err.count("\n") == 1, err


def test_tls_ca_for_a_match_is_checked_in_one_line(tmp_path, levata_cli):
    """``levata match --tls-ca``: only with ``--server``, and a file that reads as PEM."""
    play = ["match", "--game", "macao", "--bots", "random,random"]
    status, _, err = levata_cli(*play, "--tls-ca", tmp_path / "none.pem")
    assert status == 2 and err.startswith("error: --tls-ca is for --server"), err
    not_pem = tmp_path / "ca.txt"
    not_pem.write_text("hello")
    for ca, says in ((tmp_path / "none.pem", "cannot read"), (not_pem, "is not PEM")):
        status, _, err = levata_cli(*play, "--server", "localhost:1", "--tls-ca", ca)
        assert status == 2 and says in err and err.count("\n") == 1, err
