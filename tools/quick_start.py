"""README's quick start: its two commands, read from README.md itself.

CI runs them exactly as a newcomer types them, before anything else, so
that the install people make is the one checked first::

    python3 tools/quick_start.py            # print the two commands, one a line
    python3 tools/quick_start.py --check    # exit 1, saying why, unless there are two

The quick start is the first ``sh`` block under the heading ``## Quick
start``: one command installs troedler and runs its main job on its
defaults, the other runs the tests. Anything else there fails, with one
line that says so. Only the standard library is used: this runs before
troedler is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
HEADING = "## Quick start"
COMMANDS = 2
"""How many commands the quick start has: install and run, then test."""


class QuickStartError(Exception):
    """README's quick start is not the two commands it must be."""


def quick_start(text: str) -> list[str]:
    """The commands of the quick start in README's ``text``."""
    _, found, after = text.partition(f"\n{HEADING}\n")
    if not found:
        raise QuickStartError(f"README.md has no '{HEADING}' section")
    section = re.split(r"\n## ", after, maxsplit=1)[0]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    if block is None:
        raise QuickStartError(f"README.md's '{HEADING}' has no sh block")
    lines = [line.strip() for line in block.group(1).splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    if any(line.endswith("\\") for line in commands):
        raise QuickStartError("README.md's quick start continues a command on another line")
    if len(commands) != COMMANDS:
        raise QuickStartError(
            f"README.md's quick start must be exactly {COMMANDS} commands "
            f"(install and run, then test), not {len(commands)}"
        )
    return commands


def main(argv: list[str] | None = None) -> int:
    """Print the quick start's commands, or say in one line why it is wrong."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, print nothing")
    parser.add_argument("--readme", type=Path, default=README, help="the README to read")
    options = parser.parse_args(argv)
    try:
        commands = quick_start(options.readme.read_text(encoding="utf-8"))
    except QuickStartError as error:
        print(f"quick start: {error}", file=sys.stderr)
        return 1
    if not options.check:
        print("\n".join(commands))
    return 0


if __name__ == "__main__":
    sys.exit(main())
