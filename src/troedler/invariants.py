"""The checks of a position: what no game can reach (the invariants).

:func:`check_invariants` raises on a state that breaks them, :func:`problems`
lists what is wrong as sentences. The records themselves live in
:mod:`troedler.state` and check nothing when they are built: the engine
builds a state or two at every move, and states come in from outside only
through the readers, which check here. The facts of the rules the checks
rest on (who takes the next pile, which card may be discarded next, goods
conservation) are :mod:`troedler.rulebook`'s, the same the actions ask.
"""

from __future__ import annotations

import functools
from collections import Counter

from troedler.board import Board
from troedler.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    SpecialFeedCard,
    card_sort_key,
    hand_count,
    sort_hand,
)
from troedler.errors import TroedlerError, quote, some_of
from troedler.goods import GOODS_PER_KIND, Goods
from troedler.limits import MAX_ROUNDS, MAX_SEED, MAX_SHUFFLES, MIN_SEED
from troedler.rulebook import (
    MAX_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PILE_SIZE,
    SETUP_SHUFFLES,
    VALUE_PILE_TYPES,
    discard_candidates,
    goods_per_kind,
    goods_problem,
    most_carried,
    most_shuffles,
    next_to_take,
    pile_count,
    pile_takes,
    round_cards,
    setup_portion,
    taker,
)
from troedler.rules import Rules
from troedler.state import NO_TURN, GameState, Phase, PlayerState, Turn

__all__ = [
    "cards_in_play",
    "cards_in_state",
    "check_invariants",
    "hand_size_problems",
    "pending_discard_problem",
    "problems",
    "setup_goods_problem",
    "taker_problem",
]


def cards_in_play(cards: CardCatalogue, board: Board, num_players: int) -> Counter[Card]:
    """Every card a game of ``num_players`` uses: the deck and the seats' starting sets."""
    return Counter(dict(_cards_in_play(cards, board, num_players)))


@functools.lru_cache(maxsize=32)
def _cards_in_play(
    cards: CardCatalogue, board: Board, num_players: int
) -> tuple[tuple[Card, int], ...]:
    # Search bots deal unknown cards thousands of times a move: count once.
    counter: Counter[Card] = Counter(cards.routes)
    counter.update(cards.requests)
    counter[SPECIAL_FEED] += cards.special_feed
    counter[EXTRA_GOOD] += cards.extra_goods
    for seat in range(num_players):
        counter.update(cards.starting_set(board.start_village(seat, num_players)).cards)
    return tuple(counter.items())


def cards_in_state(state: GameState) -> Counter[Card]:
    """Every card of ``state``, wherever it lies: piles, hands, value piles, the turn."""
    counter: Counter[Card] = Counter(state.game_round_pile)
    counter.update(state.discard_pile.cards)
    counter.update(state.turn.played)
    for pile in state.dealer_piles:
        counter.update(pile or ())
    for player in state.players:
        counter.update(player.hand)
        counter.update(player.value_pile)
    return counter


def check_invariants(state: GameState) -> None:
    """Raise :class:`TroedlerError` if ``state`` is not a position a game can reach.

    A state is reachable-shaped when every field holds values of its type
    (tuples, not lists), the seed, round and shuffle count lie in the domain
    of :mod:`troedler.limits`, the 48 goods (8 of each kind) are all in
    villages or with players, every card of the game is in exactly one
    place, phase, seats and piles agree, every hand is no larger than the
    hand limit (T7) and the piles taken (R4) allow at that moment, and,
    until the first reshuffle, the bottom of the discard pile is the set-up
    pile of S5: exactly its goods requests and special feed (I2).

    The state readers and writers and the tests all check with this, so a
    state that passes can be written, read back and played on.
    """
    found = problems(state)
    if found:
        raise TroedlerError("state breaks its invariants: " + some_of(found, 3, separator="; "))


def problems(state: GameState) -> list[str]:
    """What is wrong with ``state`` as a position of the game: empty if nothing.

    The facts :func:`check_invariants` checks, as sentences.
    """
    shape = _shape_problem(state)
    if shape is not None:
        return [shape]
    problems = []
    n = state.num_players
    if n != state.rules.num_players:
        problems.append(f"{n} players but rules for {state.rules.num_players}")
    if len(state.village_goods) != len(state.board.villages):
        problems.append("village_goods does not match the board")
    places = cards_in_state(state)
    for seat, player in enumerate(state.players):
        for name, cards in (("hand", player.hand), ("value pile", player.value_pile)):
            if list(cards) != sorted(cards, key=card_sort_key):
                problems.append(f"the {name} of seat {seat} is not in hand order")
        if any(not isinstance(card, VALUE_PILE_TYPES) for card in player.value_pile):
            problems.append(
                f"the value pile of seat {seat} holds a card other than feed or requests"
            )
        if not state.board.has_village(player.cart):
            problems.append(f"a cart stands on unknown village {quote(player.cart)}")
    expected = cards_in_play(state.cards, state.board, n)
    if places != expected:
        extra = places - expected
        missing = expected - places
        problems.append(
            f"cards differ from the game's: extra {some_of(sorted(map(str, extra.elements())))}, "
            f"missing {some_of(sorted(map(str, missing.elements())))}"
        )
    problems.extend(_reachability_problems(state))
    if not 0 <= state.dealer < n:
        problems.append(f"dealer {state.dealer} is not a seat")
    if state.phase is Phase.GAME_OVER or state.phase.is_chance:
        if state.current_player is not None:
            problems.append(f"no player is to move in the {state.phase.value} phase")
    elif state.current_player is None or not 0 <= state.current_player < n:
        problems.append(f"current player {state.current_player} is not a seat")
    if state.phase is Phase.TAKE_PILES:
        if len(state.dealer_piles) != pile_count(n):
            problems.append(f"{len(state.dealer_piles)} dealer piles, not {pile_count(n)}")
        elif any(pile is not None and len(pile) > PILE_SIZE for pile in state.dealer_piles):
            problems.append(f"a dealer pile holds more than {PILE_SIZE} cards")
        else:
            found = taker_problem(
                state.rules, state.dealer, state.current_player, state.dealer_piles.count(None)
            )
            if found:
                problems.append(found)
    elif state.phase is Phase.FORM_PILES:
        if len(state.dealer_piles) != pile_count(n):
            problems.append(f"{len(state.dealer_piles)} dealer piles, not {pile_count(n)}")
    elif state.dealer_piles:
        problems.append("dealer piles lie on the table outside the take-piles phase")
    if state.phase is not Phase.PLAY_TURNS and state.turn != NO_TURN:
        problems.append("a turn is under way outside the turns phase")
    turn = state.turn
    if turn.discards_due:
        if turn.played or turn.delivered_to:
            problems.append("discards are due, yet the turn still holds played cards")
    elif turn.last_discard is not None:
        problems.append("a last discard is recorded, yet no discard is due")
    return problems


def _cards_problem(cards: object, name: str) -> str | None:
    if type(cards) is not tuple:
        return f"{name} must be a tuple of cards, not {type(cards).__name__}"
    for card in cards:
        if type(card) not in CARD_TYPES:
            return f"{name} holds {quote(card)}, which is not a card"
    return None


def _int_problem(value: object, name: str, low: int, high: int) -> str | None:
    if type(value) is not int or not low <= value <= high:
        return f"{name} must be an int {low} to {high}, not {quote(value)}"
    return None


def _shape_problem(state: object) -> str | None:
    """The first field of ``state`` that does not hold a value of its type.

    Values are checked here, at the trust boundary, and not when a state is
    built: the engine builds one or two states a move, and checking their
    fields there would slow every move.
    """
    if not isinstance(state, GameState):
        return f"expected a GameState, got {quote(state)}"
    for name, kind in (("rules", Rules), ("board", Board), ("cards", CardCatalogue)):
        if not isinstance(getattr(state, name), kind):
            return f"{name} must be a {kind.__name__}, not {quote(getattr(state, name))}"
    found = (
        _int_problem(state.seed, "seed", MIN_SEED, MAX_SEED)
        or _int_problem(state.shuffles, "shuffles", 0, MAX_SHUFFLES)
        or _int_problem(state.round, "round", 1, MAX_ROUNDS)
        or _int_problem(state.dealer, "dealer", 0, 3)
        or _cards_problem(state.game_round_pile, "the game-round pile")
    )
    if found:
        return found
    if not isinstance(state.phase, Phase):
        return f"phase must be a Phase, not {quote(state.phase)}"
    if state.current_player is not None and type(state.current_player) is not int:
        return f"current_player must be a seat or None, not {quote(state.current_player)}"
    if type(state.dealer_piles) is not tuple:
        return "dealer_piles must be a tuple"
    for pile in state.dealer_piles:
        found = None if pile is None else _cards_problem(pile, "a dealer pile")
        if found:
            return found
    discard = state.discard_pile
    try:
        found = _cards_problem(discard.cards, "the discard pile")
        if not found and len(discard) != len(discard.cards):
            found = "the discard pile's size is not its number of cards"
    except (AttributeError, TypeError):
        found = f"discard_pile must be a Pile, not {quote(discard)}"
    if found:
        return found
    goods = state.village_goods
    if type(goods) is not tuple or not all(isinstance(g, Goods) for g in goods):
        return "village_goods must be a tuple of Goods"
    if type(state.players) is not tuple or not MIN_PLAYERS <= len(state.players) <= MAX_PLAYERS:
        return f"players must be a tuple of {MIN_PLAYERS} to {MAX_PLAYERS} PlayerState"
    for seat, player in enumerate(state.players):
        if not isinstance(player, PlayerState):
            return f"players[{seat}] must be a PlayerState, not {quote(player)}"
        found = (
            _cards_problem(player.hand, f"the hand of seat {seat}")
            or _cards_problem(player.value_pile, f"the value pile of seat {seat}")
            or (None if isinstance(player.goods, Goods) else f"the goods of seat {seat}")
            or (None if isinstance(player.cart, str) else f"the cart of seat {seat}")
        )
        if found:
            return found
    turn = state.turn
    if not isinstance(turn, Turn):
        return f"turn must be a Turn, not {quote(turn)}"
    found = _cards_problem(turn.played, "the cards played this turn")
    if found:
        return found
    if type(turn.delivered_to) is not tuple or not all(
        isinstance(village, str) for village in turn.delivered_to
    ):
        return "turn.delivered_to must be a tuple of village names"
    found = _int_problem(turn.discards_due, "turn.discards_due", 0, MAX_CARDS)
    if found:
        return found
    if turn.last_discard is not None and type(turn.last_discard) not in CARD_TYPES:
        return f"turn.last_discard must be a card or None, not {quote(turn.last_discard)}"
    return None


def _reachability_problems(state: GameState) -> list[str]:
    """What no game can reach: goods, hands, the set-up pile and the turn (C1,
    S5, R4, T4, T7, I2)."""
    found = []
    rules = state.rules
    setting_up = state.phase is Phase.SET_UP
    counts = goods_per_kind((*state.village_goods, *(p.goods for p in state.players)))
    goods = goods_problem(counts, in_bag=setting_up)
    if goods:
        found.append(goods)
    found.extend(_chance_problems(state, counts))
    if state.shuffles != 0 if setting_up else state.shuffles < SETUP_SHUFFLES:
        found.append(
            f"{state.shuffles} shuffles: 0 while setting up, else at least {SETUP_SHUFFLES}"
        )
    elif state.shuffles > most_shuffles(state.round):
        found.append(f"{state.shuffles} shuffles by round {state.round}: at most two a round")
    portion = setup_portion(rules)
    if (
        rules.setup_requests > len(state.cards.requests)
        or rules.setup_feed > state.cards.special_feed
    ):
        found.append("the rules' set-up takes more requests or feed than the cards hold (S5)")
    elif state.shuffles == SETUP_SHUFFLES and portion:
        # Until the first reshuffle the set-up pile lies at the bottom of the
        # discard pile, and everyone knows what it is made of (I2).
        bottom = state.discard_pile.cards[:portion]
        feed = sum(1 for card in bottom if type(card) is SpecialFeedCard)
        requests = sum(1 for card in bottom if type(card) is RequestCard)
        if (len(bottom), feed, requests) != (portion, rules.setup_feed, rules.setup_requests):
            found.append(
                f"no reshuffle yet, so the discard pile starts with the set-up's "
                f"{rules.setup_requests} requests and {rules.setup_feed} feed (S5, I2)"
            )
    found.extend(_hand_size_problems(state))
    turn = state.turn
    requests_played = sum(1 for card in turn.played if type(card) is RequestCard)
    if len(set(turn.delivered_to)) != len(turn.delivered_to):
        found.append("a village received two goods requests in one turn (T4)")
    elif requests_played != len(turn.delivered_to):
        found.append(
            f"the turn played {requests_played} goods requests but delivered to "
            f"{len(turn.delivered_to)} villages (T4)"
        )
    if any(not state.board.has_village(village) for village in turn.delivered_to):
        found.append("the turn delivered to a village not on the board")
    found.extend(_pending_discard_problems(state))
    return found


def _chance_problems(state: GameState, goods_per_kind: list[int]) -> list[str]:
    """What a game with explicit chance (or without it) cannot reach."""
    rules = state.rules
    if not rules.explicit_chance:
        if state.phase.is_chance:
            return [f"a seeded game never waits in the {state.phase.value} phase"]
        return []
    found = []
    pile = state.game_round_pile
    if pile != sort_hand(pile):
        found.append("with explicit chance the game-round pile is kept in hand order")
    if state.phase is Phase.SET_UP:
        goods = setup_goods_problem(
            state.board, state.village_goods, tuple(p.goods for p in state.players)
        )
        if goods:
            found.append(goods)
        if any(player.value_pile for player in state.players):
            found.append("a value pile holds cards before the game is set up")
        # The goods are dealt first (S4), then the set-up pile is laid (S5).
        laid = state.discard_pile.cards
        feed = sum(1 for card in laid if type(card) is SpecialFeedCard)
        requests = sum(1 for card in laid if type(card) is RequestCard)
        if (
            feed + requests != len(laid)
            or feed > rules.setup_feed
            or requests > rules.setup_requests
            or (laid and min(goods_per_kind) < GOODS_PER_KIND)
        ):
            found.append("the set-up pile being laid holds other cards than its own (S4, S5)")
        feed_left, requests_left = rules.setup_feed - feed, rules.setup_requests - requests
        if min(goods_per_kind) == GOODS_PER_KIND and feed_left <= 0 and requests_left <= 0:
            found.append("the set-up is complete, so the game has left the set-up phase")
        elif hand_count(pile, SPECIAL_FEED) < feed_left or (
            sum(1 for card in pile if type(card) is RequestCard) < requests_left
        ):
            found.append("the game-round pile lacks the cards the set-up pile still takes (S5)")
    elif state.phase is Phase.FORM_PILES:
        turned_up = sum(len(dealer_pile or ()) for dealer_pile in state.dealer_piles)
        # An empty game-round pile is reshuffled or ends forming at once (R3).
        if not pile or turned_up >= round_cards(rules.num_players):
            found.append("forming is over, so the game has left the forming phase (R2, R3)")
    return found


def taker_problem(rules: Rules, dealer: int, current: int | None, piles_gone: int) -> str | None:
    """Why ``current`` is not the seat to take (or, two players, discard) the
    next dealer pile once ``piles_gone`` are gone (R4); None if it is."""
    taker = next_to_take(rules, dealer, piles_gone)
    if taker is None:
        return "every seat has taken a pile, yet piles are being taken"
    if current != taker:
        return f"seat {taker} takes the next pile, not seat {current}"
    return None


def setup_goods_problem(
    board: Board, village_goods: tuple[Goods, ...], player_goods: tuple[Goods, ...]
) -> str | None:
    """What is wrong with the goods of a game that chance is still setting up (S4)."""
    if any(player_goods):
        return "a player holds goods before the game is set up (S4)"
    filling = True
    for village, goods in zip(board.villages, village_goods, strict=True):
        if len(goods) > village.number or (goods and not filling):
            return f"{village.name} holds {goods}: villages get their goods in board order (S4)"
        if len(goods) < village.number:
            filling = False  # the village chance deals to next: the rest are empty
    return None


def _pending_discard_problems(state: GameState) -> list[str]:
    """A hand-limit discard that is due but cannot be made as it stands (T7)."""
    turn = state.turn
    due = turn.discards_due
    if not due or state.phase is not Phase.PLAY_TURNS or state.current_player is None:
        return []
    if not 0 <= state.current_player < len(state.players):
        return []  # reported with the seats
    hand = state.players[state.current_player].hand
    problem = pending_discard_problem(hand, due, turn.last_discard, state.rules.hand_limit)
    if problem:
        return [problem]
    if turn.last_discard is not None and state.discard_pile.top != turn.last_discard:
        return ["the card discarded last is not on top of the discard pile (T7)"]
    return []


def pending_discard_problem(
    hand: tuple[Card, ...], due: int, last: Card | None, limit: int
) -> str | None:
    """Why ``hand`` cannot make the ``due`` hand-limit discards still due, the
    last one ``last`` (T7); None if it can."""
    if len(hand) != limit + due or hand_count(hand, SPECIAL_FEED) > limit:
        return f"{due} discards are due from a hand of {len(hand)}, hand limit {limit} (T7)"
    after = len(discard_candidates(hand, last))
    if after < due:
        return f"{due} discards are due, but only {after} cards may still go (T7)"
    return None


def _hand_size_problems(state: GameState) -> list[str]:
    """Hands larger than the rules allow at this moment (R4, T7)."""
    return hand_size_problems(
        state.rules,
        state.phase,
        state.dealer,
        state.current_player,
        state.dealer_piles.count(None),
        tuple(len(player.hand) for player in state.players),
        len(state.turn.played),
    )


def hand_size_problems(
    rules: Rules,
    phase: Phase,
    dealer: int,
    current: int | None,
    piles_gone: int,
    sizes: tuple[int, ...],
    played: int,
) -> list[str]:
    """Hands of ``sizes`` cards that are larger than the rules allow (R4, T7).

    Between turns a hand holds at most the hand limit (or the starting
    set's 3 cards); taking a dealer pile adds at most a pile's 4. ``piles_gone`` is
    how many dealer piles are taken or discarded, ``played`` how many cards
    the current turn has played. Seats out of range are left to the caller.
    """
    n = len(sizes)
    limit = rules.hand_limit
    carried = most_carried(rules)
    if not 0 <= dealer < n:
        return []
    if phase.is_chance:
        most = [carried] * n
    elif phase is Phase.TAKE_PILES:
        most = [carried] * n
        for k in range(min(pile_takes(rules, piles_gone), n)):
            most[taker(dealer, n, k)] = carried + PILE_SIZE
    elif phase is Phase.PLAY_TURNS:
        if current is None or not 0 <= current < n:
            return []
        most = [carried + PILE_SIZE] * n
        for k in range((current - dealer) % n):
            most[(dealer + k) % n] = limit
    else:
        most = [limit] * n
    found = []
    for seat, size in enumerate(sizes):
        # Every card played this turn came from the current player's hand.
        held = size + played if seat == current and phase is Phase.PLAY_TURNS else size
        if held > most[seat]:
            found.append(
                f"seat {seat} holds {held} cards; at most {most[seat]} can be held now (R4, T7)"
            )
    return found
