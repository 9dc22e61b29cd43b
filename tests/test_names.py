"""Public names that changed: the old names of 0.2 are gone in 0.3, and
those 0.3 kept for one release are gone in 0.4."""

from __future__ import annotations

import importlib

import pytest

import troedler
from troedler.bots import RandomBot, play_game
from troedler.core import actions, state
from troedler.io import records
from troedler.seat import observation


@pytest.mark.parametrize(
    ("module", "old"),
    [
        (troedler, "discard_pile"),
        (actions, "discard_pile"),
        (state, "check_invariants"),
        (state, "problems"),
        (state, "cards_in_play"),
        (state, "cards_in_state"),
        (state, "hand_size_problems"),
        (state, "taker_problem"),
        (troedler, "GameResult"),
        (records, "GameResult"),
    ],
)
def test_the_names_deprecated_in_0_2_are_gone(module: object, old: str) -> None:
    with pytest.raises(AttributeError):
        getattr(module, old)


@pytest.mark.parametrize(
    "old",
    [
        "troedler.views",
        "troedler.actions",
        "troedler.state",
        "troedler.rules",
        "troedler.serialization",
        "troedler.adapters.tensors",
    ],
)
def test_the_module_paths_of_0_2_are_gone_in_0_4(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


@pytest.mark.parametrize(
    ("module", "old"),
    [
        *((actions, f"can_{name}") for name in (*actions.DEPRECATED_ACTIONS, "turn_up")),
        (observation, "seen_stacks"),
        *(
            (observation.Observation, name)
            for name in (
                "carts",
                "goods",
                "hands",
                "hand_sizes",
                "value_piles",
                "value_pile_sizes",
                "game_round_pile_size",
                "played",
                "delivered_to",
                "discards_due",
                "last_discard",
                "legal_moves",
            )
        ),
    ],
)
def test_the_names_deprecated_in_0_3_are_gone_in_0_4(module: object, old: str) -> None:
    with pytest.raises(AttributeError):
        getattr(module, old)


def test_the_state_field_and_the_action_have_different_names() -> None:
    # GameState.discard_pile is the face-up pile; the two-player action of
    # putting a dealer pile onto it is discard_dealer_pile (R4).
    game = troedler.new_game(2, seed=5)
    after = troedler.apply_move(game, troedler.DiscardPile(0))
    assert len(after.discard_pile) == len(game.discard_pile) + len(game.dealer_piles[0] or ())
    assert "discard_pile" not in troedler.__all__


def test_a_record_holds_the_outcome_of_its_last_state() -> None:
    # One name for the scoring of a finished game: the record holds the
    # Outcome that outcome() gives, and reading it back gives it again.
    played = play_game([RandomBot(), RandomBot()], seed=3, max_rounds=100)
    assert played.finished
    assert played.record.result == troedler.outcome(played.final)
    again = troedler.GameRecord.from_json(played.record.to_json())
    assert again.result == played.record.result
    assert "GameResult" not in troedler.__all__


def test_max_rounds_cuts_a_game_unfinished_everywhere_it_is_a_name() -> None:
    # max_rounds cuts a game unfinished (play_game, simulations, PettingZoo);
    # an OpenSpiel game scored after some rounds says scored_after_rounds.
    played = play_game([RandomBot(), RandomBot()], seed=1, max_rounds=1)
    assert not played.finished and played.record.result is None
    assert played.final.round == 2 and not played.final.is_over
