"""The committed protobuf stubs match proto/, layers point one way, doctests pass."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_stubs_match_proto_files(tmp_path):
    """Regenerate the stubs from proto/ and compare the descriptors with the committed ones."""
    protos = sorted((ROOT / "proto").rglob("*.proto"))
    assert protos
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{ROOT / 'proto'}",
            f"--python_out={tmp_path}",
            *map(str, protos),
        ],
        check=True,
    )
    for proto in protos:
        rel = proto.relative_to(ROOT / "proto").with_suffix("")
        fresh_file = tmp_path / f"{rel}_pb2.py"
        committed = importlib.import_module(".".join(rel.parts) + "_pb2")
        ns: dict = {}
        source = fresh_file.read_text()
        # Only the serialized descriptor matters; generator versions differ in boilerplate.
        start = source.index("AddSerializedFile(") + len("AddSerializedFile(")
        fresh_bytes = ast.literal_eval(source[start : source.index(")\n", start)])
        assert committed.DESCRIPTOR.serialized_pb == fresh_bytes, (
            f"{rel}_pb2.py is stale: regenerate it (see README)"
        )
        del ns


def _buf() -> str:
    buf = Path(sys.executable).parent / "buf"
    if not buf.exists():
        pytest.skip("buf is not installed (pip install buf-bin)")
    return str(buf)


def test_buf_lint_passes():
    """STANDARD and COMMENTS rules: every message and field is commented."""
    run = subprocess.run([_buf(), "lint"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_protocol_has_no_breaking_change_against_the_landed_baseline():
    """proto/v1-baseline.binpb is the last landed protocol; v1 may only grow."""
    run = subprocess.run(
        [_buf(), "breaking", "--against", "proto/v1-baseline.binpb"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_layers_point_one_way():
    """The engine imports neither server, bots nor wire; bots never import the server; the wire
    codec neither; the referee not the bots; the server's layers and no import cycles: the
    contracts of ``[tool.importlinter]`` in pyproject.toml."""
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def _modules():
    import levata.bots
    import levata.engine
    import levata.envs
    import levata.server
    import levata.wire

    for pkg in (levata.engine, levata.bots, levata.server, levata.wire, levata.envs):
        yield pkg.__name__
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if not info.name.endswith("__main__"):
                yield info.name


@pytest.mark.parametrize("name", sorted(set(_modules())))
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_python_bot_page_s_examples(tmp_path, monkeypatch):
    """docs/python-bots.md: its files saved as its reader would, then every ``>>>`` line of
    the page run as a doctest against them."""
    from python_bots_page import PAGE, write_page_files

    modules = write_page_files(tmp_path)
    assert {"mybot", "lowbot"} <= set(modules)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = doctest.testfile(
            str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS, encoding="utf-8"
        )
    finally:
        for name in modules:
            sys.modules.pop(name, None)
    assert result.failed == 0 and result.attempted > 20
