"""Playing one game between bots, each seeing only what its seat knows."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from troedler.bots.base import (
    Bot,
    BotFailure,
    _bounded,
    bot_rng,
    check_bot,
    check_players,
    limit_move_times,
    rounds_played,
    tell_game_over,
)
from troedler.bots.failure import ask_bot
from troedler.core.cards import fingerprint
from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError, IllegalMoveError
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import Move
from troedler.core.rulebook import PLAYER_COUNTS, Rules
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.io.records import GameRecord
from troedler.seat import Recall, observe

__all__ = ["PlayedGame", "play_game"]


@attrs.frozen
class PlayedGame:
    """A game played between bots: its record and last state."""

    record: GameRecord
    final: GameState
    finished: bool
    """False when the game was stopped at a round cap, or by a failure, before it ended."""
    failure: BotFailure | None = None
    """The bot failure that stopped the game (only with ``forfeit=True``)."""

    @property
    def rounds(self) -> int:
        """The rounds played: the last round begun, not counting a round that
        was only dealt when a round cap stopped the game."""
        return rounds_played(self.final)


def play_game(
    bots: Sequence[Bot],
    *,
    seed: int,
    starting_dealer: int = 0,
    rules: Rules | None = None,
    recall: Recall = "perfect",
    max_rounds: int | None = None,
    forfeit: bool = False,
    move_time_limit: float | None = None,
    on_move: Callable[[Move, GameState], None] | None = None,
) -> PlayedGame:
    """Play one game between ``bots`` (one per seat, in seat order).

    Each bot sees only :func:`~troedler.observe` of its seat with ``recall``
    and draws its chance from its own generator, seeded from ``seed`` and its
    seat, so the same arguments always give the same game. With
    ``max_rounds`` the game stops after that round and is not finished.

    A bot without a name is refused before the first move
    (:class:`ConfigurationError`). A bot that picks a move that is not legal
    raises :class:`IllegalMoveError`, and an exception from a bot's
    ``choose`` is passed on, unless ``forfeit`` is true: then the game stops
    at that move, unfinished, and :attr:`PlayedGame.failure` says who failed,
    where and how. With ``forfeit``, ``move_time_limit`` (seconds) also
    forfeits a move that took longer; it is measured after ``choose``
    returns, so a bot that never returns must be stopped from outside (as
    :func:`troedler.simulation.tournament` does). ``on_move`` is called with
    each move and the state it led to.
    """
    if len(bots) not in PLAYER_COUNTS:
        raise ConfigurationError(f"S1: 2 to 4 bots, not {len(bots)}")
    for bot in bots:
        if isinstance(bot, str):  # texts are for tournament(); play_game takes bot objects
            raise ConfigurationError(
                "play_game takes bot objects such as RandomBot(), not the text "
                f"{_bounded(repr(bot), 40)}; make one with troedler.bots.make_bot"
            )
    names = [check_bot(bot) for bot in bots]
    for bot in bots:
        check_players(bot, len(bots))
    if max_rounds is not None and (type(max_rounds) is not int or max_rounds < 1):
        raise ConfigurationError(
            f"max_rounds must be a whole number of at least 1, not {_bounded(repr(max_rounds), 40)}"
        )
    if move_time_limit is not None and not forfeit:
        raise ConfigurationError("a move time limit needs forfeit=True")
    if move_time_limit is not None and not move_time_limit > 0:
        raise ConfigurationError(f"a move time limit must be positive, not {move_time_limit}")
    if move_time_limit is not None:
        limit_move_times(bots, move_time_limit)
    first = new_game(len(bots), seed=seed, starting_dealer=starting_dealer, rules=rules)
    rngs = [bot_rng(seed, seat) for seat in range(len(bots))]
    state = first
    moves: list[Move] = []
    movers: list[int] = []
    failure: BotFailure | None = None

    try:
        while not state.is_over and (max_rounds is None or state.round <= max_rounds):
            seat = state.current_player
            assert seat is not None  # a game that is not over has a player to move
            seen = observe(state, seat, recall=recall)
            if not forfeit:
                allowed = legal_moves(state)
                move = bots[seat].choose(seen, allowed, rngs[seat])
                if move not in allowed:
                    raise IllegalMoveError(
                        "T1",
                        f"bot {names[seat]!r} chose {_bounded(repr(move), 80)}, which is not legal",
                    )
            else:
                answer = ask_bot(
                    bots[seat], seen, rngs[seat], move=len(moves), move_time_limit=move_time_limit
                )
                if isinstance(answer, BotFailure):
                    failure = answer
                    break
                move = answer
            moves.append(move)
            movers.append(seat)
            state = apply_move(state, move)
            if on_move is not None:
                on_move(move, state)
    except BaseException:
        tell_game_over(bots, None, "stopped")
        raise
    if state.is_over:
        tell_game_over(bots, outcome(state), "finished")
    else:
        tell_game_over(bots, None, "capped" if failure is None else "forfeited")
    record = GameRecord(
        rules=first.rules,
        fingerprint=fingerprint(first.board, first.cards),
        seed=seed,
        starting_dealer=starting_dealer,
        seats=tuple(f"{name} {seat}" for seat, name in enumerate(names)),
        moves=tuple(str(move) for move in moves),
        result=outcome(state) if state.is_over else None,
        movers=tuple(movers),
    )
    return PlayedGame(record, state, state.is_over, failure)
