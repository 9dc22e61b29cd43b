"""The leak check of the server's messages: matches that differ only in what
a recipient does not know give that recipient byte-identical messages.

For a position of a game and a recipient (a seat, or a spectator), a twin
position is dealt with :func:`troedler.determinize`: the same in all the
recipient knows, different in every card it does not (other hands, the
order of face-down piles) and in the seed. The same moves are then made in
both while they are legal in both, and every message
:func:`troedler.server.protocol.message_for` builds for the recipient is
compared, byte for byte, until the recipient's knowledge differs (the move
that reveals a difference) or the game ends (the final scoring shows every
value pile). A difference before that is a leak.
"""

from __future__ import annotations

import random

import attrs

from troedler.core.cards import UNKNOWN
from troedler.core.chance import new_game
from troedler.core.legal import apply_move, legal_moves
from troedler.core.state import GameState
from troedler.seat import Recall, determinize, observe
from troedler.server.protocol import message_for

__all__ = ["Comparison", "compare_game"]


@attrs.define
class Comparison:
    """What a leak check compared."""

    messages: int = 0
    """Pairs of messages compared."""
    differences: list[str] = attrs.field(factory=list)
    """Where a pair differed while the recipient knew the same: must stay empty."""


def _knows(state: GameState, viewer: int | None, recall: Recall) -> object:
    if viewer is None:  # a spectator knows what the table shows, hands aside
        seen = observe(state, 0, recall="table")
        first = seen.players[0]
        unknown = attrs.evolve(
            first,
            hand=(UNKNOWN,) * len(first.hand),
            value_pile=(UNKNOWN,) * len(first.value_pile),
        )
        return attrs.evolve(seen, players=(unknown, *seen.players[1:]))
    return observe(state, viewer, recall=recall)


def compare_game(
    players: int,
    seed: int,
    recall: Recall,
    *,
    every: int = 7,
    walk: int = 12,
    comparison: Comparison | None = None,
) -> Comparison:
    """Play a random game of ``seed``; at every ``every``-th move, for each seat
    and a spectator, deal a twin and compare up to ``walk`` moves' messages."""
    found = comparison if comparison is not None else Comparison()
    rng = random.Random(f"leaks/{players}/{seed}/{recall}")
    state = new_game(players, seed=seed)
    number = 0
    while not state.is_over:
        if number % every == 0:
            for viewer in [*range(players), None]:
                _walk(state, viewer, recall, rng, walk, number, found)
        state = apply_move(state, rng.choice(legal_moves(state)))
        number += 1
    return found


def _walk(
    state: GameState,
    viewer: int | None,
    recall: Recall,
    rng: random.Random,
    walk: int,
    number: int,
    found: Comparison,
) -> None:
    if viewer is None:
        # A twin is dealt from one seat's view, which keeps that seat's hand:
        # turn about, so that every seat's hidden cards are varied for spectators.
        source = number % len(state.players)
        twin = determinize(observe(state, source, recall="table"), rng)
    else:
        twin = determinize(observe(state, viewer, recall=recall), rng)
    one, other = state, twin
    version, mover, text = number, None, None
    for _ in range(walk):
        if _knows(one, viewer, recall) != _knows(other, viewer, recall):
            return  # the last move revealed a difference: from here on they may differ
        if one.is_over or other.is_over:
            return  # the final scoring, shown to all, reveals every value pile
        first = message_for(
            viewer, "moved", state=one, recall=recall, version=version, seat=mover, move=text
        )
        second = message_for(
            viewer, "moved", state=other, recall=recall, version=version, seat=mover, move=text
        )
        found.messages += 1
        if first != second:
            found.differences.append(f"seat {viewer} at move {version}: {first[:80]}")
            return
        moves = legal_moves(one)
        move = rng.choice(moves)
        if move not in legal_moves(other):
            return  # the twin's cards do not allow it: a difference the rules reveal
        mover, text = one.current_player, str(move)
        one, other = apply_move(one, move), apply_move(other, move)
        version += 1
