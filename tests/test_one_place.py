"""Each fact of the rules, and each check, is stated in one place.

These tests keep the facts that were once stated two to four times from
being stated again: they read the source, as a lint does, and each names
the one place that states its fact. Comparisons with bare numbers in the
rules and the readers are ruff's PLR2004, on for ``core/`` and ``io/``.
"""

from __future__ import annotations

import ast
import json
import tomllib
from pathlib import Path

import attrs
import pytest

from troedler import ConfigurationError, FormatError, Rules, new_game
from troedler.core import rulebook
from troedler.io.position_text import from_position_text, position_text
from troedler.io.state_json import state_from_json, state_to_json

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "troedler"
KERNEL = ("core", "seat", "io", "encoding", "jax")


def _modules(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (PACKAGE / package).rglob("*.py"))


def _trees(*packages: str) -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(), str(path))) for path in _modules(*packages)]


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def _attribute_reads(names: set[str], *packages: str) -> list[str]:
    return [
        _where(path, node)
        for path, tree in _trees(*packages)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in names
    ]


def _calls(name: str, *packages: str) -> list[str]:
    return [
        _where(path, node)
        for path, tree in _trees(*packages)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == name)
            or (isinstance(node.func, ast.Name) and node.func.id == name)
        )
    ]


def test_S5_the_set_up_piles_make_up_is_read_only_by_the_rulebook() -> None:
    # What the set-up pile holds (its requests and feed) is rulebook.setup_problem,
    # setup_piles, setup_pile_left and setup_portion: the table, chance, the
    # invariants, the views and the JAX engine ask those.
    found = _attribute_reads({"setup_requests", "setup_feed"}, *KERNEL)
    assert all(where.startswith("src/troedler/core/rulebook.py") for where in found), found


def test_C3_the_starting_sets_are_looked_up_only_by_the_rulebook() -> None:
    found = _calls("starting_set", *KERNEL)
    assert all(where.startswith("src/troedler/core/rulebook.py") for where in found), found


def test_T7_the_hand_limit_is_added_to_only_in_the_rulebook() -> None:
    # "A hand owing discards holds the limit and them" is discards_owed's.
    def adds_the_limit(node: ast.AST) -> bool:
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Add):
            return False
        sides = (node.left, node.right)
        return any(
            (isinstance(side, ast.Name) and side.id in ("limit", "hand_limit"))
            or (isinstance(side, ast.Attribute) and side.attr == "hand_limit")
            for side in sides
        )

    found = [
        _where(path, node)
        for path, tree in _trees(*KERNEL)
        for node in ast.walk(tree)
        if adds_the_limit(node)
    ]
    assert all(where.startswith("src/troedler/core/rulebook.py") for where in found), found


def test_the_counts_of_the_goods_and_the_kinds_have_one_name_each() -> None:
    # 48 is TOTAL_GOODS, six is GOOD_KINDS (len(Good)), both in troedler.core.goods.
    found = []
    for path, tree in _trees(*KERNEL):
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value == 48:
                found.append(_where(path, node))
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "len"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == "Good"
                and path.name != "goods.py"
            ):
                found.append(_where(path, node))
    assert found == []


def test_I1_I3_the_kinds_of_recall_are_written_once() -> None:
    # Recall's values are RECALLS, read from the Recall type (troedler.core.state).
    found = [
        _where(path, node)
        for path, tree in _trees(*KERNEL)
        for node in ast.walk(tree)
        if isinstance(node, ast.Tuple | ast.List | ast.Set)
        and {"perfect", "table"}
        <= {element.value for element in node.elts if isinstance(element, ast.Constant)}
    ]
    assert [where.split(":")[0] for where in found] == ["src/troedler/core/state.py"]


def test_the_readers_name_no_player_count_of_their_own() -> None:
    # S1's 2 to 4 is the rulebook's PLAYER_COUNTS; the readers ask it.
    def numbers(node: ast.Call) -> set[object]:
        return {argument.value for argument in node.args if isinstance(argument, ast.Constant)}

    found = [
        _where(path, node)
        for path, tree in _trees("io")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and {2, 4} <= numbers(node)
    ]
    assert found == []


def test_the_jax_engine_names_the_action_sections_by_their_order() -> None:
    tree = ast.parse((PACKAGE / "jax" / "engine.py").read_text())
    found = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and node.left.id == "section"
        and any(isinstance(right, ast.Constant) for right in node.comparators)
    ]
    assert found == []


def test_magic_numbers_are_linted_in_the_rules_and_the_readers() -> None:
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "PLR2004" not in lint.get("ignore", [])
    for pattern, rules in lint.get("per-file-ignores", {}).items():
        if "PLR2004" in rules:
            assert pattern.startswith("!") or not any(
                part in pattern for part in ("core", "io", "src/troedler/*", "src/**")
            ), pattern


def test_both_readers_of_a_position_go_through_one_field_reader() -> None:
    # Only troedler.io.fields builds a state from what it read and checks it.
    for name in ("state_json.py", "position_text.py"):
        tree = ast.parse((PACKAGE / "io" / name).read_text())
        called = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert {"GameState", "located_problems", "problems"}.isdisjoint(called), name
        assert "state_from_fields" in called, name


def test_both_readers_of_a_position_say_the_same_words_for_the_same_fault() -> None:
    state = new_game(2, seed=1)
    text = position_text(state).replace("to_move=0", "to_move=2")
    data = json.loads(state_to_json(state))
    data["current_player"] = 2
    with pytest.raises(FormatError) as as_text:
        from_position_text(text)
    with pytest.raises(FormatError) as as_json:
        state_from_json(json.dumps(data))
    assert (as_text.value.field, as_json.value.field) == ("to_move", "current_player")
    assert as_text.value.message == as_json.value.message == "expected 0 to 1, got 2"
    text = position_text(state).replace("seats=Aberlour:tsABC4:-:-", "seats=Aberlour:tsABC4:aa:-")
    data = json.loads(state_to_json(state))
    data["players"][0]["goods"] = "aa"
    with pytest.raises(FormatError) as as_text:
        from_position_text(text)
    with pytest.raises(FormatError) as as_json:
        state_from_json(json.dumps(data))
    assert (as_text.value.field, as_json.value.field) == ("seats[0].goods", "players[0].goods")
    assert as_text.value.message == as_json.value.message


def test_a_record_starts_its_game_in_one_place() -> None:
    assert len(_calls("new_game", "io")) == 1


@pytest.mark.parametrize("field", [field.name for field in attrs.fields(Rules)])
def test_S1_rules_check_every_field(field: str) -> None:
    rules = Rules.for_players(2)
    value = getattr(rules, field)
    # A bool is no number, and no number a bool: look-alikes are refused.
    look_alikes = (1, 0) if type(value) is bool else (float(value), True)
    for wrong in ("x", None, *look_alikes):
        with pytest.raises(ConfigurationError, match=f"rules.{field}|S1"):
            attrs.evolve(rules, **{field: wrong})
    assert attrs.evolve(rules, **{field: value}) == rules


def test_E5_E6_the_scoring_and_the_jax_engine_ask_the_rulebook_for_points_and_standing() -> None:
    for name in ("total_points", "standing", "setup_piles"):
        assert callable(getattr(rulebook, name))
        engine = (PACKAGE / "jax" / "engine.py").read_text()
        assert f"rulebook.{name}" in engine, name
    scoring = (PACKAGE / "core" / "scoring.py").read_text()
    assert "rulebook.total_points" in scoring and "rulebook.standing" in scoring
