"""Mutation scores of the rule modules, and the mutants mutmut does not make.

mutmut (configured in ``[tool.mutmut]`` of pyproject.toml) mutates the body
of every plain function and method of the rule modules. It leaves alone what
it cannot switch per mutant: module constants, properties, the defaults of
a record's fields, cached functions and the table of move checks. This
script makes those mutants by hand, one small change each, and runs the
same tests against each; a mutant survives when they all pass::

    python tools/mutation.py scores     # per module, after `mutmut run`
    python tools/mutation.py skipped    # the hand-made mutants

Neither runs in CI: each takes minutes (CONTRIBUTING.md, "Mutation testing").
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = "src/troedler/core/"

# mutmut's exit codes (mutmut.stats): 1 or 3 a test failed (killed), 0
# every test passed (survived), 5 or 33 no test calls the function (counted
# as survived), 34 skipped, the rest timed out (killed).
_KILLED = {1, 3, 24, -24, 36, 152, 255}
_SKIPPED = {34}

SKIPPED_MUTANTS: tuple[tuple[str, str, str], ...] = (
    # (module, text, its mutant): what mutmut leaves alone, each changed once.
    ("rulebook.py", "PLAYER_COUNTS = (2, 3, 4)", "PLAYER_COUNTS = (2, 3, 4, 5)"),
    ("rulebook.py", "_SETUP_DISCARDS = (7, 9, 9)", "_SETUP_DISCARDS = (7, 9, 8)"),
    ("rulebook.py", "_SETUP_DISCARDS = (7, 9, 9)", "_SETUP_DISCARDS = (7, 8, 9)"),
    ("rulebook.py", "_SETUP_DISCARDS = (7, 9, 9)", "_SETUP_DISCARDS = (8, 9, 9)"),
    ("rulebook.py", "START_HAND = 3", "START_HAND = 4"),
    ("rulebook.py", "SETUP_SHUFFLES = 4", "SETUP_SHUFFLES = 3"),
    ("rulebook.py", "PILE_SIZE = 4", "PILE_SIZE = 3"),
    ("rulebook.py", "SHUFFLES_PER_ROUND = 2", "SHUFFLES_PER_ROUND = 3"),
    ("rulebook.py", "SHUFFLES_PER_ROUND = 2", "SHUFFLES_PER_ROUND = 1"),
    (
        "rulebook.py",
        "VALUE_PILE_TYPES = (SpecialFeedCard, RequestCard)",
        "VALUE_PILE_TYPES = (RequestCard,)",
    ),
    ("rulebook.py", "HAND_LIMIT = 4", "HAND_LIMIT = 5"),
    ("rulebook.py", "_END_THRESHOLDS = (7, 6, 5)", "_END_THRESHOLDS = (7, 6, 6)"),
    ("rulebook.py", "_END_THRESHOLDS = (7, 6, 5)", "_END_THRESHOLDS = (7, 7, 5)"),
    ("rulebook.py", "_END_THRESHOLDS = (7, 6, 5)", "_END_THRESHOLDS = (8, 6, 5)"),
    ("rulebook.py", "TWO_PLAYER_DAMAGE_MARGIN = 3", "TWO_PLAYER_DAMAGE_MARGIN = 2"),
    ("rulebook.py", "TWO_PLAYER_DAMAGE_MARGIN = 3", "TWO_PLAYER_DAMAGE_MARGIN = 4"),
    ("rulebook.py", '"hand_limit": (0, MOST_HAND_LIMIT)', '"hand_limit": (1, MOST_HAND_LIMIT)'),
    ("rulebook.py", "MOST_HAND_LIMIT = 20", "MOST_HAND_LIMIT = 21"),
    ("rulebook.py", '"end_threshold": (1, MOST_FULFILLED)', '"end_threshold": (0, MOST_FULFILLED)'),
    (
        "rulebook.py",
        "MOST_FULFILLED = NUM_REQUESTS + NUM_STARTING_SETS",
        "MOST_FULFILLED = NUM_REQUESTS",
    ),
    ("rulebook.py", '"setup_requests": (0, NUM_REQUESTS)', '"setup_requests": (1, NUM_REQUESTS)'),
    (
        "rulebook.py",
        '"setup_feed": (0, NUM_SPECIAL_FEED)',
        '"setup_feed": (0, NUM_SPECIAL_FEED - 1)',
    ),
    (
        "rulebook.py",
        '"two_player_rules": num_players == MIN_PLAYERS',
        '"two_player_rules": False',
    ),
    (
        "rulebook.py",
        '_BOOLEAN_OPTIONS = ("two_player_rules", "reshuffle_mid_forming", "explicit_chance")',
        '_BOOLEAN_OPTIONS = ("two_player_rules", "reshuffle_mid_forming")',
    ),
    ("rulebook.py", '"setup_feed": setup_discards(num_players),', ""),
    ("rulebook.py", "unknown = set(options) - set(attrs.fields_dict(cls))", "unknown = ()"),
    (
        "rulebook.py",
        "    setup_requests: int = setup_discards(MAX_PLAYERS)\n",
        "    setup_requests: int = setup_discards(MIN_PLAYERS)\n",
    ),
    (
        "rulebook.py",
        "    setup_feed: int = setup_discards(MAX_PLAYERS)\n",
        "    setup_feed: int = setup_discards(MIN_PLAYERS)\n",
    ),
    ("rulebook.py", "    hand_limit: int = HAND_LIMIT\n", "    hand_limit: int = 3\n"),
    ("scoring.py", "return rulebook.damage(self.feed_used, self.goods_held)", "return 0"),
    (
        "scoring.py",
        "return rulebook.total_points(sum(self.request_points), self.goods_held)",
        "return sum(self.request_points)",
    ),
    ("legal.py", "if kind == GOOD_KINDS:", "if kind == GOOD_KINDS - 1:"),
    ("legal.py", "if left == 0:", "if left <= 1:"),
    ("legal.py", "range(min(held[kind], left), -1, -1)", "range(min(held[kind], left), 0, -1)"),
    ("legal.py", "more = cost + max(0, shown[kind] - n)", "more = cost"),
    ("legal.py", "if more <= feed:", "if more < feed:"),
    ("legal.py", "found.sort(key=lambda item: item[0])", "found.reverse()"),
    (
        "actions.py",
        "PlayRoute: (verify_play_route, _move_cart),",
        "PlayRoute: (lambda _s, move: move, _move_cart),",
    ),
    (
        "actions.py",
        "EndTurn: (verify_end_turn, _end_turn),",
        "EndTurn: (lambda _s, move: move, _end_turn),",
    ),
    (
        "actions.py",
        "TakePile: (verify_take_pile, _take_pile),",
        "TakePile: (lambda _s, move: move, _take_pile),",
    ),
    (
        "actions.py",
        "PlayRequest: (verify_play_request, _play_request),",
        "PlayRequest: (lambda _s, move: move, _play_request),",
    ),
    (
        "actions.py",
        "DiscardCard: (verify_discard_card, _discard_card),",
        "DiscardCard: (lambda _s, move: move, _discard_card),",
    ),
    (
        "actions.py",
        "PlayFeedMove: (verify_play_feed_move, _move_cart),",
        "PlayFeedMove: (lambda _s, move: move, _move_cart),",
    ),
    (
        "actions.py",
        "PlayExtraGood: (verify_play_extra_good, _take_extra),",
        "PlayExtraGood: (lambda _s, move: move, _take_extra),",
    ),
    (
        "actions.py",
        "PlayFeedExtraGood: (verify_play_feed_extra_good, _take_extra),",
        "PlayFeedExtraGood: (lambda _s, move: move, _take_extra),",
    ),
    (
        "actions.py",
        "DiscardPile: (verify_discard_dealer_pile, _discard_dealer_pile),",
        "DiscardPile: (lambda _s, move: move, _discard_dealer_pile),",
    ),
)


def _tests() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return list(config["pytest_add_cli_args_test_selection"])


def _cast_only(mutated_source: str) -> set[str]:
    """The mutants of a module (mutmut's copy) whose one change is the type
    in a ``typing.cast``: a no-op at run time, so equivalent."""

    class Blind(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            if isinstance(node.func, ast.Name) and node.func.id == "cast" and node.args:
                node.args[0] = ast.Constant(None)
            return self.generic_visit(node)

    functions = {
        node.name: node
        for node in ast.walk(ast.parse(mutated_source))
        if isinstance(node, ast.FunctionDef) and "__mutmut_" in node.name
    }

    def shape(node: ast.FunctionDef) -> str:
        body = ast.Module(body=list(node.body), type_ignores=[])
        return ast.dump(Blind().visit(copy.deepcopy(body)))

    found = set()
    for name, node in functions.items():
        stem, _, number = name.rpartition("__mutmut_")
        original = functions.get(f"{stem}__mutmut_orig")
        if number.isdigit() and original is not None and shape(node) == shape(original):
            found.add(name)
    return found


def scores() -> int:
    """Print mutants, killed and score per module from mutmut's results."""
    metas = sorted((ROOT / "mutants" / CORE).glob("*.py.meta"))
    if not metas:
        print("no results: run `mutmut run` first", file=sys.stderr)
        return 1
    print(f"{'module':<14}{'mutants':>9}{'killed':>8}{'score':>8}{'cast':>6}{'rest':>8}  survivors")
    for meta in metas:
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        counted = {name: code for name, code in codes.items() if code not in _SKIPPED}
        killed = sum(code in _KILLED for code in counted.values())
        left = [name for name, code in counted.items() if code not in _KILLED]
        cast = _cast_only(meta.with_suffix("").read_text())
        casts = sum(name.rsplit(".", 1)[-1] in cast for name in left)
        by_function = Counter(
            name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
            for name in left
            if name.rsplit(".", 1)[-1] not in cast
        )
        score = 100 * killed / len(counted) if counted else 100.0
        rest = 100 * killed / (len(counted) - casts) if len(counted) > casts else 100.0
        line = f"{meta.name[:-5]:<14}{len(counted):>9}{killed:>8}{score:>7.1f}%{casts:>6}"
        print(
            f"{line}{rest:>7.1f}%  "
            + ", ".join(f"{name} {n}" for name, n in by_function.most_common())
        )
    print("score: killed of all; cast: survivors that change only a cast's type (no-op);")
    print("rest: killed of all but those")
    return 0


def _run_tests(tree: Path, tests: list[str]) -> int:
    """The exit status of the tests run against the source ``tree``; a run
    past ten minutes (a mutant looping for ever) counts as failed."""
    # The copy comes first on the path, before the installed tree; no byte
    # code is kept, so a restored module is never read from its mutant's.
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    try:
        run = subprocess.run(  # noqa: S603 - our own interpreter and test files
            [*command, "-o", "addopts=", *tests],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=False,
            timeout=600,
        )
    except subprocess.TimeoutExpired:
        return 1
    return run.returncode


def skipped() -> int:
    """Run the tests against each hand-made mutant; print the survivors."""
    tests, survivors = _tests(), 0
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "src"
        shutil.copytree(ROOT / "src", tree, ignore=shutil.ignore_patterns("__pycache__"))
        status = _run_tests(tree, tests)
        if status != 0:  # a mutant is only killed by tests that pass without it
            print(f"the tests fail on the unchanged source (exit {status})", file=sys.stderr)
            return 1
        for number, (module, text, mutant) in enumerate(SKIPPED_MUTANTS, 1):
            path = tree / "troedler" / "core" / module
            source = path.read_text()
            if source.count(text) != 1:
                print(f"{number}: {module}: {text!r} is not in it once", file=sys.stderr)
                return 1
            path.write_text(source.replace(text, mutant))
            status = _run_tests(tree, tests)
            path.write_text(source)
            # 1: a test failed; 2: the tests could not even be collected.
            killed = status in (1, 2)
            verdict = "killed" if killed else f"SURVIVED (exit {status})"
            survivors += not killed
            print(f"{number:>2} {module}: {text.strip()!r} -> {mutant.strip()!r}: {verdict}")
    print(f"{len(SKIPPED_MUTANTS) - survivors} of {len(SKIPPED_MUTANTS)} killed")
    return 1 if survivors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("scores", "skipped"))
    return scores() if parser.parse_args().what == "scores" else skipped()


if __name__ == "__main__":
    sys.exit(main())
