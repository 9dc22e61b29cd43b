"""The games of a tournament: how each is seeded and seated, and what it gave.

Game ``i`` of a run with seed ``s`` is played with a seed hashed from
``(s, i)`` (:func:`game_seed`) and the line-up turned ``i`` seats further,
so every bot plays every seat and a game's outcome depends only on ``s``,
``i`` and the bots, never on which process plays it or when.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import attrs

from troedler.bots.base import Bot, BotFailure, check_bot
from troedler.bots.playing import PlayedGame, play_game
from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError
from troedler.core.legal import apply_move
from troedler.core.moves import Move
from troedler.core.state import GameState
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord

__all__ = [
    "BotUnavailable",
    "Ending",
    "GameReport",
    "GameSpec",
    "game_seed",
    "game_specs",
    "play",
    "stopped_report",
]

Ending = Literal["finished", "capped", "forfeited"]
"""How a game ended: by the rules, at the round cap, or by a bot's failure."""

SEED_LIMIT = 2**63
"""Game seeds lie in 0 to 2**63 - 1, which every record can hold."""


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed``: a stable hash of
    both (BLAKE2b), in 0 to 2**63 - 1, whatever the size of ``seed``."""
    digest = hashlib.blake2b(
        f"{seed}/{index}".encode(), digest_size=8, person=b"troedler-games"
    ).digest()
    return int.from_bytes(digest, "big") % SEED_LIMIT


@attrs.frozen
class GameSpec:
    """One game of a run: its number, seed, who sits where, and its round cap."""

    index: int
    seed: int
    seats: tuple[str, ...]
    """The label of the bot in each seat, in seat order."""
    max_rounds: int | None
    keep_record: bool


def game_specs(
    indices: Sequence[int],
    line_up: Sequence[str],
    seed: int,
    max_rounds: int | None,
    keep_records: bool,
) -> list[GameSpec]:
    """The games ``indices`` of a run, the line-up turned one seat further each game."""
    n = len(line_up)
    return [
        GameSpec(
            index=i,
            seed=game_seed(seed, i),
            seats=tuple(line_up[(seat + i) % n] for seat in range(n)),
            max_rounds=max_rounds,
            keep_record=keep_records,
        )
        for i in indices
    ]


@attrs.frozen
class GameReport:
    """What one game of a run gave."""

    index: int
    seed: int
    seats: tuple[str, ...]
    """The label of the bot in each seat."""
    ending: Ending
    rounds: int
    """Rounds played (a round cap's fresh deal not counted)."""
    points: tuple[int, ...]
    """Per seat; empty unless finished (as are the three below)."""
    damage: tuple[int, ...]
    totally_damaged: tuple[int, ...]
    winners: tuple[int, ...]
    failure: BotFailure | None = None
    """Who failed, when the game was forfeited."""
    record: str | None = None
    """The game record as one line of JSON, when the run keeps records."""

    @property
    def finished(self) -> bool:
        """Whether the game ended by the rules."""
        return self.ending == "finished"


class BotUnavailable(ConfigurationError):
    """A worker could not make a bot that was made before the run began:
    its module is missing there, or its factory fails in that process."""


def play(
    spec: GameSpec,
    makers: Mapping[str, Callable[[], Bot]],
    move_time_limit: float | None = None,
    on_move: Callable[[str, GameState], None] | None = None,
    on_start: Callable[[tuple[str, ...]], None] | None = None,
) -> GameReport:
    """Play the game ``spec`` describes, in this process; a bot's failure forfeits it.

    ``on_start(names of the bots by seat)`` is called once the bots are
    made, and ``on_move(notation, state after it)`` after every move.
    """
    bots = []
    for label in spec.seats:
        try:
            bots.append(makers[label]())
        except Exception as error:  # a worker without the bot's module, most often
            detail = str(error).removeprefix(f"bot {label!r}: ")
            raise BotUnavailable(f"a worker cannot make bot {label!r}: {detail}") from None
    if on_start is not None:
        on_start(tuple(check_bot(bot) for bot in bots))
    follow = None
    if on_move is not None:
        notify = on_move

        def follow(move: Move, state: GameState) -> None:
            notify(str(move), state)

    played = play_game(
        bots,
        seed=spec.seed,
        max_rounds=spec.max_rounds,
        forfeit=True,
        move_time_limit=move_time_limit,
        on_move=follow,
    )
    return _report(spec, played)


def _report(spec: GameSpec, played: PlayedGame) -> GameReport:
    result = played.record.result
    ending: Ending = (
        "finished" if result else "forfeited" if played.failure is not None else "capped"
    )
    return GameReport(
        index=spec.index,
        seed=spec.seed,
        seats=spec.seats,
        ending=ending,
        rounds=played.rounds,
        points=result.points if result else (),
        damage=result.damage if result else (),
        totally_damaged=tuple(sorted(result.totally_damaged)) if result else (),
        winners=tuple(sorted(result.winners)) if result else (),
        failure=played.failure,
        record=_one_line(played.record) if spec.keep_record else None,
    )


def stopped_report(
    spec: GameSpec, moves: Sequence[str], rounds: int, failure: BotFailure, names: Sequence[str]
) -> GameReport:
    """The report of a game whose process was stopped (or died) at ``failure``,
    after ``moves`` and ``rounds`` rounds; ``names`` are the bots' names by seat."""
    record = None
    if spec.keep_record:
        # The moves came from this engine's own notation: replaying them here
        # (a rare path) gives the record the seat that made each.
        state = new_game(len(spec.seats), seed=spec.seed)
        first, made = state, []
        for text in moves:
            made.append(parse_move(text, state))
            state = apply_move(state, made[-1])
        seats = tuple(f"{name} {seat}" for seat, name in enumerate(names))
        record = _one_line(GameRecord.of_game(first, made, seats=seats))
    return GameReport(
        index=spec.index,
        seed=spec.seed,
        seats=spec.seats,
        ending="forfeited",
        rounds=rounds,
        points=(),
        damage=(),
        totally_damaged=(),
        winners=(),
        failure=failure,
        record=record,
    )


def _one_line(record: GameRecord) -> str:
    return json.dumps(json.loads(record.to_json()), separators=(",", ":"))
