"""Golden playthroughs: fixed games written out position by position.

Each file under ``tests/golden/`` is one seeded game, its moves chosen by a
seeded random player. For every position it holds the position text, the
legal moves in their order, and what each seat knows of it with perfect
recall and from the table alone (I1-I3). ``tests/test_golden.py`` plays the
same games and compares them with the files line by line, so that any
change of behaviour shows as a diff a person can read.

After a change of the rules that is meant, write the files again and read
the diff before committing it::

    python tools/golden.py            # rewrite tests/golden/*.txt
    python tools/golden.py --check    # exit 1 if a file differs

Each file holds the first :data:`HEAD` and the last :data:`TAIL` moves of its
game, so that it stays a few hundred kilobytes; the files are plain text.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from troedler import (
    UNKNOWN,
    GameState,
    Position,
    apply_move,
    legal_moves,
    new_game,
    observe,
    outcome,
)
from troedler.core.cards import Card
from troedler.core.moves import Move
from troedler.io.position_text import card_codes, position_text
from troedler.seat import Observation, Recall

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"

HEAD = 120
"""Moves written from the start of each game: several rounds, a reshuffle included."""
TAIL = 30
"""Moves written before the end of each game: its last round and the scoring."""
LONGEST = 5_000
"""A game still running after this many moves stops there (none of the golden games does)."""

GAMES = ((2, 11), (3, 12), (4, 13))
"""(players, seed) of each golden game; its moves are drawn by ``random.Random(seed)``."""

RECALLS: tuple[Recall, ...] = ("perfect", "table")


def file_name(players: int, seed: int) -> str:
    """The golden file of the game of ``players`` and ``seed``."""
    return f"{players}p-seed{seed}.txt"


def _seen(cards: Sequence[Card]) -> str:
    """Cards bottom to top, ``?`` (with a count for a run) for each one not known."""
    words: list[str] = []
    known: list[Card] = []
    unknown = 0
    for card in cards:
        if card is UNKNOWN:
            if known:
                words.append(card_codes(known))
                known = []
            unknown += 1
        else:
            if unknown:
                words.append("?" if unknown == 1 else f"?{unknown}")
                unknown = 0
            known.append(card)
    if known:
        words.append(card_codes(known))
    if unknown:
        words.append("?" if unknown == 1 else f"?{unknown}")
    return "".join(words) or "-"


def _stack(position: Position, seat: int, cards: tuple[Card, ...]) -> str:
    return card_codes(cards) if position.knows_hand(seat) else f"?{len(cards)}"


def _public(position: Position) -> dict[str, object]:
    """What every seat sees of ``position`` as it is."""
    return {
        "round": position.round,
        "dealer": position.dealer,
        "phase": position.phase,
        "current_player": position.current_player,
        "shuffles": position.shuffles,
        "village_goods": position.village_goods,
        "turn": position.turn,
        "carts": tuple(p.cart for p in position.players),
        "goods": tuple(p.goods for p in position.players),
        "hand_sizes": tuple(len(p.hand) for p in position.players),
        "value_pile_sizes": tuple(len(p.value_pile) for p in position.players),
        "game_round_pile_size": len(position.game_round_pile),
    }


def view_line(state: GameState, seen: Observation) -> str:
    """What ``seen`` shows of ``state``'s hidden parts, on one line.

    The public fields are written only where they differ from the state's,
    which they never should.
    """
    players = tuple(enumerate(seen.players))
    hands = "/".join(_stack(seen, s, p.hand) for s, p in players)
    values = "/".join(_stack(seen, s, p.value_pile) for s, p in players)
    piles = "/".join("x" if p is None else _seen(p) for p in seen.dealer_piles) or "-"
    line = (
        f"  seat {seen.seat} {seen.recall}: hands={hands} values={values} piles={piles} "
        f"discard={_seen(seen.discard_pile.cards)} moves={len(legal_moves(seen))}"
    )
    expected, shown = _public(state), _public(seen)
    wrong = [name for name in expected if shown[name] != expected[name]]
    if wrong:
        line += " DIFFERS " + " ".join(f"{name}={shown[name]!r}" for name in wrong)
    return line


def _game(players: int, seed: int) -> tuple[list[GameState], list[Move]]:
    """The positions and moves of the golden game, to its end or :data:`LONGEST`."""
    rng = random.Random(seed)  # noqa: S311 (a fixed game, not a secret)
    states = [new_game(players, seed=seed)]
    moves: list[Move] = []
    while not states[-1].is_over and len(moves) < LONGEST:
        listed = legal_moves(states[-1])
        moves.append(listed[rng.randrange(len(listed))])
        states.append(apply_move(states[-1], moves[-1]))
    return states, moves


def playthrough(players: int, seed: int) -> Iterator[str]:
    """The lines of the golden file of the game of ``players`` and ``seed``."""
    states, moves = _game(players, seed)
    yield (
        f"# {players} players, seed {seed}, moves drawn by random.Random({seed}); "
        f"the first {HEAD} and the last {TAIL} moves"
    )
    last = len(states) - 1
    for number, state in enumerate(states):
        if HEAD < number < last - TAIL:
            if number == HEAD + 1:
                yield f"... positions {HEAD + 1} to {last - TAIL - 1} left out ..."
            continue
        yield f"position {number}: {position_text(state)}"
        yield "  legal: " + (", ".join(map(str, legal_moves(state))) or "-")
        for recall in RECALLS:
            for seat in range(players):
                yield view_line(state, observe(state, seat, recall=recall))
        if number < last:
            yield f"move {number}: {moves[number]}"
    final = states[-1]
    if final.is_over:
        result = outcome(final)
        yield (
            f"outcome: damage={list(result.damage)} points={list(result.points)} "
            f"totally_damaged={sorted(result.totally_damaged)} winners={sorted(result.winners)}"
        )
    else:
        yield f"stopped after {LONGEST} moves"


def text(players: int, seed: int) -> str:
    """The whole golden file of the game of ``players`` and ``seed``."""
    return "\n".join(playthrough(players, seed)) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    differ = []
    for players, seed in GAMES:
        path = GOLDEN / file_name(players, seed)
        written = text(players, seed)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != written:
                differ.append(path.name)
        else:
            GOLDEN.mkdir(parents=True, exist_ok=True)
            path.write_text(written, encoding="utf-8")
    for name in differ:
        print(f"{name} differs", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
