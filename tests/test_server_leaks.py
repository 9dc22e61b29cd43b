"""No seat receives another's hidden card, a face-down pile's order or the
seed: matches that differ only in what a recipient does not know send it
byte-identical messages, for every seat and spectators, with both recalls."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from troedler import GameState, apply_move, legal_moves, new_game, observe, outcome
from troedler.bots.program import observation_to_data
from troedler.core.scoring import tally
from troedler.io.records import result_to_data
from troedler.seat import Recall
from troedler.server import twin_messages
from troedler.server.protocol import (
    message_for,
    move_facts,
    position_for,
    position_text,
    public_observation,
)
from troedler.server.twin_messages import Comparison, compare_game


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("recall", ["perfect", "table"])
def test_messages_depend_only_on_what_the_recipient_knows(players: int, recall: Recall) -> None:
    comparison = Comparison()
    for seed in range(2):
        compare_game(players, seed, recall, every=15, walk=8, comparison=comparison)
    assert comparison.messages > 100
    assert comparison.differences == []


def test_the_check_finds_a_message_that_leaks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same check on messages that carry the seed does find the difference.
    def leaky(viewer: int | None, kind: str, *, state: GameState, **public: Any) -> str:
        return message_for(viewer, kind, state=state, **public) + json.dumps(state.seed)

    monkeypatch.setattr(twin_messages, "message_for", leaky)
    assert compare_game(2, 0, "perfect", every=20, walk=2).differences


def test_a_spectator_never_sees_a_hand_or_a_value_pile() -> None:
    state = new_game(4, seed=3)
    position = json.loads(message_for(None, "moved", state=state))["position"]
    assert all(p["hand"] is None and p["value_pile"] is None for p in position["players"])
    assert position["seat"] is None and position["legal_moves"] == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_position_is_the_bot_protocols_observation_written_once(players: int) -> None:
    # The server writes positions from parts it keeps; each must be the bot
    # protocol's observation of the same seat (without its version), with
    # the legal moves and their facts, each known seat's tally and the
    # result, byte for byte as JSON with sorted keys.
    rng = random.Random(players)
    state = new_game(players, seed=players)
    checked = 0
    while True:
        for viewer in [*range(players), None]:
            for recall in ("perfect", "table"):
                seen = (
                    public_observation(state)
                    if viewer is None
                    else observe(state, viewer, recall=recall)
                )
                expected = observation_to_data(seen)
                del expected["protocol"]
                expected["seat"] = viewer
                if viewer is None:  # a spectator holds no hand: seat 0's is not shown
                    expected["players"][0]["hand"] = expected["players"][0]["value_pile"] = None
                for seat, player in enumerate(expected["players"]):
                    known = player["value_pile"] is not None
                    player["tally"] = tally(seen, seat) if known else None
                moves = [] if viewer is None else legal_moves(seen)
                expected["legal_moves"] = [str(move) for move in moves]
                expected["moves"] = [move_facts(move) for move in moves]
                position = position_for(state, viewer, recall)
                refusals = position.pop("discard_refusals")
                assert (refusals is not None) == (bool(moves) and seen.turn.discards_due > 0)
                if state.is_over:
                    expected["result"] = result_to_data(outcome(state))
                    tallies = position["result"].pop("tallies")
                    for seat, player in enumerate(position["players"]):
                        assert player["tally"] in (None, tallies[seat])
                for seat, player in enumerate(position["players"]):
                    shown = player["tally"]
                    counted = expected["players"][seat]["tally"]
                    assert (shown is None) == (counted is None)
                    if counted is not None:
                        assert shown == {
                            "feed_used": counted.feed_used,
                            "goods_held": counted.goods_held,
                            "request_points": list(counted.request_points),
                            "damage": counted.damage,
                            "points": counted.points,
                        }
                        player["tally"] = counted
                assert position == expected
                position["discard_refusals"] = refusals
                text = position_text(state, viewer, recall)
                written = position_for(state, viewer, recall)
                assert text == json.dumps(written, sort_keys=True, separators=(",", ":"))
                checked += 1
        if state.is_over:
            break
        state = apply_move(state, rng.choice(legal_moves(state)))
    assert checked > 500


def test_T7_every_card_that_may_not_be_discarded_has_the_engines_reason() -> None:
    # Over the hand limit, each card of the hand that no legal move discards
    # comes with the engine's own refusal, every copy of it (the second
    # special feed as the first); each card a move discards comes with none.
    checked = twice = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = new_game(3, seed=seed)
        while not state.is_over:
            seat = state.current_player
            if state.turn.discards_due and seat is not None:
                position = position_for(state, seat, "perfect")
                hand = position["players"][seat]["hand"]
                refusals = position["discard_refusals"]
                may_go = {m["card"] for m in position["moves"] if m["type"] == "discard_card"}
                assert len(refusals) == len(hand)
                for card, reason in zip(hand, refusals, strict=True):
                    assert (reason is None) == (card in may_go), (card, reason)
                    assert reason is None or reason.startswith("T7: ")
                kept = [card for card, reason in zip(hand, refusals, strict=True) if reason]
                twice += kept.count("feed") >= 2
                checked += 1
            state = apply_move(state, rng.choice(legal_moves(state)))
    assert checked > 50 and twice > 0
