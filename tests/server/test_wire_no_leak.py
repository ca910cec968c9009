"""Wire-level no-leak: every message a connection receives names only cards its seat may know.

Each seat is a real SDK client on its own gRPC stream; every message it receives is recorded
as it arrives. Afterwards the match is replayed offline from the record, and the table at
each event and after each action gives what each seat was entitled to know at that moment.
"""

from __future__ import annotations

import asyncio

import pytest

from levata.bots import make_bot
from levata.bots.sdk import BotClient
from levata.engine import Action, all_games, game
from levata.engine.seeds import derive
from levata.v1 import arena_pb2, game_pb2
from levata.wire.codec import card_from_pb

from live import LiveServer

GAMES = [s.name for s in all_games()]


def entitlement_timeline(server: LiveServer, match_id: str):
    """Per event seq and per state version: the cards each seat may know by then."""
    row = server.store.match(match_id)
    state = game(row["game"]).new_match(
        players=row["players"], options=row["options"], seed=row["seed"]
    )
    seats = range(state.players)
    known: list[set] = [set() for _ in seats]

    def see() -> list[frozenset]:
        for zone in state.table():
            for s in seats:
                if zone.visible_to(s):
                    known[s].update(zone.cards)
        return [frozenset(k) for k in known]

    by_seq: dict[int, list[frozenset]] = {}
    snap = see()
    for ev in state.events():
        by_seq[ev.seq] = snap
    state.watch(lambda st, ev: by_seq.__setitem__(ev.seq, see()))
    by_version = {0: see()}
    for k, a in enumerate(server.store.actions(match_id)):
        state.advance_clock(a["clock_ms"])
        if a["seat"] is not None:
            state.apply(a["seat"], Action.parse(a["action"]))
        by_version[k + 1] = see()
    state.watch(None)
    audiences = {e["seq"]: e["audience"] for e in server.store.events(match_id)}
    return by_seq, by_version, audiences


def events_in(msg: arena_pb2.PlayResponse) -> list:
    """The match events a message carries: a MatchEvent's one, or a batch inside a request
    or a match end (``Hello.batch_events``)."""
    kind = msg.WhichOneof("message")
    if kind == "event":
        return [msg.event.event]
    if kind == "request":
        return list(msg.request.events)
    if kind == "match_end":
        return list(msg.match_end.events)
    return []


def cards_in(msg: arena_pb2.PlayResponse) -> list:
    """The cards a message names outside its events (those are checked one by one)."""
    kind = msg.WhichOneof("message")
    if kind == "request":
        v = msg.request.view
        cards = list(v.hand) + [c for z in v.zones for c in z.cards]
        cards += [c for e in v.history for c in e.cards]
        cards += [la.action.card for la in msg.request.legal if la.action.HasField("card")]
        return [card_from_pb(c) for c in cards]
    if kind == "applied" and msg.applied.action.HasField("card"):
        return [card_from_pb(msg.applied.action.card)]
    return []


@pytest.mark.parametrize("name", GAMES)
def test_no_card_leaks_on_the_wire(tmp_path, name):
    check_wire(tmp_path, name)


def test_the_check_catches_a_leaking_referee(tmp_path, monkeypatch):
    """Make the referee show every card in each request's view: the check must fail."""
    import levata.server.match.messages as messages
    from levata.engine import french_deck
    from levata.v1 import cards_pb2
    from levata.wire.codec import card_to_pb

    honest = messages.view_bytes
    peek = game_pb2.SeatView(
        zones=[cards_pb2.CardZone(name="peek", cards=[card_to_pb(c) for c in french_deck()])]
    ).SerializeToString()

    def leaky(view):
        return honest(view) + peek  # one more zone: encodings of messages concatenate

    monkeypatch.setattr(messages, "view_bytes", leaky)
    with pytest.raises(AssertionError, match="was sent"):
        check_wire(tmp_path, "whist")


def test_the_check_catches_a_batch_with_another_seats_event(tmp_path, monkeypatch):
    """Make batched events include every seat's private ones: the check must fail."""
    import levata.server.match.referee as referee

    def leaky(self, i):
        seat = self.seats[i]
        evs = self.state.events(seat.sent_seq + 1)  # every seat's, private ones included
        seat.sent_seq, seat.unsent_since = self.state.event_count() - 1, None
        return evs

    monkeypatch.setattr(referee.Referee, "_take_events", leaky)
    with pytest.raises(AssertionError, match="private event"):
        check_wire(tmp_path, "whist")


def check_wire(tmp_path, name: str) -> None:
    """Every seat but the last asks for batched events, the last for a stream of them."""
    server = LiveServer(tmp_path / "wire.db")
    try:
        spec = game(name)
        players = 3 if 3 in spec.players else spec.players[0]  # 66: two seats only
        received: list[list[arena_pb2.PlayResponse]] = [[] for _ in range(players)]
        clients = []
        for seat in range(players):
            token = server.add_bot(f"w{seat}")
            kind = "heuristic" if seat == 0 else "random"
            clients.append(
                BotClient(
                    lambda g, s, m, kind=kind: make_bot(kind, g, seed=derive(7, m, s)),
                    server.address,
                    token,
                    max_matches=1,
                    on_message=received[seat].append,
                    batch_events=seat < players - 1,
                )
            )
        futures = [asyncio.run_coroutine_threadsafe(c.run(), server.loop) for c in clients]
        match_id = server.create(name, [f"w{s}" for s in range(players)], seed=21)
        info = server.wait(match_id)
        for f in futures:
            f.result(timeout=30)
        assert not info.result.forfeited
        by_seq, by_version, audiences = entitlement_timeline(server, match_id)
        checked = 0
        for seat, messages in enumerate(received):
            assert any(m.WhichOneof("message") == "match_end" for m in messages)
            got = []
            for msg in messages:
                kind = msg.WhichOneof("message")
                for ev in events_in(msg):
                    aud = audiences[ev.seq]
                    assert aud is None or seat in aud, f"seat {seat} got private event {ev.seq}"
                    known = by_seq[ev.seq][seat]
                    leaked = [str(c) for c in map(card_from_pb, ev.cards) if c not in known]
                    assert not leaked, f"seat {seat} was sent {leaked} in event {ev.seq} of {name}"
                    got.append(ev.seq)
                if kind == "event":
                    allowed = frozenset()  # its cards were checked above
                elif kind == "request":
                    allowed = by_version[msg.request.state_version][seat]
                elif kind == "applied":
                    allowed = by_version[msg.applied.state_version][seat]
                else:
                    allowed = frozenset()
                leaked = [str(c) for c in cards_in(msg) if c not in allowed]
                assert not leaked, f"seat {seat} was sent {leaked} in a {kind} of {name}"
                checked += 1
            mine = [q for q, aud in sorted(audiences.items()) if aud is None or seat in aud]
            assert got == mine, f"seat {seat} did not get each of its events once, in order"
        assert sum(
            len(m.request.events) for m in received[0] if m.WhichOneof("message") == "request"
        ), "the batching seat got no events inside its requests"
        assert not any(
            m.request.events for m in received[-1] if m.WhichOneof("message") == "request"
        )
        assert checked > 20
    finally:
        server.stop()
