"""The checks of a position: what no game can reach (the invariants).

:func:`check_invariants` raises on a state that breaks them, :func:`problems`
lists what is wrong as sentences. The records themselves live in
:mod:`troedler.core.state` and check nothing when they are built: the engine
builds a state or two at every move, and states come in from outside only
through the readers, which check here. The facts of the rules the checks
rest on (who takes the next pile, which card may be discarded next, goods
conservation) are :mod:`troedler.core.rulebook`'s, the same the actions ask.
"""

from __future__ import annotations

import functools
from collections import Counter

from troedler.core.board import Board
from troedler.core.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    SPECIAL_FEED,
    UNKNOWN,
    Card,
    CardCatalogue,
    RequestCard,
    card_sort_key,
)
from troedler.core.chance import seed_answers
from troedler.core.errors import ConfigurationError, TroedlerError, quote, some_of
from troedler.core.goods import GOODS_PER_KIND, Goods
from troedler.core.limits import MAX_ROUNDS, MAX_SEED, MAX_SHUFFLES, MIN_SEED
from troedler.core.rulebook import (
    MAX_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PILE_SIZE,
    SETUP_SHUFFLES,
    VALUE_PILE_TYPES,
    Rules,
    discard_options,
    discards_owed,
    goods_per_kind,
    goods_problem,
    hand_limit_discards,
    most_carried,
    most_shuffles,
    next_to_take,
    pile_count,
    pile_takes,
    round_cards,
    setup_pile_left,
    setup_portion,
    setup_problem,
    starting_sets,
    taker,
)
from troedler.core.state import NO_TURN, GameState, Phase, PlayerState, Position, Turn

__all__ = [
    "Problem",
    "cards_in_play",
    "cards_in_state",
    "check_invariants",
    "located_problems",
    "position_shape_problem",
    "problems",
    "public_problems",
    "table_problems",
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
    for starting_set in starting_sets(board, cards, num_players):
        counter.update(starting_set.cards)
    return tuple(counter.items())


def cards_in_state(state: Position) -> Counter[Card]:
    """Every card of ``state``, wherever it lies: piles, hands, value piles, the
    turn (of a seat's view, :data:`~troedler.core.cards.UNKNOWN` too)."""
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
    of :mod:`troedler.core.limits`, the 48 goods (8 of each kind) are all in
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


Problem = tuple[str, str]
"""A problem of a position: the field at fault (a :class:`GameState`
field's name, or ``""`` for the position as a whole) and what is wrong."""


def problems(state: GameState) -> list[str]:
    """What is wrong with ``state`` as a position of the game: empty if nothing.

    The facts :func:`check_invariants` checks, as sentences.
    """
    return [message for _field, message in located_problems(state)]


def located_problems(state: GameState) -> list[Problem]:
    """:func:`problems`, each with the field of ``state`` at fault, so that a
    reader can name the part of its input that is wrong.

    The facts that every seat sees are checked by the same functions that
    check a seat's :class:`~troedler.Observation` (:func:`public_problems`);
    the rest (hands, value piles, every card in its place) only here.
    """
    shape = _shape_problem(state)
    if shape is not None:
        return [("", shape)]
    found = table_problems(state)
    if found:
        return found  # the checks below read seats and villages
    n = state.num_players
    for seat, player in enumerate(state.players):
        for name, cards in (("hand", player.hand), ("value pile", player.value_pile)):
            if list(cards) != sorted(cards, key=card_sort_key):
                found.append(("players", f"the {name} of seat {seat} is not in hand order"))
        if any(not isinstance(card, VALUE_PILE_TYPES) for card in player.value_pile):
            found.append(
                (
                    "players",
                    f"the value pile of seat {seat} holds a card other than feed or requests",
                )
            )
    places = cards_in_state(state)
    expected = cards_in_play(state.cards, state.board, n)
    if places != expected:
        extra = sorted(map(str, (places - expected).elements()))
        missing = sorted(map(str, (expected - places).elements()))
        found.append(
            (
                "",
                f"the cards are not those of the game (C2): extra {some_of(extra)}, "
                f"missing {some_of(missing)}",
            )
        )
    found.extend(public_problems(state))
    found.extend(_chance_problems(state))
    found.extend(_pending_discard_problems(state))
    return found


def table_problems(position: Position) -> list[Problem]:
    """Whether the seats and villages that the other checks read fit the
    position's rules, board and cards: a player for each seat of the rules,
    goods for every village, carts on villages of the board, a starting set
    for every start village (C3)."""
    found: list[Problem] = []
    n, rules, board = position.num_players, position.rules, position.board
    if n != rules.num_players:
        found.append(("players", f"{n} players but rules for {rules.num_players}"))
    if len(position.village_goods) != len(board.villages):
        found.append(("village_goods", "village_goods does not match the board"))
    for player in position.players:
        if not board.has_village(player.cart):
            found.append(("players", f"a cart stands on unknown village {quote(player.cart)}"))
    try:
        starting_sets(board, position.cards, rules.num_players)
    except ConfigurationError as error:
        found.append(("cards", str(error)))
    return found


def public_problems(position: Position) -> list[Problem]:
    """What no game can reach, in the facts every seat sees: the same checks
    for a :class:`GameState` and a seat's :class:`~troedler.Observation`, whose
    unknown cards count as unknown. Goods (C1, S4), seats and phase (R1, R5),
    shuffles (R3), dealer piles (R2, R4), hand sizes (R4, T7), the set-up
    pile (S5, I2) and the turn (T4, T7).
    """
    found = [
        ("village_goods", _goods_problem(position)),
        ("current_player", _seat_problem(position)),
        ("shuffles", _shuffle_problem(position)),
        ("dealer_piles", _pile_problem(position)),
        ("discard_pile", _setup_pile_problem(position)),
        ("players", _hand_size_problem(position)),
        ("turn", _turn_problem(position)),
    ]
    return [(field, problem) for field, problem in found if problem]


def _goods_problem(position: Position) -> str | None:
    """The goods of villages and players: all 48 while the game goes on (C1),
    dealt in board order while chance sets it up (S4)."""
    village_goods = position.village_goods
    player_goods = tuple(player.goods for player in position.players)
    setting_up = position.phase is Phase.SET_UP
    found = goods_problem(goods_per_kind((*village_goods, *player_goods)), in_bag=setting_up)
    if found or not setting_up:  # only explicit chance waits there (_chance_problems)
        return found
    if any(player_goods):
        return "a player holds goods before the game is set up (S4)"
    filling = True
    for village, goods in zip(position.board.villages, village_goods, strict=True):
        if len(goods) > village.number or (goods and not filling):
            return f"{village.name} holds {goods}: villages get their goods in board order (S4)"
        if len(goods) < village.number:
            filling = False  # the village chance deals to next: the rest are empty
    return None


def _seat_problem(position: Position) -> str | None:
    """The dealer is a seat; a player is to move exactly when one decides (R1, R5)."""
    n, phase, dealer, current = (
        position.rules.num_players,
        position.phase,
        position.dealer,
        position.current_player,
    )
    if not 0 <= dealer < n:
        return f"dealer {dealer} is not a seat"
    if phase is Phase.GAME_OVER or phase.is_chance:
        return None if current is None else f"no player is to move in the {phase.value} phase"
    if current is None or not 0 <= current < n:
        return f"current player {current} is not a seat"
    return None


def _shuffle_problem(position: Position) -> str | None:
    """Four shuffles at set-up, then at most two a round (S4-S6, R3)."""
    shuffles, round_number = position.shuffles, position.round
    if shuffles != 0 if position.phase is Phase.SET_UP else shuffles < SETUP_SHUFFLES:
        return f"{shuffles} shuffles: 0 while setting up, else at least {SETUP_SHUFFLES}"
    if shuffles > most_shuffles(round_number):
        return f"{shuffles} shuffles by round {round_number}: at most two a round"
    return None


def _pile_problem(position: Position) -> str | None:
    """The dealer piles: players + 1 while they are formed and taken, none
    otherwise, up to four cards each, taken in turn (R2, R4)."""
    phase, piles, rules = position.phase, position.dealer_piles, position.rules
    if phase is not Phase.TAKE_PILES and phase is not Phase.FORM_PILES:
        return "dealer piles lie on the table outside the take-piles phase" if piles else None
    if len(piles) != pile_count(rules.num_players):
        return f"{len(piles)} dealer piles, not {pile_count(rules.num_players)}"
    if any(pile is not None and len(pile) > PILE_SIZE for pile in piles):
        return f"a dealer pile holds more than {PILE_SIZE} cards"
    if phase is not Phase.TAKE_PILES:
        return None
    taker = next_to_take(rules, position.dealer, piles.count(None))
    if taker is None:
        return "every seat has taken a pile, yet piles are being taken"
    if position.current_player != taker:
        return f"seat {taker} takes the next pile, not seat {position.current_player}"
    return None


def _setup_pile_problem(position: Position) -> str | None:
    """Until the first reshuffle the set-up pile lies at the bottom of the
    discard pile, and everyone knows what it is made of (S5, I2): its known
    cards and its unknown ones add up to its requests and feed."""
    rules = position.rules
    problem = setup_problem(rules, position.cards)
    if problem is not None:
        return problem
    portion = setup_portion(rules)
    if position.phase is Phase.SET_UP or position.shuffles != SETUP_SHUFFLES or not portion:
        return None  # the set-up itself is checked with explicit chance
    bottom = position.discard_pile.cards[:portion]
    left = setup_pile_left(rules, bottom)
    unknown = sum(1 for card in bottom if card is UNKNOWN)
    if len(bottom) == portion and left is not None and sum(left) == unknown:
        return None
    return (
        "no reshuffle yet, so the discard pile starts with the set-up pile, "
        "its goods requests and special feed (S5, I2)"
    )


def _hand_size_problem(position: Position) -> str | None:
    """A hand larger than the rules allow now (R4, T7).

    Between turns a hand holds at most the hand limit (or the starting
    set's cards); taking a dealer pile adds at most a pile's. The cards the
    current turn has played came from the current player's hand.
    """
    rules, phase, dealer, current = (
        position.rules,
        position.phase,
        position.dealer,
        position.current_player,
    )
    n = len(position.players)
    limit = rules.hand_limit
    carried = most_carried(rules)
    if not 0 <= dealer < n:
        return None  # reported with the seats
    if phase.is_chance:
        most = [carried] * n
    elif phase is Phase.TAKE_PILES:
        most = [carried] * n
        for k in range(min(pile_takes(rules, position.dealer_piles.count(None)), n)):
            most[taker(dealer, n, k)] = carried + PILE_SIZE
    elif phase is Phase.PLAY_TURNS:
        if current is None or not 0 <= current < n:
            return None  # reported with the seats
        most = [carried + PILE_SIZE] * n
        for k in range((current - dealer) % n):
            most[(dealer + k) % n] = limit
    else:
        most = [limit] * n
    played = len(position.turn.played)
    for seat, player in enumerate(position.players):
        held = len(player.hand) + (played if seat == current else 0)
        if held > most[seat]:
            return f"seat {seat} holds {held} cards; at most {most[seat]} can be held now (R4, T7)"
    return None


def _turn_problem(position: Position) -> str | None:
    """The turn so far: one request played for each village delivered to,
    once each (T4); discards due only once the turn's cards are put away,
    from a hand that owes them, the last one on top (T7)."""
    turn, phase, current = position.turn, position.phase, position.current_player
    if phase is not Phase.PLAY_TURNS and turn != NO_TURN:
        return "a turn is under way outside the turns phase"
    requests = sum(1 for card in turn.played if type(card) is RequestCard)
    delivered, due, last = turn.delivered_to, turn.discards_due, turn.last_discard
    if len(set(delivered)) != len(delivered):
        return "a village received two goods requests in one turn (T4)"
    if requests != len(delivered):
        return f"the turn played {requests} goods requests for {len(delivered)} villages (T4)"
    if any(not position.board.has_village(village) for village in delivered):
        return "the turn delivered to a village not on the board"
    if not due:
        return None if last is None else "a last discard is recorded, yet no discard is due (T7)"
    if turn.played or delivered:
        return "discards are due, yet the turn still holds played cards (T7)"
    if phase is Phase.PLAY_TURNS and current is not None and 0 <= current < len(position.players):
        held, limit = len(position.players[current].hand), position.rules.hand_limit
        # What a hand of that size owes, its feed within the limit (T7).
        if discards_owed(held, 0, limit)[0] != due:
            return f"{due} discards are due from a hand of {held}, hand limit {limit} (T7)"
        discard = position.discard_pile
        if last is not None and (not discard or discard.top != last):
            return "the card discarded last is not on top of the discard pile (T7)"
    return None


def _cards_problem(cards: object, name: str, kinds: frozenset[type]) -> str | None:
    if type(cards) is not tuple:
        return f"{name} must be a tuple of cards, not {type(cards).__name__}"
    for card in cards:
        if type(card) not in kinds:
            return f"{name} holds {quote(card)}, which is not a card"
    return None


def _int_problem(value: object, name: str, low: int, high: int) -> str | None:
    if type(value) is not int or not low <= value <= high:
        return f"{name} must be an int {low} to {high}, not {quote(value)}"
    return None


_GAME_CARDS = frozenset(CARD_TYPES)


def _shape_problem(state: object) -> str | None:
    """The first field of ``state`` that does not hold a value of its type.

    Values are checked here, at the trust boundary, and not when a state is
    built: the engine builds one or two states a move, and checking their
    fields there would slow every move.
    """
    if not isinstance(state, GameState):
        return f"expected a GameState, got {quote(state)}"
    return _int_problem(state.seed, "seed", MIN_SEED, MAX_SEED) or position_shape_problem(
        state, _GAME_CARDS
    )


def position_shape_problem(position: Position, kinds: frozenset[type]) -> str | None:
    """The first field of ``position`` (a state's or a seat's view's) that
    does not hold a value of its type, its cards being of ``kinds``."""
    for name, kind in (("rules", Rules), ("board", Board), ("cards", CardCatalogue)):
        if not isinstance(getattr(position, name), kind):
            return f"{name} must be a {kind.__name__}, not {quote(getattr(position, name))}"
    found = (
        _int_problem(position.shuffles, "shuffles", 0, MAX_SHUFFLES)
        or _int_problem(position.round, "round", 1, MAX_ROUNDS)
        or _int_problem(position.dealer, "dealer", 0, MAX_PLAYERS - 1)
        or _cards_problem(position.game_round_pile, "the game-round pile", kinds)
    )
    if found:
        return found
    if not isinstance(position.phase, Phase):
        return f"phase must be a Phase, not {quote(position.phase)}"
    if position.current_player is not None and type(position.current_player) is not int:
        return f"current_player must be a seat or None, not {quote(position.current_player)}"
    if type(position.dealer_piles) is not tuple:
        return "dealer_piles must be a tuple"
    for pile in position.dealer_piles:
        found = None if pile is None else _cards_problem(pile, "a dealer pile", kinds)
        if found:
            return found
    discard = position.discard_pile
    try:
        found = _cards_problem(discard.cards, "the discard pile", kinds)
        if not found and len(discard) != len(discard.cards):
            found = "the discard pile's size is not its number of cards"
    except (AttributeError, TypeError):
        found = f"discard_pile must be a Pile, not {quote(discard)}"
    if found:
        return found
    goods = position.village_goods
    if type(goods) is not tuple or not all(isinstance(g, Goods) for g in goods):
        return "village_goods must be a tuple of Goods"
    players = position.players
    if type(players) is not tuple or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        return f"players must be a tuple of {MIN_PLAYERS} to {MAX_PLAYERS} PlayerState"
    for seat, player in enumerate(players):
        if not isinstance(player, PlayerState):
            return f"players[{seat}] must be a PlayerState, not {quote(player)}"
        found = (
            _cards_problem(player.hand, f"the hand of seat {seat}", kinds)
            or _cards_problem(player.value_pile, f"the value pile of seat {seat}", kinds)
            or (None if isinstance(player.goods, Goods) else f"the goods of seat {seat}")
            or (None if isinstance(player.cart, str) else f"the cart of seat {seat}")
        )
        if found:
            return found
    turn = position.turn
    if not isinstance(turn, Turn):
        return f"turn must be a Turn, not {quote(turn)}"
    found = _cards_problem(turn.played, "the cards played this turn", _GAME_CARDS)
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


def _chance_problems(state: GameState) -> list[Problem]:
    """Where a game waits for chance, what it cannot have reached: a seeded
    game never waits, its seed answers at once; one with explicit chance
    waits only while chance has work."""
    rules = state.rules
    if state.phase.is_chance and seed_answers(rules):
        return [("phase", f"a seeded game never waits in the {state.phase.value} phase")]
    found: list[Problem] = []
    pile = state.game_round_pile
    if state.phase is Phase.SET_UP:
        if any(player.value_pile for player in state.players):
            found.append(("players", "a value pile holds cards before the game is set up"))
        # The goods are dealt first (S4), then the set-up pile is laid (S5).
        dealt = min(goods_per_kind((*state.village_goods, *(p.goods for p in state.players))))
        laid = state.discard_pile.cards
        left = setup_pile_left(rules, laid)
        if left is None or (laid and dealt < GOODS_PER_KIND):
            return [
                (
                    "discard_pile",
                    "the set-up pile being laid holds other cards than its own (S4, S5)",
                )
            ]
        feed_left, requests_left = left
        if dealt == GOODS_PER_KIND and not feed_left and not requests_left:
            found.append(("phase", "the set-up is complete, so the game has left the set-up phase"))
        elif pile.count(SPECIAL_FEED) < feed_left or (
            sum(1 for card in pile if type(card) is RequestCard) < requests_left
        ):
            found.append(
                (
                    "game_round_pile",
                    "the game-round pile lacks the cards the set-up pile still takes (S5)",
                )
            )
    elif state.phase is Phase.FORM_PILES:
        turned_up = sum(len(dealer_pile or ()) for dealer_pile in state.dealer_piles)
        # An empty game-round pile is reshuffled or ends forming at once (R3).
        if not pile or turned_up >= round_cards(rules.num_players):
            found.append(
                ("phase", "forming is over, so the game has left the forming phase (R2, R3)")
            )
    return found


def _pending_discard_problems(state: GameState) -> list[Problem]:
    """A hand-limit discard that is due but that the hand cannot make as it
    stands (T7): the hand does not owe it, or too few of its cards may still
    go in hand order. The size of the hand is :func:`public_problems`'."""
    turn, seat = state.turn, state.current_player
    due, limit = turn.discards_due, state.rules.hand_limit
    if not due or state.phase is not Phase.PLAY_TURNS or seat is None:
        return []
    if not 0 <= seat < len(state.players):
        return []  # reported with the seats
    hand = state.players[seat].hand
    if hand_limit_discards(hand, limit) != (due, 0):
        return [
            ("turn", f"{due} discards are due from a hand of {len(hand)}, hand limit {limit} (T7)")
        ]
    if not discard_options(hand, due, turn.last_discard):
        return [("turn", f"{due} discards are due, but fewer cards than that may still go (T7)")]
    return []
