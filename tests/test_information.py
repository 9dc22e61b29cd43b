"""I1-I3: what the state records of what was seen."""

from __future__ import annotations

from tests.helpers import cards, play, position
from troedler import EndTurn, Phase, TakePile, apply_move, new_game


def test_I1_every_laid_card_and_every_played_card_is_recorded_in_order() -> None:
    state = new_game(3, seed=12)
    laid = [pile[layer] for layer in range(4) for pile in state.dealer_piles]  # type: ignore[index]
    assert len(laid) == 16  # all four layers of every pile are kept, bottom first
    state = position(cart="Aberlour", hand="trail extra", villages={"Craigellachie": "B"})
    state = play(state, "trail Craigellachie", "extra +B")
    assert state.turn.played == cards("trail extra")
    state = apply_move(state, EndTurn())
    assert state.discard_pile.cards[-2:] == cards("trail extra")


def test_I2_face_down_order_comes_from_the_seed_alone() -> None:
    same = {new_game(4, seed=99).game_round_pile for _ in range(3)}
    assert len(same) == 1
    different = {new_game(4, seed=seed).game_round_pile for seed in range(8)}
    assert len(different) == 8


def test_I3_only_the_top_card_of_each_pile_lies_visible() -> None:
    state = new_game(4, seed=3)
    tops = state.pile_tops()
    assert tops == tuple(pile[-1] for pile in state.dealer_piles)  # type: ignore[index]
    state = apply_move(state, TakePile(0))
    assert state.pile_tops()[0] is None
    assert state.phase is Phase.TAKE_PILES
