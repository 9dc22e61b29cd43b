"""The golden playthroughs: fixed games, position by position, as the files keep them.

A change of behaviour (a position, a legal move list, or what a seat knows)
shows here as a readable diff. When the change is meant, ``python
tools/golden.py`` writes the files again; read the diff before committing.
"""

from __future__ import annotations

import difflib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "golden.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("golden_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


golden = _tool()


@pytest.mark.parametrize(("players", "seed"), golden.GAMES)
def test_golden_playthrough_is_unchanged(players: int, seed: int) -> None:
    path = golden.GOLDEN / golden.file_name(players, seed)
    stored = path.read_text(encoding="utf-8").splitlines()
    played = golden.text(players, seed).splitlines()
    if played != stored:
        diff = difflib.unified_diff(stored, played, str(path.name), "played now", n=1, lineterm="")
        shown = [line[:300] for line in list(diff)[:40]]
        pytest.fail("the game plays differently from its golden file:\n" + "\n".join(shown))


@pytest.mark.parametrize(("players", "seed"), golden.GAMES)
def test_golden_game_ends_and_every_seat_is_viewed_both_ways(players: int, seed: int) -> None:
    # Each file is a whole game (its middle left out): it starts at set-up,
    # ends with the scoring, and shows every seat's view with either recall.
    written = (golden.GOLDEN / golden.file_name(players, seed)).read_text(encoding="utf-8")
    lines = written.splitlines()
    assert lines[1].startswith(f"position 0: players={players} seed={seed} ")
    assert lines[-1].startswith("outcome: ")
    views = [line for line in lines if line.startswith("  seat ")]
    positions = [line for line in lines if line.startswith("position ")]
    assert len(views) == 2 * players * len(positions)
    assert "DIFFERS" not in written


def test_check_mode_finds_a_changed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    players, seed = golden.GAMES[0]
    monkeypatch.setattr(golden, "GOLDEN", tmp_path)
    assert golden.main([]) == 0
    assert golden.main(["--check"]) == 0
    path = tmp_path / golden.file_name(players, seed)
    path.write_text(path.read_text(encoding="utf-8").replace("take 1", "take 2", 1))
    assert golden.main(["--check"]) == 1
