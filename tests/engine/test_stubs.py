"""The compiled kernels ship what a user of the package needs beside them.

``py.typed`` ships, so type checkers read the ``.pyi`` stub of each compiled module instead
of the module: a stub that misses a name, or names a parameter wrongly, misleads every user.
Each stub is compared with the module as Python sees it: the public names, the members of each
class, and (where Cython exposes one) every signature: parameter names, kinds and defaults.
The kernels that others build on also ship their ``.pxd``, so later kernels can ``cimport``
them.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import inspect
from pathlib import Path

import pytest

import levata.engine
from levata.engine.include import get_include

PACKAGE = Path(levata.engine.__file__).parent
KERNELS = sorted(
    path.name.split(".")[0]
    for path in PACKAGE.iterdir()
    if path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
)

#: the kernels other kernels cimport (the sampler is only called from Python)
CIMPORTABLE = [
    "cardmask",
    "rules",
    "solver",
    "solver_bounds",
    "solver_order",
    "solver_table",
    "playouts",
    "playout_base",
]


def test_every_kernel_is_found():
    assert {"sampler", *CIMPORTABLE} <= set(KERNELS)
    assert not (PACKAGE / "tricks.pyx").exists()


def test_py_typed_ships():
    assert (PACKAGE / "py.typed").is_file()


@pytest.mark.parametrize("name", KERNELS)
def test_kernel_ships_its_stub(name):
    assert (PACKAGE / f"{name}.pyi").is_file()


@pytest.mark.parametrize("name", CIMPORTABLE)
def test_kernel_ships_its_declarations(name):
    assert (PACKAGE / f"{name}.pxd").is_file()
    assert (Path(get_include()) / "levata" / "engine" / f"{name}.pxd").is_file()


def _stub(name: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{name}.pyi").read_text())


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names a stub body defines (imports excluded), public ones only."""
    out: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node
    return {k: v for k, v in out.items() if not k.startswith("_") or k == "__init__"}


def _public(module) -> set[str]:
    if hasattr(module, "__all__"):
        return set(module.__all__)
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and getattr(value, "__module__", module.__name__) == module.__name__
        and not inspect.ismodule(value)
    }


def _stub_params(fn: ast.FunctionDef) -> list[tuple[str, str, object]]:
    """(name, kind, default) per parameter, as inspect would give them."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + [
        ast.literal_eval(d) for d in a.defaults
    ]
    out = [(p.arg, "POSITIONAL_OR_KEYWORD", d) for p, d in zip(positional, defaults, strict=True)]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", inspect.Parameter.empty))
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        default = inspect.Parameter.empty if d is None else ast.literal_eval(d)
        out.append((p.arg, "KEYWORD_ONLY", default))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", inspect.Parameter.empty))
    return out


GENERIC = [
    ("args", "VAR_POSITIONAL", inspect.Parameter.empty),
    ("kwargs", "VAR_KEYWORD", inspect.Parameter.empty),
]


def _check_signature(obj, fn: ast.FunctionDef, where: str) -> None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return
    got = [(p.name, p.kind.name, p.default) for p in sig.parameters.values()]
    if got == [("self", "POSITIONAL_ONLY", inspect.Parameter.empty), *GENERIC]:
        return  # a slot wrapper (a cdef class's __init__): nothing to compare against
    assert got == _stub_params(fn), f"{where}: the stub's signature differs from the module's"


@pytest.mark.parametrize("name", KERNELS)
def test_stub_names_what_the_module_defines(name):
    module = importlib.import_module(f"levata.engine.{name}")
    stub = _defined(_stub(name).body)
    assert set(stub) == _public(module), f"{name}.pyi and the module name different things"
    for attr, node in stub.items():
        value = getattr(module, attr)
        if isinstance(node, ast.FunctionDef):
            _check_signature(value, node, f"{name}.{attr}")
        elif isinstance(node, ast.ClassDef):
            members = _defined(node.body)
            runtime = {k for k in vars(value) if not k.startswith("_")}
            assert set(members) - {"__init__"} == runtime, f"members of {name}.{attr}"
            for member, fn in members.items():
                if isinstance(fn, ast.FunctionDef) and not _is_property(fn):
                    _check_signature(getattr(value, member), fn, f"{name}.{attr}.{member}")


def _is_property(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)


@pytest.mark.parametrize("name", KERNELS)
def test_stub_all_matches_the_module(name):
    module = importlib.import_module(f"levata.engine.{name}")
    stub_all = [
        node.value
        for node in _stub(name).body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    ]
    if hasattr(module, "__all__"):
        assert stub_all and ast.literal_eval(stub_all[0]) == list(module.__all__)
    else:
        assert not stub_all
