"""Building positions for scenario tests without breaking conservation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from troedler import (
    Card,
    GameState,
    Goods,
    Move,
    apply_move,
    from_position_text,
    legal_moves,
    new_game,
    observe,
    parse_card,
    parse_move,
    position_text,
)
from troedler.bots import GreedyBot
from troedler.core.cards import card_sort_key, sort_hand
from troedler.core.invariants import cards_in_state
from troedler.io.position_text import card_codes


def cards(text: str) -> tuple[Card, ...]:
    """Cards from their codes: ``cards("bridge feed AAA:6")``."""
    return tuple(parse_card(word) for word in text.split())


def hand(text: str) -> tuple[Card, ...]:
    """Cards from their codes, in the order a hand keeps them."""
    return tuple(sorted(cards(text), key=card_sort_key))


def position(
    *,
    players: int = 4,
    seed: int = 0,
    seat: int = 0,
    cart: str | None = None,
    hand: str = "",
    goods: str = "",
    villages: Mapping[str, str] | None = None,
    others: Mapping[int, str] | None = None,
) -> GameState:
    """A turns-phase state in which ``seat`` (also the dealer) is to play.

    ``hand`` and ``goods`` are the seat's cards and goods in notation;
    ``villages`` fixes the goods of some villages; ``others`` gives other
    seats' hands. Cards come out of the game-round pile and goods out of
    villages not named, so every card and good of the game stays in play.
    The state is read from the position text made here (docs/format.md):
    ``position_text(state)`` shows it whole.
    """
    base = new_game(players, seed=seed, starting_dealer=seat)
    fields = dict(word.split("=", 1) for word in position_text(base).split())
    pool = cards_in_state(base)
    for player in base.players:
        pool.subtract(player.value_pile)
    wanted = {s: cards(text) for s, text in (others or {}).items()} | {seat: cards(hand)}
    seats = []
    for s, player in enumerate(base.players):
        chosen = wanted.get(s, ())
        missing = Counter(chosen) - pool
        if missing:
            raise ValueError(f"the game has no more {dict(missing)}")
        pool.subtract(chosen)
        cart_of = (cart or player.cart) if s == seat else player.cart
        goods_of = goods if s == seat else "-"
        seats.append(f"{cart_of}:{card_codes(chosen)}:{Goods.parse(goods_of)}:-")
    board = base.board
    fixed = {board.index(name): str(Goods.parse(text)) for name, text in (villages or {}).items()}
    taken = Counter(str(Goods.parse(goods)).strip("-")) + Counter(
        "".join(fixed.values()).replace("-", "")
    )
    rest = "".join(letter * (8 - taken[letter]) for letter in "ABCUPV")
    if any(taken[letter] > 8 for letter in taken):
        raise ValueError("more than 8 of one good")
    free = [i for i in range(len(board.villages)) if i not in fixed]
    free = [i for i in free if board.villages[i].name != (cart or base.players[seat].cart)] or free
    dealt = {i: rest[k :: len(free)] for k, i in enumerate(free)}
    fields.update(
        # One reshuffle counted: the discard pile is empty, so the set-up
        # pile is gone (I2), as if the game-round pile had been formed anew.
        shuffles=str(base.shuffles + 1),
        phase="play_turns",
        dealer=str(seat),
        to_move=str(seat),
        pile=card_codes(sort_hand(pool.elements())),
        piles="-",
        discard="-",
        villages="/".join(
            fixed.get(i) or str(Goods.parse(dealt.get(i, ""))) for i in range(len(board.villages))
        ),
        seats="/".join(seats),
    )
    return from_position_text(" ".join(f"{key}={value}" for key, value in fields.items()))


def play(state: GameState, *moves: str) -> GameState:
    """The state after the moves written in notation."""
    for text in moves:
        state = apply_move(state, parse_move(text, state))
    return state


def goods_of(text: str) -> Goods:
    """Goods from their letters."""
    return Goods.parse(text)


_GREEDY = GreedyBot()


def greedy_move(state: GameState, rng: random.Random | None = None) -> Move:
    """The bundled greedy bot's move for whoever is to move in ``state``."""
    seat = state.current_player
    assert seat is not None, "the game is over"
    seen = observe(state, seat)
    return _GREEDY.choose(seen, legal_moves(state), rng or random.Random(0))


def forged(record: type, /, **fields: object) -> Any:
    """A ``record`` with ``fields`` set past its constructor, whose checks
    would refuse them: what a careless or hostile caller can build, and the
    engine's checks must refuse in turn."""
    made = object.__new__(record)
    for name, value in fields.items():
        object.__setattr__(made, name, value)
    return made
