"""``troedler demo``: one whole game between the simple players, as a log."""

from __future__ import annotations

from collections.abc import Callable

from troedler.cli.simple import choose_simple_move
from troedler.legal import apply_move
from troedler.scoring import outcome
from troedler.setup import new_game
from troedler.state import GameState, Phase

__all__ = ["play_demo"]

MAX_ROUNDS = 500


def play_demo(num_players: int, seed: int, write: Callable[[str], None] = print) -> GameState:
    """Play one game between simple players, writing a readable log; the final state."""
    state = new_game(num_players, seed=seed)
    names = [v for v in (state.players[s].cart for s in range(num_players))]
    write(f"troedler demo: {num_players} players, seed {seed}")
    for seat, village in enumerate(names):
        write(f"  seat {seat} starts in {village}")
    shown_round = 0
    while not state.is_over and state.round <= MAX_ROUNDS:
        if state.phase is Phase.TAKE_PILES and state.round != shown_round:
            shown_round = state.round
            write("")
            write(f"Round {state.round} (dealer: seat {state.dealer})")
            for i, pile in enumerate(state.dealer_piles):
                cards = " ".join(str(card) for card in pile or ()) or "(empty)"
                write(f"  pile {i}: {cards}   (bottom to top)")
        mover = state.current_player
        move = choose_simple_move(state)
        write(f"  seat {mover}: {move}")
        state = apply_move(state, move)
    write("")
    if not state.is_over:
        write(f"Stopped after {MAX_ROUNDS} rounds without an end.")
        return state
    result = outcome(state)
    write(f"Game over after round {state.round}.")
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
    return state
