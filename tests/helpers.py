"""Building positions for scenario tests without breaking conservation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

import attrs

from troedler import (
    Card,
    GameState,
    Goods,
    Move,
    Phase,
    apply_move,
    check_invariants,
    new_game,
    observe,
    parse_card,
    parse_move,
)
from troedler.bots import GreedyBot
from troedler.cards import card_sort_key
from troedler.pile import Pile
from troedler.state import Turn


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
    """
    base = new_game(players, seed=seed, starting_dealer=seat)
    villages = dict(villages or {})
    others = dict(others or {})
    pool: Counter[Card] = Counter(base.game_round_pile)
    pool.update(base.discard_pile.cards)
    for pile in base.dealer_piles:
        pool.update(pile or ())
    for player in base.players:
        pool.update(player.hand)
    wanted_hands = {s: cards(text) for s, text in others.items()}
    wanted_hands[seat] = cards(hand)
    new_players = list(base.players)
    for s in range(players):
        chosen = wanted_hands.get(s, ())
        missing = Counter(chosen) - pool
        if missing:
            raise ValueError(f"the game has no more {dict(missing)}")
        pool.subtract(chosen)
        new_players[s] = attrs.evolve(new_players[s], hand=tuple(sorted(chosen, key=card_sort_key)))
    player_goods = Goods.parse(goods)
    fixed = {base.board.index(name): Goods.parse(text) for name, text in villages.items()}
    left = [8 - player_goods.counts[g] - sum(v.counts[g] for v in fixed.values()) for g in range(6)]
    if min(left) < 0:
        raise ValueError("more than 8 of one good")
    free = [i for i in range(len(base.board.villages)) if i not in fixed]
    free_cart = cart or base.players[seat].cart
    free = [i for i in free if base.board.villages[i].name != free_cart] or free
    counts = {i: [0] * 6 for i in free}
    turn = 0
    for good in range(6):
        for _ in range(left[good]):
            counts[free[turn % len(free)]][good] += 1
            turn += 1
    village_goods = [
        fixed.get(i, Goods(tuple(counts.get(i, [0] * 6))))  # type: ignore[arg-type]
        for i in range(len(base.board.villages))
    ]
    new_players[seat] = attrs.evolve(
        new_players[seat], goods=player_goods, cart=cart or new_players[seat].cart
    )
    # One reshuffle counted: the discard pile is empty, so the set-up pile is
    # gone (I2), as if the game-round pile had been formed anew from it.
    state = attrs.evolve(
        base,
        shuffles=base.shuffles + 1,
        phase=Phase.PLAY_TURNS,
        current_player=seat,
        dealer=seat,
        dealer_piles=(),
        discard_pile=Pile(),
        game_round_pile=tuple(sorted(pool.elements(), key=card_sort_key)),
        village_goods=tuple(village_goods),
        players=tuple(new_players),
        turn=Turn(),
    )
    check_invariants(state)
    return state


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
    return _GREEDY.choose(seen, seen.legal_moves, rng or random.Random(0))
