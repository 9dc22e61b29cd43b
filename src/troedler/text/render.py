"""Text pictures of a game for the terminal.

:func:`render_screen` draws a position as at most 23 lines of at most 80
characters, so the whole of it and a prompt stay in view: the villages with
their goods and carts, one line per player with the score so far, the hand,
the routes leaving the cart's village, the piles, what others just did, and
the legal moves grouped by kind. :func:`render_scores` is the final table.
:func:`render_observation` lists what a seat knows, line by line.
"""

from __future__ import annotations

import os
import shlex
import textwrap
from collections.abc import Sequence
from typing import TextIO

from troedler.core.board import RouteKind
from troedler.core.cards import Card, RequestCard, RouteCard
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import Good, Goods
from troedler.core.moves import (
    DiscardCard,
    DiscardPile,
    EndTurn,
    Move,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    TakePile,
)
from troedler.core.scoring import outcome, value_pile_tally
from troedler.core.state import GameState, Phase, Position

__all__ = [
    "HEIGHT",
    "WIDTH",
    "Ink",
    "command_lines",
    "group_moves",
    "pile_numbers",
    "plural",
    "render_moves",
    "render_observation",
    "render_scores",
    "render_screen",
    "wants_colour",
    "wrap",
]

WIDTH = 80
HEIGHT = 23
"""Lines a screen may use: one more is left for the prompt."""

_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "reverse": "7",
}
_GOOD_STYLE = {
    Good.ANVIL: "bold",
    Good.BOTTLE: "green",
    Good.CHAIR: "yellow",
    Good.CUP: "cyan",
    Good.POT: "red",
    Good.VASE: "blue",
}
_ROUTE_STYLE = {
    RouteKind.MOUNTAIN_TRAIL: "yellow",
    RouteKind.BRIDGE: "bold",
    RouteKind.FERRY: "blue",
    RouteKind.MOOR_PATH: "green",
}
_SEAT_STYLE = ("red", "blue", "green", "magenta")


def wants_colour(stream: TextIO) -> bool:
    """Whether to colour text for ``stream``: a terminal, not ``TERM=dumb``, no ``NO_COLOR``."""
    return (
        stream.isatty()
        and os.environ.get("TERM", "") not in ("", "dumb")
        and "NO_COLOR" not in os.environ
    )


class Ink:
    """Writes text in a colour, or plainly when colour is off."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, style: str | None) -> str:
        """``text`` in ``style`` (a name of :data:`_CODES`, or several joined by +)."""
        if not self.colour or not style or not text:
            return text
        codes = ";".join(_CODES[part] for part in style.split("+"))
        return f"\x1b[{codes}m{text}\x1b[0m"

    def goods(self, goods: Goods) -> str:
        """Goods as their letters, each in its colour."""
        if not goods:
            return "-"
        return "".join(self(good.code, _GOOD_STYLE[good]) for good in goods)

    def card(self, card: Card) -> str:
        """A card's code (``?`` if not known); route cards in their kind's
        colour, requests' goods coloured."""
        if isinstance(card, RouteCard):
            return self(str(card), _ROUTE_STYLE[card.kind])
        if isinstance(card, RequestCard):
            return f"{self.goods(card.goods)}:{card.points}"
        return str(card)

    def seat(self, seat: int, name: str) -> str:
        """A seat's name in its colour."""
        return self(name, _SEAT_STYLE[seat % len(_SEAT_STYLE)] + "+bold")


class _Line:
    """A line built from pieces, knowing its visible width (colour codes take none)."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.width = 0

    def add(self, shown: str, plain: str) -> _Line:
        self.pieces.append(shown)
        self.width += len(plain)
        return self

    def __str__(self) -> str:
        return "".join(self.pieces)


def _words(ink: Ink, items: Sequence[tuple[str, str]], indent: int, lines: int) -> list[str]:
    """Pieces (shown, plain) flowed into at most ``lines`` lines of :data:`WIDTH`."""
    out: list[_Line] = [_Line()]
    for shown, plain in items:
        line = out[-1]
        if line.width and line.width + 1 + len(plain) > WIDTH:
            if len(out) == lines:
                line.add(ink(" …", "dim"), " …")
                break
            out.append(_Line().add(" " * indent, " " * indent))
            line = out[-1]
        elif line.width:
            line.add(" ", " ")
        line.add(shown, plain)
    return [str(line) for line in out if line.width]


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``: a count and its word in the right number."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def wrap(text: str, indent: int = 2, width: int = WIDTH) -> list[str]:
    """Plain ``text`` in lines of at most ``width``, broken between words only."""
    return textwrap.wrap(
        text,
        width,
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]


def command_lines(intro: str, command: Sequence[str], width: int = WIDTH) -> list[str]:
    """``intro`` and a shell ``command`` (its words), in lines of at most
    ``width`` wherever the words allow.

    The intro is wrapped between words. The command follows it on its last
    line if it fits there; else it starts a line of its own, indented, and
    goes on to the next line after `` \\``, so that it can be copied as it
    stands. A word too long for an indented line (a long file name) stands
    alone at the start of its line.

    >>> command_lines("Watch it again with:", ["troedler", "replay", "game.json"])
    ['Watch it again with: troedler replay game.json']
    >>> for line in command_lines("Continue it with:", ["troedler", "play", "--resume", "a" * 70]):
    ...     print(line)
    Continue it with:
      troedler play --resume \\
      aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
    """
    lines = wrap(intro, indent=0, width=width)
    words = [shlex.quote(word) for word in command]
    text = " ".join(words)
    if len(lines[-1]) + 1 + len(text) <= width:
        lines[-1] = f"{lines[-1]} {text}"
        return lines
    indent = "  "
    more = " \\"  # the shell reads the next line as more of the command
    line = indent + words[0]
    for number, word in enumerate(words[1:], start=2):
        room = 0 if number == len(words) else len(more)
        if len(line) + 1 + len(word) + room <= width:
            line = f"{line} {word}"
            continue
        lines.append(line + more)
        line = (indent if len(indent) + len(word) + room <= width else "") + word
    lines.append(line)
    return lines


def _shorten(text: str, width: int = WIDTH) -> str:
    """``text`` cut at a word to fit ``width``, the cut marked with an ellipsis."""
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width - 1)
    return text[: cut if cut > 0 else width - 1].rstrip() + "…"


def _mover_text(position: Position, names: Sequence[str], you: int | None = None) -> str:
    if position.phase is Phase.GAME_OVER:
        return "game over"
    seat = position.current_player
    mine = seat is not None and seat == you
    who = names[seat] if seat is not None else "-"
    if position.phase is Phase.TAKE_PILES:
        return "you take a dealer pile" if mine else f"{who} to take a dealer pile"
    due = position.turn.discards_due
    if due:
        return f"{'you discard' if mine else who + ' discards'} {due} more"
    return "your turn" if mine else f"{who} to play"


def pile_numbers(moves: Sequence[Move]) -> bool:
    """Whether ``moves`` are all pile moves of one kind, numbered by their pile.

    Then a typed ``1`` means pile 1, never the first pile listed.
    """
    return bool(moves) and (
        all(isinstance(m, TakePile) for m in moves)
        or all(isinstance(m, DiscardPile) for m in moves)
    )


def group_moves(moves: Sequence[Move]) -> list[tuple[str, list[tuple[int, Move]]]]:
    """The moves in groups by kind, each move with its number from 1.

    Numbers follow the groups' order, so the moves read in the order shown;
    when every move takes (or discards) a dealer pile, its number is the
    pile's own (see :func:`pile_numbers`).
    """
    kinds = (
        ("take", (TakePile,)),
        ("discard", (DiscardPile,)),
        ("route", (PlayRoute,)),
        ("feed", (PlayFeedMove,)),
        ("good", (PlayExtraGood, PlayFeedExtraGood)),
        ("deliver", (PlayRequest,)),
        ("discard", (DiscardCard,)),
        ("end", (EndTurn,)),
    )
    groups: list[tuple[str, list[Move]]] = [
        (name, [m for m in moves if isinstance(m, types)]) for name, types in kinds
    ]
    numbered: list[tuple[str, list[tuple[int, Move]]]] = []
    number = 0
    by_pile = pile_numbers(moves)
    for name, members in groups:
        if members:
            numbered.append((name, []))
            for move in members:
                number += 1
                own = move.pile if by_pile and isinstance(move, TakePile | DiscardPile) else number
                numbered[-1][1].append((own, move))
    return numbered


def _move_pieces(ink: Ink, name: str, members: list[tuple[int, Move]]) -> list[tuple[str, str]]:
    """A group's moves as pieces; moves to one village share its name once."""
    pieces: list[tuple[str, str]] = []
    last_to: tuple[object, str] | None = None
    for number, move in members:
        tag = ink(f"{number})", "bold")
        if isinstance(move, PlayRoute | PlayFeedMove):
            kind = move.kind if isinstance(move, PlayRoute) else None
            if last_to != (kind, move.to):
                last_to = (kind, move.to)
                word = kind.code if kind is not None else "feed"
                style = _ROUTE_STYLE[kind] if kind is not None else None
                pieces.append((f"{ink(word, style)}→{move.to}", f"{word}→{move.to}"))
            take = f"+{move.take.code}" if move.take is not None else "·"
            shown_take = ink(take, _GOOD_STYLE[move.take]) if move.take is not None else take
            pieces.append((f"{tag}{shown_take}", f"{number}){take}"))
        elif isinstance(move, PlayExtraGood | PlayFeedExtraGood):
            word = "extra" if isinstance(move, PlayExtraGood) else "feed"
            good = move.good
            pieces.append(
                (
                    f"{tag} {word} {ink('+' + good.code, _GOOD_STYLE[good])}",
                    f"{number}) {word} +{good.code}",
                )
            )
        elif isinstance(move, PlayRequest):
            text = str(move).removeprefix("deliver ")
            pieces.append((f"{tag} {text}", f"{number}) {text}"))
        elif isinstance(move, DiscardCard):
            pieces.append((f"{tag} {ink.card(move.card)}", f"{number}) {move.card}"))
        elif isinstance(move, TakePile | DiscardPile):
            pieces.append((f"{tag} pile {move.pile}", f"{number}) pile {move.pile}"))
        else:
            pieces.append((f"{tag} {move}", f"{number}) {move}"))
    return pieces


def _player_lines(ink: Ink, position: Position, names: Sequence[str], you: int | None) -> list[str]:
    lines = []
    width = max(len(n) for n in names)
    played = position.turn.played
    for seat, player in enumerate(position.players):
        marker = "▶" if seat == position.current_player else " "
        name = names[seat].ljust(width)
        known = position.knows_hand(seat)
        pile = player.value_pile
        if seat == position.current_player:
            # What this turn has done already counts: feed spent, requests delivered.
            pile += played
        goods = player.goods
        tally = value_pile_tally(pile, len(goods)) if known else None
        score = (
            " ?pts  ?dmg ?req"
            if tally is None
            else f"{tally.points:>2}pts {tally.damage:>2}dmg {len(tally.request_points)}req"
        )
        hand = player.hand
        if seat == you:
            held = "your hand is below"
        elif not known:
            held = f"hand {plural(len(hand), 'card')}"
        else:
            held = "hand " + (" ".join(str(c) for c in hand) or "-")
        pad = " " * max(0, 7 - len(goods))
        plain = f"{marker}{name} {player.cart:<13} {goods!s}{pad} {score} {held}"
        shown = (
            f"{marker}{ink.seat(seat, name)} {player.cart:<13} {ink.goods(goods)}{pad} "
            f"{score} {held}"
        )
        if len(plain) > WIDTH:  # the hand, plain text at the end, is shortened at a card
            kept = _shorten(held, WIDTH - (len(plain) - len(held)))
            shown = shown[: len(shown) - len(held)] + kept
        lines.append(shown)
    return lines


_GOODS_WIDTH = 6
"""Goods shown of a village in the map (more: the first five and a +)."""

_COLUMNS = (26, 27, 27)
"""The map's column widths: a village of 13 letters, 6 goods and all four
carts (``@0123``) fits each, and the three fit 80 columns."""


def render_screen(
    position: Position,
    names: Sequence[str],
    *,
    colour: bool = False,
    you: int | None = None,
    moves: Sequence[Move] = (),
    heading: str = "",
    recent: str = "",
    message: str = "",
) -> str:
    """``position`` (a :class:`~troedler.GameState` or a seat's
    :class:`~troedler.Observation`) as at most :data:`HEIGHT` lines of at most
    :data:`WIDTH` characters.

    ``you`` is the seat the screen is drawn for (its hand and routes are
    shown); ``moves`` its legal moves, drawn grouped and numbered as
    :func:`group_moves` numbers them; ``recent`` what happened since;
    ``message`` a last line, such as the reason a move was refused.
    """
    if not isinstance(position, Position):
        raise ConfigurationError(f"expected a GameState or an Observation, got {quote(position)}")
    ink = Ink(colour)
    lines: list[str] = []
    dealer = "you" if position.dealer == you else names[position.dealer]
    title = f"Round {position.round} · dealer {dealer} · {_mover_text(position, names, you)}"
    if heading:
        title = f"{heading} · {title}"
    lines.append(ink(_shorten(title), "bold"))
    here: dict[str, list[int]] = {}
    for seat, player in enumerate(position.players):
        here.setdefault(player.cart, []).append(seat)
    cells = []
    for village, goods in zip(position.board.villages, position.village_goods, strict=True):
        if len(goods) <= _GOODS_WIDTH:
            text, shown_goods = str(goods), ink.goods(goods)
        else:
            text = shown_goods = str(goods)[: _GOODS_WIDTH - 1] + "+"
        carts = "".join(str(s) for s in here.get(village.name, []))
        shown_carts = "".join(
            ink(str(s), _SEAT_STYLE[s % 4] + "+bold") for s in here.get(village.name, [])
        )
        plain = f" {village.name:<13} {text:<{_GOODS_WIDTH}} {'@' + carts if carts else ''}"
        shown = (
            f" {village.name:<13} {shown_goods}{' ' * (_GOODS_WIDTH - len(text))} "
            f"{'@' + shown_carts if carts else ''}"
        )
        cells.append((shown, plain))
    rows = -(-len(cells) // 3)
    for r in range(rows):
        line = ""
        for c in range(3):
            k = r + c * rows
            if k < len(cells):
                shown, plain = cells[k]
                if c == 0:  # the screen's edge needs no space before the first column
                    shown, plain = shown[1:], plain[1:]
                line += shown + (" " * (_COLUMNS[c] - len(plain)) if c < 2 else "")
        lines.append(line.rstrip())
    lines.extend(_player_lines(ink, position, names, you))
    if you is not None:
        hand = position.players[you].hand
        shown = " ".join(ink.card(card) for card in hand) or "no cards"
        lines.append(f"Your hand: {shown}")
        cart = position.players[you].cart
        board = position.board
        pieces = [(ink("Routes from " + cart + ":", "bold"), f"Routes from {cart}:")]
        for route in board.routes:
            if cart in route.ends:
                there = route.ends[1] if route.ends[0] == cart else route.ends[0]
                goods = position.village_goods[board.index(there)]
                word = route.kind.code
                pieces.append(
                    (
                        f"{ink(word, _ROUTE_STYLE[route.kind])}→{there} ({ink.goods(goods)})",
                        f"{word}→{there} ({goods})",
                    )
                )
        lines.extend(_words(ink, pieces, 2, 2))
    if position.dealer_piles:
        pieces = [("Dealer piles:", "Dealer piles:")]
        for k, pile in enumerate(position.dealer_piles):
            if pile is None:
                pieces.append((f"{k}: gone ·", f"{k}: gone ·"))
            else:
                shown = " ".join(ink.card(c) for c in pile) or "empty"
                plain = " ".join(map(str, pile)) or "empty"
                pieces.append((f"{ink(str(k), 'bold')}: {shown} ·", f"{k}: {plain} ·"))
        lines.extend(_words(ink, pieces, 2, 2))
    discard_top = position.discard_pile.top
    top = ink.card(discard_top) if discard_top is not None else "-"
    played, due = position.turn.played, position.turn.discards_due
    pile_line = (
        f"Discard pile {plural(len(position.discard_pile), 'card')}, top {top}; "
        f"game-round pile {len(position.game_round_pile)}"
    )
    if played:
        words = [(w, w) for w in pile_line.split(" ")]
        words[-1] = (words[-1][0] + ";", words[-1][1] + ";")
        words.append(("played now:", "played now:"))
        words.extend((ink.card(c), str(c)) for c in played)
        lines.extend(_words(ink, words, 2, 2))
    else:
        lines.append(pile_line)
    if you is not None and due and position.current_player == you:
        rule = (
            f"Over the hand limit (T7): you discard {due} more, in hand order: only "
            "cards from the last one discarded onward may go."
        )
        lines.extend(ink(line, "bold") for line in wrap(rule))
    if recent:
        lines.extend(_words(ink, [(word, word) for word in recent.split(" ")], 2, 2))
    message_lines = wrap(message) if message else []
    if len(message_lines) > 2:  # shortened on purpose, the cut marked
        message_lines = [message_lines[0], _shorten(message_lines[1] + " " + message_lines[2])]
    room = HEIGHT - len(lines) - len(message_lines)
    if moves:
        move_lines: list[str] = []
        for name, members in group_moves(moves):
            label = f"{name:<8}"
            pieces = [(ink(label, "bold"), label), *_move_pieces(ink, name, members)]
            move_lines.extend(_words(ink, pieces, 9, 3))
        if len(move_lines) > room:
            move_lines = move_lines[: max(0, room - 1)]
            move_lines.append(ink(f"… {len(moves)} moves in all: 'moves' lists them", "dim"))
        lines.extend(move_lines)
    lines.extend(message_lines)
    return "\n".join(lines)


def render_scores(
    state: GameState, names: Sequence[str], colour: bool = False, you: int | None = None
) -> str:
    """The final scoring table of a finished game, its columns explained;
    ``you`` is the seat of the person reading it."""
    ink = Ink(colour)
    result = outcome(state)
    width = max(6, *(len(n) for n in names))
    lines = [
        ink(
            f"{'player':<{width}} {'feed':>4} {'goods':>5} {'requests':<18} "
            f"{'damage':>6} {'total':>5} {'points':>6}",
            "bold",
        )
    ]
    for seat, tally in enumerate(result.tallies):
        requests = "+".join(str(p) for p in tally.request_points) or "-"
        mark = "  winner" if seat in result.winners else ""
        lines.append(
            f"{ink.seat(seat, names[seat].ljust(width))} {tally.feed_used:>4} "
            f"{tally.goods_held:>5} {requests:<18} {result.damage[seat]:>6} "
            f"{'yes' if seat in result.totally_damaged else '':>5} {result.points[seat]:>6}{mark}"
        )
    lines.append(
        "feed: special feed used; goods: goods still held; requests: points of each\n"
        "fulfilled goods request; damage: feed + half the goods, rounded up; total: total\n"
        "damage (the most damage alone; it cannot win); points: requests + one per good."
    )
    winners = ", ".join(
        "you" if s == you else f"seat {s} ({names[s]})" for s in sorted(result.winners)
    )
    lines.append(f"Winner{'' if len(result.winners) == 1 else 's'}: {winners}")
    return "\n".join(lines)


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards)) or "-"


def render_observation(seen: Position, names: Sequence[str]) -> str:
    """What a position shows (a seat's :class:`~troedler.Observation`: what that
    seat knows), as lines of text."""
    lines = [f"Round {seen.round}, dealer {names[seen.dealer]}, {seen.phase.value}"]
    carts: dict[str, list[str]] = {}
    for seat, player in enumerate(seen.players):
        carts.setdefault(player.cart, []).append(names[seat])
    lines.append("Villages (goods; carts):")
    for village, goods in zip(seen.board.villages, seen.village_goods, strict=True):
        here = ", ".join(carts.get(village.name, []))
        lines.append(f"  {village.name:<14} {goods!s:<8} {here}")
    if any(pile is not None for pile in seen.dealer_piles):
        lines.append("Dealer piles (bottom to top, ? unknown):")
        for i, pile in enumerate(seen.dealer_piles):
            lines.append(f"  pile {i}: " + ("gone" if pile is None else _cards(pile)))
    top = seen.discard_pile.top
    lines.append(
        f"Discard pile: {plural(len(seen.discard_pile), 'card')}, top {top if top else '-'}; "
        f"game-round pile: {plural(len(seen.game_round_pile), 'card')}"
    )
    lines.append("Players:")
    for seat, (name, player) in enumerate(zip(names, seen.players, strict=True)):
        known = seen.knows_hand(seat)
        shown = _cards(player.hand) if known else plural(len(player.hand), "card")
        value = _cards(player.value_pile) if known else plural(len(player.value_pile), "card")
        marker = "*" if seat == seen.current_player else " "
        lines.append(
            f" {marker}{name:<12} goods {player.goods!s:<8} hand {shown}; value pile {value}"
        )
    turn = seen.turn
    if turn.played:
        lines.append(f"Played this turn: {_cards(turn.played)}")
    if turn.discards_due and seen.current_player is not None:
        lines.append(
            f"Over the hand limit: {names[seen.current_player]} must discard "
            f"{turn.discards_due} more"
        )
    return "\n".join(lines)


def render_moves(moves: Sequence[Move]) -> str:
    """The legal moves, numbered from 1, with their notation."""
    return "\n".join(f"  {i:>3}. {move}" for i, move in enumerate(moves, start=1))
