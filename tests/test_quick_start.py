"""README's quick start is two commands, and after its install alone every
other command README lists either runs or says in one line which extra to
install.

CI runs the quick start itself, read from README.md, in a fresh venv with
only its install (``.ci/run``); there these tests meet the missing extras
for real. With every extra installed, the extras' packages are hidden from
the command's process, so that it meets the quick start's install here too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import missing_after

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "quick_start.py"

QUICK_INSTALL = "test"
"""The extra README's first command installs."""


def _quick_start(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_readmes_quick_start_is_two_commands_install_and_run_then_test() -> None:
    done = _quick_start()
    assert done.returncode == 0, done.stderr
    install, test = done.stdout.splitlines()
    assert f"pip install -e '.[{QUICK_INSTALL}]'" in install and "troedler simulate" in install
    assert test == ".venv/bin/python -m pytest"


@pytest.mark.parametrize(
    "block",
    ["python3 -m venv .venv\n", "a\nb\nc\n", "a \\\n  b\nc\n"],
    ids=["one", "three", "continued"],
)
def test_a_quick_start_of_other_than_two_commands_fails_in_one_line(
    block: str, tmp_path: Path
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n## Quick start\n\n```sh\n{block}```\n\n## Next\n")
    done = _quick_start("--check", "--readme", str(readme))
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "quick start" in done.stderr


HIDE = """\
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # import fails, find_spec answers None: not installed
from troedler.cli import main
sys.exit(main(sys.argv[2:]))
"""


def troedler(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``troedler ARGS`` as after README's install alone."""
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PYTHONPATH"] = str(ROOT / "src")
    return subprocess.run(
        [sys.executable, "-c", HIDE, ",".join(sorted(missing_after(QUICK_INSTALL))), *args],
        input=stdin, capture_output=True, text=True, timeout=300, cwd=cwd, env=env, check=False,
    )  # fmt: skip


ONE_LINE = re.compile(r"^troedler: .* needs the ([\w-]+) extra: pip install -e '\.\[\1\]'\n$")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    done = troedler(
        "simulate", "--games", "1", "--players", "2", "--out", "games.jsonl", cwd=folder
    )
    assert done.returncode == 0, done.stderr
    return folder / "games.jsonl"


# Each command of README's list, as README gives it, and what it needs typed.
COMMANDS: dict[str, tuple[list[str], str]] = {
    "troedler play": (["play", "--seed", "1", "--players", "2"], "quit\n"),
    "troedler play --browser": (["play", "--browser", "--seed", "1"], ""),
    "troedler serve": (["serve"], ""),
    "troedler simulate --help": (["simulate", "--help"], ""),
    "troedler replay": (["replay", "{record}"], ""),
    "troedler replay --html": (["replay", "{record}", "--html", "game.html"], ""),
    "troedler demo": (["demo"], ""),
}


def test_every_command_readme_lists_is_tried_here() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = readme.split("Other commands:", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^- `(troedler [^`]*)`", listed, flags=re.MULTILINE))
    named |= {"troedler replay --html"} if "`--html OUT.html`" in listed else set()
    assert {re.sub(r" FILE.*", "", text) for text in named} <= set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_runs_after_the_quick_starts_install_or_names_its_extra(
    command: str, record: Path, tmp_path: Path
) -> None:
    args, typed = COMMANDS[command]
    done = troedler(*(arg.format(record=record) for arg in args), cwd=tmp_path, stdin=typed)
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:
        assert done.stdout.strip(), f"{command} printed nothing"
        return
    needs = ONE_LINE.match(done.stderr)
    assert done.returncode == 2 and needs, f"{command}: {done.returncode} {done.stderr!r}"
    assert needs.group(1) != QUICK_INSTALL
