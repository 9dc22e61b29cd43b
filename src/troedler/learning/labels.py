"""Positions of played games, labelled by a search: the training data.

For a share of the decisions of each game (taking piles, or playing a turn
with no discards due), the seat's observation is searched by
:class:`~troedler.bots.ismcts.ISMCTSBot` guided by the best network so
far. Every option of the decision becomes a *row*: the terms and tensor of
the position it leads to, as the learned bot would value it (one
determinization of what the seat does not know), with the share of the
search's visits it got and the mean share of the win the search found
behind it. The option actually played also carries the game's outcome for
the seat, and the same position seen by every other seat is a row of its
own with that seat's outcome.

A sample set is a dict of arrays, one entry per row (:data:`COLUMNS`).
Tensors are kept as ``uint8``: their numbers are small counts (the round
is cut at 255), and sample sets of many thousand decisions fit in memory.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from troedler.bots.ismcts import ISMCTSBot
from troedler.bots.learned import ValueGuide, Valuer
from troedler.bots.value import ValueNetwork
from troedler.core.legal import legal_moves
from troedler.core.moves import DiscardPile, Move
from troedler.core.state import GameState, Phase
from troedler.learning.games import GameLine, replay_line, shares
from troedler.seat import determinize, observe

__all__ = ["COLUMNS", "Labelling", "concatenate", "empty", "label_game", "label_games"]

COLUMNS = {
    "terms": np.float32,
    "tensors": np.uint8,
    "decision": np.int32,
    "end": np.bool_,
    "visits": np.float32,
    "value": np.float32,
    "count": np.int32,
    "outcome": np.float32,
    "game": np.int32,
}
"""Every column of a sample set:

- ``terms``, ``tensors``: the network's inputs for the row's position and seat;
- ``decision``: the decision the row is an option of, numbered through the
  set (-1 for a row that is no option: another seat's view);
- ``end``: the option ends the turn (the network's patience is added to its score);
- ``visits``: the option's share of the search's visits;
- ``value``: the mean share of the win the search found behind it (NaN if unvisited);
- ``count``: its visits;
- ``outcome``: the seat's share of the game's win, for the option played
  and the other seats' views (NaN elsewhere);
- ``game``: the game the row comes from (its index in the run).
"""


@attrs.frozen
class Labelling:
    """How positions are labelled."""

    iterations: int = 100
    """Iterations of the search per labelled decision."""
    share: float = 0.25
    """The share of a game's decisions that are labelled, drawn at random."""

    def teacher(self, network: ValueNetwork) -> ISMCTSBot:
        """The search that labels positions, guided by ``network``."""
        return ValueGuide(network).search(self.iterations, name="ismcts")


def empty(network: ValueNetwork) -> dict[str, npt.NDArray[Any]]:
    """A sample set of no rows for ``network``'s inputs."""
    width = {"terms": network.spec["terms"].__len__(), "tensors": network.spec["tensor_size"]}
    return {
        name: np.zeros((0, width[name]) if name in width else (0,), dtype=dtype)
        for name, dtype in COLUMNS.items()
    }


def concatenate(sets: Sequence[Mapping[str, npt.NDArray[Any]]]) -> dict[str, npt.NDArray[Any]]:
    """Sample sets one after the other, their decisions numbered anew."""
    joined: dict[str, npt.NDArray[Any]] = {}
    offset = 0
    decisions = []
    for one in sets:
        numbers = one["decision"].copy()
        numbers[numbers >= 0] += offset
        decisions.append(numbers)
        if (one["decision"] >= 0).any():
            offset = int(numbers.max()) + 1
    for name in COLUMNS:
        joined[name] = (
            np.concatenate(decisions)
            if name == "decision"
            else np.concatenate([s[name] for s in sets])
        )
    return joined


def _labelled(state: GameState, moves: Sequence[Move]) -> bool:
    """Whether a decision is one the search labels."""
    if len(moves) < 2:
        return False
    if state.phase is Phase.TAKE_PILES:
        # The two-player dealer's discard of a pile is valued through the
        # other seat's takes: it has no position of its own to learn.
        return not isinstance(moves[0], DiscardPile)
    return state.phase is Phase.PLAY_TURNS and not state.turn.discards_due


def label_game(
    line: GameLine,
    network: ValueNetwork,
    labelling: Labelling,
    seed: int,
    game: int,
) -> dict[str, npt.NDArray[Any]]:
    """The labelled rows of one game, searched with ``network`` as the guide.

    ``seed`` draws the decisions labelled and seeds every search and
    determinization, so the same arguments give the same rows.
    """
    rng = random.Random(f"troedler-labels/{seed}/{game}")
    states, moves = replay_line(line)
    final = shares(states[-1])
    teacher = labelling.teacher(network)
    valuer = Valuer(network)
    recall = network.recall
    rows: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    decision = 0
    for ply, (state, played) in enumerate(zip(states[:-1], moves, strict=True)):
        seat = state.current_player
        assert seat is not None  # a position before a move has a player to move
        legal = legal_moves(state)
        if not _labelled(state, legal) or rng.random() >= labelling.share:
            continue
        seen = observe(state, seat, recall=recall)
        found = teacher.search(seen, legal, random.Random(rng.getrandbits(64)))
        options = valuer.decide(determinize(seen, random.Random(rng.getrandbits(64))), seat, legal)
        terms, tensors = network.features(options.states, [seat] * len(legal), valuer.encoder)
        total = sum(found.visits)
        chosen = legal.index(played)
        for i in range(len(legal)):
            value = found.values[i]
            rows["terms"].append(terms[i])
            rows["tensors"].append(tensors[i])
            rows["decision"].append(decision)
            rows["end"].append(found.choices[i] is None)
            rows["visits"].append(found.visits[i] / total)
            rows["value"].append(np.nan if value is None else value)
            rows["count"].append(found.visits[i])
            rows["outcome"].append(final[seat] if i == chosen else np.nan)
            rows["game"].append(game)
        decision += 1
        # The position the move led to, as every other seat sees it.
        after = states[ply + 1]
        others = [other for other in range(line.players) if other != seat]
        views = [
            determinize(observe(after, other, recall=recall), random.Random(rng.getrandbits(64)))
            for other in others
        ]
        terms, tensors = network.features(views, others, valuer.encoder)
        for k, other in enumerate(others):
            rows["terms"].append(terms[k])
            rows["tensors"].append(tensors[k])
            rows["decision"].append(-1)
            rows["end"].append(False)
            rows["visits"].append(0.0)
            rows["value"].append(np.nan)
            rows["count"].append(0)
            rows["outcome"].append(final[other])
            rows["game"].append(game)
    if not rows["terms"]:
        return empty(network)
    return {
        name: np.clip(np.asarray(rows[name]), 0, 255).astype(dtype)
        if name == "tensors"
        else np.asarray(rows[name], dtype=dtype)
        for name, dtype in COLUMNS.items()
    }


def label_games(
    lines: Sequence[GameLine],
    network: ValueNetwork,
    labelling: Labelling,
    seed: int,
    first: int,
) -> dict[str, npt.NDArray[Any]]:
    """The rows of ``lines``, numbered as games ``first``, ``first + 1`` ..."""
    return concatenate(
        [label_game(line, network, labelling, seed, first + i) for i, line in enumerate(lines)]
    )
