"""The module paths of 0.2 still work in 0.3, each name with a DeprecationWarning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import troedler
from troedler._moved import MOVED

NAMES = {
    "troedler.actions": "verify_take_pile",
    "troedler.board": "Board",
    "troedler.cards": "parse_card",
    "troedler.chance": "shuffled",
    "troedler.datafile": "Fields",
    "troedler.errors": "IllegalMoveError",
    "troedler.explicit": "apply_chance",
    "troedler.goods": "Goods",
    "troedler.invariants": "check_invariants",
    "troedler.legal": "legal_moves",
    "troedler.limits": "MAX_SEED",
    "troedler.moves": "TakePile",
    "troedler.pile": "Pile",
    "troedler.rulebook": "PILE_SIZE",
    "troedler.rules": "Rules",
    "troedler.scoring": "outcome",
    "troedler.setup": "new_game",
    "troedler.state": "GameState",
    "troedler.views": "observe",
    "troedler.notation": "parse_move",
    "troedler.position": "position_text",
    "troedler.records": "GameRecord",
    "troedler.serialization": "state_to_json",
    "troedler.adapters.actions": "action_layout",
    "troedler.adapters.tensors": "observation_tensor",
    "troedler.adapters.neural": "NeuralBot",
}


def test_every_moved_module_is_listed_with_a_name_to_try() -> None:
    assert set(NAMES) == set(MOVED)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_gives_the_new_object_with_a_warning(old: str) -> None:
    pytest.importorskip("numpy")
    name = NAMES[old]
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old} moved: import {name} from troedler"):
        value = getattr(module, name)
    homes = [importlib.import_module(place) for place in MOVED[old]]
    assert any(getattr(home, name, None) is value for home in homes)


def test_from_import_of_an_old_path_works_and_warns() -> None:
    with pytest.warns(DeprecationWarning, match="troedler.state moved"):
        from troedler.state import GameState  # type: ignore[import-not-found]
    assert GameState is troedler.GameState


def test_an_old_module_read_as_an_attribute_of_the_package() -> None:
    with pytest.warns(DeprecationWarning, match="troedler.views moved"):
        assert troedler.views.observe is troedler.observe  # type: ignore[attr-defined]


def test_a_name_the_old_module_never_had_is_an_attribute_error() -> None:
    module = importlib.import_module("troedler.views")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
            _ = module.nothing_here


def test_importing_troedler_warns_about_nothing() -> None:
    # Only a program that still uses an old path is told about it.
    result = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", "import troedler"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
