"""No seat receives another's hidden card, a face-down pile's order or the
seed: matches that differ only in what a recipient does not know send it
byte-identical messages, for every seat and spectators, with both recalls."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from troedler import GameState, new_game
from troedler.server import twin_messages
from troedler.server.protocol import message_for
from troedler.server.twin_messages import Comparison, compare_game
from troedler.views import Recall


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
