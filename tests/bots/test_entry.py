"""Bot entries: a kind or a class, and its options read from the constructor."""

from __future__ import annotations

import sys

import pytest

from levata.bots import make_bot
from levata.bots.base import parse_bot
from levata.bots.entry import coerce, option_types, split_entry
from levata.engine import BadConfig, game

TOY = '''
import random


class Toy:
    """A test bot: first legal action, or a random one; its options say what it got."""

    name = "toy"

    def __init__(self, game="", seed=0, *, depth: int = 2, greedy: bool = False,
                 temp: float = 1.0, style: str = "plain", limit: int | None = None):
        self.options = dict(depth=depth, greedy=greedy, temp=temp, style=style, limit=limit)
        self.rng = random.Random(seed)

    def act(self, view, legal):
        return legal[0] if self.options["greedy"] else self.rng.choice(list(legal))


class NotABot:
    def __init__(self, game="", seed=0): ...
'''


@pytest.fixture
def toy_module(tmp_path, monkeypatch):
    (tmp_path / "toybots.py").write_text(TOY)
    monkeypatch.chdir(tmp_path)  # an author's class sits in the current folder
    yield "toybots"
    sys.modules.pop("toybots", None)


def test_split_entry_reads_kinds_classes_and_options():
    assert split_entry("heuristic") == ("heuristic", {})
    assert split_entry(" ismcts:time_ms=100:c=0.7 ") == ("ismcts", {"time_ms": "100", "c": "0.7"})
    assert split_entry("a.b:C") == ("a.b:C", {})
    assert split_entry("a.b:C:x=1") == ("a.b:C", {"x": "1"})
    for bad, why in [
        ("", "names no bot"),
        ("pimc:worlds=1:depth", "each option after ':' is key=value"),
        ("pimc:worlds=1:worlds=2", "given twice"),
        ("a:B:=3", "key=value"),
    ]:
        with pytest.raises(BadConfig, match=why):
            split_entry(bad)


def test_pimc_options_are_typed_from_its_constructor():
    kind, options = parse_bot("pimc:worlds=12:time_ms=40", "whist")
    assert (kind, options) == ("pimc", {"worlds": 12, "time_ms": 40})
    bot = make_bot(kind, "whist", 3, **options)
    assert (bot.worlds, bot.time_ms) == (12, 40)
    assert make_bot("pimc", "whist", worlds=7).worlds == 7  # typed values from Python


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pimc:depth=3", "bot pimc has no option 'depth' (its options: worlds=100, time_ms=500"),
        ("pimc:worlds=many", "bot pimc: worlds=many is not a whole number (its options: wor"),
        ("pimc:time_ms=fast", "time_ms=fast is not a whole number"),
        ("random:x=1", "bot random has no option 'x' (its options: none)"),
        ("genius", "unknown bot 'genius'"),
        ("pimc:worlds", "each option after ':' is key=value, not 'worlds'"),
    ],
)
def test_a_bad_option_names_the_bots_options(text, message):
    with pytest.raises(BadConfig) as info:
        parse_bot(text, "whist")
    assert message in str(info.value)


def test_a_class_of_your_own_with_every_option_type(toy_module):
    kind, options = parse_bot(
        f"{toy_module}:Toy:depth=5:greedy=yes:temp=0.25:style=wild:limit=9", "macao"
    )
    assert kind == "toybots:Toy"
    assert options == {"depth": 5, "greedy": True, "temp": 0.25, "style": "wild", "limit": 9}
    bot = make_bot(kind, "macao", 1, **options)
    assert bot.options == options
    state = game("macao").new_match(players=2, seed=4)
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    assert bot.act(state.view(seat), legal) == legal[0]  # greedy: the option took effect
    assert option_types(type(bot))["limit"] == (int, None)
    for flag, value in [("off", False), ("1", True), ("TRUE", True), ("no", False)]:
        assert parse_bot(f"toybots:Toy:greedy={flag}", "macao")[1] == {"greedy": value}
    with pytest.raises(BadConfig, match="greedy=maybe is not true or false"):
        parse_bot("toybots:Toy:greedy=maybe", "macao")
    with pytest.raises(BadConfig, match="temp=nan is not a number"):
        parse_bot("toybots:Toy:temp=nan", "macao")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("toybots:Missing", "module toybots has no class Missing"),
        ("toybots:NotABot", "NotABot is not a Bot"),
        ("nosuchmodule_xyz:Bot", "cannot import nosuchmodule_xyz"),
        ("toybots:Toy:colour=red", "its options: depth=2, greedy=False, temp=1.0, style=plain"),
    ],
)
def test_a_bad_class_entry_is_one_clear_error(toy_module, text, message):
    with pytest.raises(BadConfig) as info:
        parse_bot(text, "whist")
    assert message in str(info.value)


def test_typed_values_must_fit():
    class Plain:
        def __init__(self, game="", seed=0, *, n=3, share=0.5): ...

        def act(self, view, legal): ...

    assert coerce(Plain, {"n": 4, "share": 1}, "p") == {"n": 4, "share": 1.0}
    with pytest.raises(BadConfig, match=r"n=4\.5 is not a whole number"):
        coerce(Plain, {"n": 4.5}, "p")
    with pytest.raises(BadConfig, match="n=True is not a whole number"):
        coerce(Plain, {"n": True}, "p")


def test_a_game_gives_a_generic_searcher_its_own_settings_and_an_entry_overrides_them():
    """Huzur's spec names ``ismcts`` with ``horizon=0:guard=2`` (rollouts to the end, a
    stricter guard): the kind gets them there and nowhere else, an entry's own value wins,
    and the class is the same one."""
    from levata.bots.base import bot_class, bot_defaults, bot_path

    assert bot_defaults("ismcts", "huzur") == {"horizon": "0", "guard": "2"}
    bot = make_bot("ismcts", "huzur", 1)
    assert (bot.horizon, bot.guard) == (0, 2.0)
    assert make_bot("ismcts", "huzur", 1, horizon="12").horizon == 12
    plain = make_bot("ismcts", "macao", 1)  # the class's defaults elsewhere
    assert (plain.horizon, plain.guard) == (30, 1.0)
    assert bot_path("ismcts", "huzur") == bot_path("ismcts", "macao")
    assert bot_class("ismcts", "huzur") is bot_class("ismcts", "macao")
    assert bot_defaults("random", "huzur") == {} and bot_defaults("heuristic", "huzur") == {}
