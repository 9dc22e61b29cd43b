"""The site's pictures: drawn here, kept in ``docs/images/``, and checked.

Nothing on the site is drawn by hand. The plots come from the benchmark
results in ``benchmarks/results/`` (through ``benchmarks/plots.py``), so they
show the figures the pages quote; the board and the replay are drawn by
``troedler.svg`` from games played here, so they show the engine the site
documents. The pictures the pages show are kept in ``docs/images/`` so that
the Markdown reads with its pictures on its own too; a test checks that
they are what this module draws now. Run ``python tools/site_hooks.py``
to write them again after a change. The replay page is only on the built
site (an MkDocs hook adds it).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
from mkdocs.structure.files import File, Files

from troedler.bots import GreedyBot, RandomBot, play_game

ROOT = Path(__file__).resolve().parents[1]


def _plots_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "troedler_plots", ROOT / "benchmarks" / "plots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def pictures() -> dict[str, str]:
    """Every generated picture of the site, by its path on the site."""
    drawn = {f"images/{name}": svg for name, svg in _plots_module().plots().items()}
    if importlib.util.find_spec("troedler.svg") is not None:
        drawn.update(game_pictures())
    return drawn


def game_pictures() -> dict[str, str]:
    """The board of a game in progress, and the replay of a whole game."""
    import troedler.svg  # noqa: PLC0415 - only once the pictures exist
    from troedler.server.replay import replay_html  # noqa: PLC0415

    names = ("Ivy", "Jack", "Freya", "Scott")
    bots = [GreedyBot(), RandomBot(), GreedyBot(), RandomBot()]
    middle = play_game(bots, seed=3, max_rounds=3).final
    whole = play_game([GreedyBot(), RandomBot(), GreedyBot()], seed=11).record
    whole = attrs.evolve(whole, seats=names[:3])
    return {
        "images/board.svg": troedler.svg.board(middle, names=names),
        "replays/greedy-random-greedy.html": replay_html(
            whole, title="Greedy, random and greedy bots, seed 11"
        ),
    }


DOCS = ROOT / "docs"


def kept_pictures() -> dict[str, str]:
    """The pictures kept in ``docs/``, by their path there: the pages' images."""
    return {path: svg for path, svg in pictures().items() if path.startswith("images/")}


def on_files(files: Files, config: Any) -> Files:
    for path, content in pictures().items():
        if not path.startswith("images/"):  # those are kept in docs/
            files.append(File.generated(config, path, content=content))
    return files


def main() -> None:
    """Write the pictures the pages show into ``docs/images/``."""
    for path, svg in kept_pictures().items():
        target = DOCS / path
        target.parent.mkdir(exist_ok=True)
        target.write_text(svg, encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
