"""One look for every command's ``--help``: the Typer commands' and the argparse ones that
``levata bot`` and ``levata regret`` hand their arguments to.

A page is the usage line, the description (docstring paragraphs reflowed to the terminal,
``\\b`` or indented blocks, such as examples, kept line for line; reStructuredText roles and
backquotes dropped, the quoted words highlighted), then the arguments, options and
subcommands as two columns whose help wraps, never cut: an option reads ``--seed INTEGER``,
a flag alone.

>>> print(reflow("Write the ``--html`` report of :class:`~levata.x.Standings`::\\n\\n"
...              "    levata report ID\\n\\nA hard\\nline break."))
Write the --html report of Standings:
<BLANKLINE>
    levata report ID
<BLANKLINE>
A hard line break.
"""

from __future__ import annotations

import argparse
import inspect
import io
import re
import shutil
import sys
from collections.abc import Iterable
from typing import Any

import typer
from rich.console import Console
from rich.table import Column, Table
from rich.text import Text

__all__ = ["HelpCommand", "HelpGroup", "argparse_help", "passed_on_help", "reflow"]

#: The widest page: longer lines read badly, whatever the terminal.
MAX_WIDTH = 100
_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]*\.)?([^`]+)`")
_CODE = re.compile(r"``([^`]+)``|`([^`]+)`")
CODE_STYLE = "bold cyan"


def _paragraphs(text: str) -> str:
    """Docstring text as prose, single backquotes kept: roles (``:class:`~a.B```) made their
    name, double backquotes single, each paragraph one line (the terminal wraps it), a
    ``\\b`` paragraph (examples) or an indented one kept line for line, a closing ``::`` made
    ``:``."""
    text = _ROLE.sub(r"\1", inspect.cleandoc(text or ""))
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    paragraphs = []
    for para in re.split(r"\n\s*\n", text):
        lines = [ln for ln in para.splitlines() if ln.strip() != "\b"]
        if not lines:
            continue
        if para.lstrip(" ").startswith("\b"):  # click's mark: keep it as written
            paragraphs.append("\n".join("  " + ln.replace("\b", "").rstrip() for ln in lines))
        elif any(ln.startswith("  ") for ln in lines):  # laid out by hand: a table, a list
            paragraphs.append("\n".join(ln.rstrip() for ln in lines))
        else:
            paragraphs.append(" ".join(ln.strip() for ln in lines))
    return re.sub(r"::$", ":", "\n\n".join(paragraphs), flags=re.M)


def reflow(text: str) -> str:
    """Docstring text as the help shows it, without the highlighting."""
    return _CODE.sub(lambda m: m.group(1) or m.group(2), _paragraphs(text))


def _prose(text: str) -> Text:
    """Docstring or help text as the help shows it: each quoted word highlighted."""
    body = _paragraphs(text)
    out = Text()
    last = 0
    for m in _CODE.finditer(body):
        out.append(body[last : m.start()])
        out.append(m.group(1) or m.group(2), style=CODE_STYLE)
        last = m.end()
    out.append(body[last:])
    return out


def _width() -> int:
    return min(MAX_WIDTH, shutil.get_terminal_size((80, 24)).columns)


def _page(
    usage: str, description: str, sections: Iterable[tuple[str, list[tuple[str, Text]]]]
) -> str:
    """The page as text: the usage, the description, then each section's rows."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=_width(),
        force_terminal=sys.stdout.isatty(),
        highlight=False,
        soft_wrap=False,
    )
    console.print(Text(usage, style="bold"))
    if description.strip():
        console.print()
        console.print(_prose(description))
    for title, rows in sections:
        if not rows:
            continue
        console.print()
        console.print(Text(f"{title}:", style="bold"))
        grid = Table.grid(
            Column(no_wrap=True, style="bold", max_width=32),
            Column(overflow="fold", ratio=1),
            padding=(0, 2),
            pad_edge=False,
        )
        for name, help_text in rows:
            grid.add_row("  " + name, help_text)
        console.print(grid)
    return buffer.getvalue()


# -- click (Typer) commands ---------------------------------------------------------------------


def _metavar(param: Any) -> str:
    """What an option takes: ``INTEGER``, ``NUMBER``, ``PATH``, ``a|b``, ``TEXT``."""
    if getattr(param, "metavar", None):
        return str(param.metavar)
    described = getattr(param, "type_descriptor", None)  # Typer's own parameters
    if described is not None:
        if described.is_choice:
            return "|".join(str(c) for c in described.choices or ())
        kind = str(described.annotation)
        kind = "path" if described.is_path else kind
    else:  # a plain click parameter
        kind = getattr(param.type, "name", "text")
    for word, shown in (("int", "INTEGER"), ("float", "NUMBER"), ("path", "PATH")):
        if word in kind.lower():
            return shown
    return "TEXT"


def _range(param: Any) -> str:
    """``0 to 9223372036854775807``: the values a number option takes ('' for any)."""
    lo = getattr(param, "min", getattr(getattr(param, "type", None), "min", None))
    hi = getattr(param, "max", getattr(getattr(param, "type", None), "max", None))
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f"at least {lo}"
    return f"at most {hi}" if lo is None else f"{lo} to {hi}"


def _option_help(param: Any) -> Text:
    """An option's help, then its range, whether it is required, and its default."""
    text = _prose(getattr(param, "help", None) or "")
    notes = [_range(param)] if _range(param) else []
    if param.required:
        notes.append("required")
    default = param.default
    if (
        not param.required
        and not getattr(param, "is_flag", False)
        and default not in (None, False, (), [])
        and getattr(param, "show_default", True) is not False
    ):
        notes.append(f"default: {default}")
    if notes:
        text.append(("  " if text.plain else "") + f"[{'; '.join(notes)}]", style="dim")
    return text


def _rows(command: Any, ctx: Any) -> tuple[list[tuple[str, Text]], list[tuple[str, Text]]]:
    """The arguments' and the options' rows of ``command``."""
    arguments, options = [], []
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            name = str(param.metavar or param.name).upper()
            arguments.append((name, _option_help(param)))
            continue
        names = ", ".join(sorted(param.opts, key=len))
        if param.secondary_opts:
            names += " / " + ", ".join(param.secondary_opts)
        if not param.is_flag:
            names += f" {_metavar(param)}"
        options.append((names, _option_help(param)))
    return arguments, options


def _first_paragraph(text: str | None) -> str:
    return re.split(r"\n\s*\n", inspect.cleandoc(text or ""), maxsplit=1)[0]


def command_page(command: Any, ctx: Any) -> str:
    """The help page of a click command or group."""
    arguments, options = _rows(command, ctx)
    sections = [("Arguments", arguments), ("Options", options)]
    if hasattr(command, "list_commands"):
        subcommands = []
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                subcommands.append((name, _prose(_first_paragraph(sub.help))))
        sections.append(("Commands", subcommands))
    usage = [ctx.command_path, "[OPTIONS]"]
    for param in command.get_params(ctx):
        if param.param_type_name == "argument":
            name = str(param.metavar or param.name).upper()
            usage.append(name if param.required else f"[{name}]")
    if hasattr(command, "list_commands"):
        usage.append("COMMAND [ARGS]...")
    return _page("Usage: " + " ".join(usage), command.help or "", sections)


class HelpCommand(typer.core.TyperCommand):
    """A Typer command with levata's help page."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(command_page(self, ctx))


class HelpGroup(typer.core.TyperGroup):
    """A Typer group (``levata`` itself) with levata's help page, and so every command of
    it: a command registered without a class of its own gets :class:`HelpCommand`'s page,
    so that a command added later reads like the others without anyone remembering to."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(command_page(self, ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if type(command) is typer.core.TyperCommand:  # HelpCommand adds no state of its own
            command.__class__ = HelpCommand
        return command


# -- argparse (levata bot, levata regret) --------------------------------------------------------


def _sentence(text: str) -> str:
    """argparse's help lines as the rest of the help writes them: a capital, a full stop.

    >>> _sentence("referee HOST:PORT"), _sentence("seed (default 0).")
    ('Referee HOST:PORT.', 'Seed (default 0).')
    """
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _argparse_metavar(action: argparse.Action) -> str:
    """What an argparse option takes, in the words of the Typer commands' options."""
    if action.metavar:
        return str(action.metavar)
    if action.choices:
        return "|".join(str(c) for c in action.choices)
    kind = getattr(action.type, "__name__", "")
    return {"int": "INTEGER", "float": "NUMBER", "Path": "PATH"}.get(kind, "TEXT")


def argparse_help(parser: argparse.ArgumentParser, prog: str) -> str:
    """The help page of an argparse parser (``levata bot run``...), in the same look."""
    arguments: list[tuple[str, Text]] = []
    options: list[tuple[str, Text]] = []
    commands: list[tuple[str, Text]] = []
    usage = [prog, "[OPTIONS]"]
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            continue
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                commands.append((choice.dest, _prose(_sentence(choice.help or ""))))
            usage.append("COMMAND [ARGS]...")
            continue
        if isinstance(action, argparse._HelpAction):
            options.append((", ".join(action.option_strings), Text("Show this message and exit.")))
            continue
        help_text = _prose(_sentence(action.help or ""))
        if not action.option_strings:
            name = str(action.metavar or action.dest).upper()
            arguments.append((name, help_text))
            usage.append(name)
            continue
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            names += f" {_argparse_metavar(action)}"
        if action.required:
            help_text.append("  [required]", style="dim")
        options.append((names, help_text))
    description = "\n\n".join(p for p in (parser.description, parser.epilog) if p)
    return _page(
        "Usage: " + " ".join(usage),
        description,
        [("Arguments", arguments), ("Options", options), ("Commands", commands)],
    )


def passed_on_help(parser: argparse.ArgumentParser, args: list[str], prog: str) -> str | None:
    """The help page ``args`` ask of a command that passes them on to ``parser`` (``-h`` or
    ``--help``, after a subcommand or not; no arguments at all), or ``None``."""
    if args and not {"-h", "--help"} & set(args):
        return None
    sub = next((a for a in args if not a.startswith("-")), None)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and sub in action.choices:
            return argparse_help(action.choices[sub], f"{prog} {sub}")
    return argparse_help(parser, prog)
