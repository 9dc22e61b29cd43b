"""Games kept as their seed and action ids, and replayed from them.

A training run commits the games it played, not the tensors made from
them: a :class:`GameLine` is the seed, the player count, who sat where and
the action ids of :mod:`troedler.encoding.action_ids`. Replaying it with
the engine gives back every position, so a later run can rebuild its
training data, and anyone can check the results a verdict was drawn from.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError, quote
from troedler.core.legal import apply_move
from troedler.core.moves import Move
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.encoding.action_ids import action_layout
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord
from troedler.simulation.games import GameReport

__all__ = [
    "GameLine",
    "line_of",
    "read_lines",
    "replay_line",
    "shares",
    "write_atomic",
    "write_lines",
]


@attrs.frozen
class GameLine:
    """One game as a training run keeps it."""

    seed: int
    players: int
    seats: tuple[str, ...]
    """The label of the bot in each seat."""
    actions: tuple[int, ...]
    """Every move as its action id, in the order made."""
    kind: str = "play"
    """What the game was for: ``play`` (training games), ``sprt`` or ``measure``."""
    index: int = 0
    """Its number in its run (for an SPRT: the pair is ``index // 2``)."""

    def to_json(self) -> str:
        """The game as one line of JSON."""
        return json.dumps(attrs.asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameLine:
        """A game from :meth:`to_json`'s line; ConfigurationError if malformed."""
        try:
            data: Any = json.loads(text)
            line = cls(
                seed=int(data["seed"]),
                players=int(data["players"]),
                seats=tuple(str(seat) for seat in data["seats"]),
                actions=tuple(int(action) for action in data["actions"]),
                kind=str(data["kind"]),
                index=int(data["index"]),
            )
        except (ValueError, KeyError, TypeError):
            raise ConfigurationError(f"not a game line: {quote(text)}") from None
        if len(line.seats) != line.players:
            raise ConfigurationError(f"seats: {len(line.seats)} for {line.players} players")
        return line


def line_of(report: GameReport, kind: str = "play") -> GameLine:
    """The game of a run's ``report`` (played with ``keep_records``) as a line."""
    if report.record is None:
        raise ConfigurationError("the report holds no record: play with keep_records")
    record = GameRecord.from_json(report.record)
    players = record.rules.num_players
    if record.starting_dealer != 0:
        raise ConfigurationError("game lines start with dealer 0, as runs deal their games")
    state = new_game(players, seed=record.seed)
    layout = action_layout()
    actions = []
    for text in record.moves:
        move = parse_move(text, state)
        actions.append(layout.action_id(move))
        state = apply_move(state, move)
    return GameLine(
        seed=record.seed,
        players=players,
        seats=tuple(report.seats),
        actions=tuple(actions),
        kind=kind,
        index=report.index,
    )


def replay_line(line: GameLine) -> tuple[list[GameState], list[Move]]:
    """Every position of ``line`` before each move, with the moves; the last
    position is the game's end (or where it stopped)."""
    layout = action_layout()
    state = new_game(line.players, seed=line.seed)
    states, moves = [state], []
    for action in line.actions:
        move = layout.move_for(action, state)
        state = apply_move(state, move)
        moves.append(move)
        states.append(state)
    return states, moves


def shares(final: GameState) -> tuple[float, ...]:
    """Each seat's share of the win at ``final``: the winners share 1; a game
    that did not end gives every seat an equal share."""
    n = final.num_players
    if not final.is_over:
        return tuple(1.0 / n for _ in range(n))
    winners = outcome(final).winners
    return tuple(1.0 / len(winners) if seat in winners else 0.0 for seat in range(n))


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is always whole: a file
    beside it, flushed to disk, then moved into place."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    partial.replace(path)


def write_lines(path: Path, lines: Iterable[GameLine]) -> None:
    """Write games to ``path`` (gzip-compressed JSON lines), atomically."""
    text = "".join(line.to_json() + "\n" for line in lines)
    write_atomic(path, gzip.compress(text.encode(), mtime=0))


def read_lines(paths: Path | Sequence[Path]) -> Iterator[GameLine]:
    """The games written by :func:`write_lines` to ``paths``, in order."""
    for path in [paths] if isinstance(paths, Path) else paths:
        with gzip.open(path, "rt", encoding="utf-8") as file:
            for text in file:
                if text.strip():
                    yield GameLine.from_json(text)
