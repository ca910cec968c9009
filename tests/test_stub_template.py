"""`buf generate` with the repository's buf.gen.yaml makes client stubs for other languages
from proto/, and the Python ones describe exactly the committed protocol."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

from google.protobuf import descriptor_pb2

from levata.v1 import admin_pb2, arena_pb2, cards_pb2, game_pb2

ROOT = Path(__file__).resolve().parent.parent
BUF = shutil.which("buf", path=str(ROOT / ".venv" / "bin")) or shutil.which("buf")


def test_buf_generate_makes_stubs_for_every_language_of_the_template(tmp_path):
    missing = [
        t for t in ("protoc", "grpc_cpp_plugin", "grpc_python_plugin") if not shutil.which(t)
    ]
    assert not missing, (
        f"missing {missing}: apt-get install -y protobuf-compiler protobuf-compiler-grpc"
        " (CI's .ci/run does)"
    )
    assert BUF, "no buf: pip install buf-bin (a test dependency)"
    run = subprocess.run(
        [BUF, "generate", "-o", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    gen = tmp_path / "gen"
    expected = {
        "cpp/levata/v1/arena.pb.h",
        "cpp/levata/v1/arena.grpc.pb.h",
        "python/levata/v1/arena_pb2.py",
        "python/levata/v1/arena_pb2.pyi",
        "python/levata/v1/arena_pb2_grpc.py",
        "java/levata/v1/Arena.java",
        "csharp/Arena.cs",
        "php/Levata/V1/ArenaServiceClient.php",
        "ruby/levata/v1/arena_services_pb.rb",
    }
    made = {str(p.relative_to(gen)) for p in gen.rglob("*") if p.is_file()}
    assert expected <= made, sorted(expected - made)
    assert "class ArenaService" in (gen / "cpp/levata/v1/arena.grpc.pb.h").read_text()
    assert "class ArenaServiceStub" in (gen / "python/levata/v1/arena_pb2_grpc.py").read_text()
    for module in (admin_pb2, arena_pb2, cards_pb2, game_pb2):
        name = module.__name__.rsplit(".", 1)[1]
        source = (gen / "python/levata/v1" / f"{name}.py").read_text()
        (blob,) = re.findall(r"AddSerializedFile\((b'.*?')\)", source)
        made_fd = descriptor_pb2.FileDescriptorProto.FromString(ast.literal_eval(blob))
        ours = descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)
        assert _without_json_names(made_fd) == _without_json_names(ours), name


def _without_json_names(fd: descriptor_pb2.FileDescriptorProto) -> bytes:
    """buf's image records each field's JSON name; protoc's own run leaves it implied."""

    def strip(messages):
        for m in messages:
            for f in m.field:
                f.ClearField("json_name")
            strip(m.nested_type)

    copy = descriptor_pb2.FileDescriptorProto()
    copy.CopyFrom(fd)
    strip(copy.message_type)
    return copy.SerializeToString(deterministic=True)
