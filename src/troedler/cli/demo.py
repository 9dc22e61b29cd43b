"""``troedler demo``: one whole game between the bundled bots, as a log."""

from __future__ import annotations

from collections.abc import Callable

from troedler.bots import GreedyBot, RandomBot, play_game
from troedler.bots.base import rounds_played
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Phase
from troedler.io.records import GameRecord, replay

__all__ = ["play_demo", "write_log", "write_scores"]


MAX_ROUNDS = 200


def play_demo(num_players: int, seed: int, write: Callable[[str], None] = print) -> GameState:
    """Play one game between greedy and random bots (alternating seats),
    writing a readable log; the final state."""
    bots = [GreedyBot() if seat % 2 == 0 else RandomBot() for seat in range(num_players)]
    played = play_game(bots, seed=seed, max_rounds=MAX_ROUNDS)
    write(f"troedler demo: {num_players} players, seed {seed}")
    return write_log(played.record, write)


def write_log(
    record: GameRecord,
    write: Callable[[str], None] = print,
    pause: Callable[[], bool] | None = None,
) -> GameState:
    """Write a recorded game as a log: each round's piles, each move, the scores.

    ``pause``, if given, is called after each move; when it returns False
    the log stops there. The last state shown is returned.
    """
    states = replay(record)
    names = record.seats
    for seat, player in enumerate(states[0].players):
        write(f"  seat {seat} ({names[seat]}) starts in {player.cart}")
    shown_round = 0
    for i, (state, move) in enumerate(zip(states, record.moves, strict=False)):
        if state.phase is Phase.TAKE_PILES and state.round != shown_round:
            shown_round = state.round
            write("")
            write(f"Round {state.round} (dealer: seat {state.dealer})")
            for number, pile in enumerate(state.dealer_piles):
                cards = " ".join(str(card) for card in pile or ()) or "(empty)"
                write(f"  pile {number}: {cards}   (bottom to top)")
        write(f"  seat {state.current_player}: {move}")
        if pause is not None and not pause():
            return states[i + 1]
    final = states[-1]
    write("")
    if not final.is_over:
        # A game stopped at a round cap ends on the next round's fresh deal.
        played = rounds_played(final)
        where = f"after round {played}" if 0 < played < final.round else f"in round {final.round}"
        write(f"Stopped {where}: the game did not end.")
        return final
    write(f"Game over after round {final.round}.")
    write_scores(final, write)
    return final


def write_scores(state: GameState, write: Callable[[str], None] = print) -> None:
    """The final scoring table of a finished game."""
    result = outcome(state)
    write(
        f"{'seat':>4} {'feed':>4} {'goods':>5} {'requests':<20} "
        f"{'damage':>6} {'total':>5} {'points':>6} {'winner':>6}"
    )
    for seat, tally in enumerate(result.tallies):
        requests = "+".join(str(p) for p in tally.request_points) or "-"
        write(
            f"{seat:>4} {tally.feed_used:>4} {tally.goods_held:>5} {requests:<20} "
            f"{result.damage[seat]:>6} {'yes' if seat in result.totally_damaged else '':>5} "
            f"{result.points[seat]:>6} {'yes' if seat in result.winners else '':>6}"
        )
    winners = ", ".join(f"seat {seat}" for seat in sorted(result.winners))
    write(f"Winner: {winners}")
