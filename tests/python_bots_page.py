"""The Python bot page (``docs/python-bots.md``) as its reader uses it: each of its files (a
```` ```python ```` block whose first line is ``# NAME.py``) written into a folder."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python-bots.md"


def page_files() -> dict[str, str]:
    """``{"mybot.py": source, ...}``: the files the page tells its reader to save."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    found = {}
    for block in blocks:
        first = block.splitlines()[0]
        name = re.match(r"# (\w+\.py)\b", first)
        if name:
            found[name.group(1)] = block
    return found


def write_page_files(folder: Path) -> list[str]:
    """Write the page's files into ``folder``; their module names."""
    names = []
    for name, source in page_files().items():
        (folder / name).write_text(source, encoding="utf-8")
        names.append(name.removesuffix(".py"))
    return names
