"""What each player may know (I1-I3), and full states consistent with it.

:func:`observe` strips a state down to what one seat knows: with
``recall="perfect"`` everything that seat ever saw (I1), with
``recall="table"`` only what lies visible now (I3). Neither ever includes the
order of the face-down game-round pile or of a freshly shuffled pile (I2), or
the game's seed, which would give both away.

:func:`determinize` deals the unknown cards of an observation at random into
a full state, as an information-set search bot needs:
``observe(determinize(o, rng), o.seat, recall=o.recall) == o`` always.
"""

from __future__ import annotations

import itertools
import math
import operator
import random
from collections import Counter
from typing import Literal

import attrs

from troedler.core.board import Board
from troedler.core.cards import (
    CARD_TYPES,
    Card,
    CardCatalogue,
    RequestCard,
    SpecialFeedCard,
    sort_hand,
)
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import Goods
from troedler.core.invariants import cards_in_play, public_problems
from troedler.core.legal import legal_moves
from troedler.core.limits import MAX_ROUNDS, MAX_SHUFFLES
from troedler.core.moves import Move
from troedler.core.pile import Pile
from troedler.core.rulebook import (
    MAX_CARDS,
    SETUP_SHUFFLES,
    VALUE_PILE_TYPES,
    Rules,
    discard_candidates,
    setup_pile_hidden,
)
from troedler.core.state import GameState, Phase, PlayerState, Turn

_CARD_TYPE_SET = frozenset(CARD_TYPES)
_CARD_OR_NONE = _CARD_TYPE_SET | {type(None)}
_VALUE_PILE_TYPES = frozenset(VALUE_PILE_TYPES)

__all__ = [
    "SETUP_SHUFFLES",
    "Observation",
    "Recall",
    "determinize",
    "observation_problem",
    "observe",
    "seat_knows",
    "seen_stacks",
]

Recall = Literal["perfect", "table"]


# repr=False: the generated repr lists every card and legal move.
@attrs.frozen(repr=False)
class Observation:
    """What one seat knows of a game at one moment.

    Stacks whose order matters (dealer piles, the discard pile) are given
    card by card, bottom to top, with None for a card the seat does not
    know; hands and value piles are given whole when known, else None, with
    their sizes always.
    """

    seat: int
    recall: Recall
    rules: Rules
    board: Board
    cards: CardCatalogue
    round: int
    dealer: int
    phase: Phase
    current_player: int | None
    shuffles: int
    village_goods: tuple[Goods, ...]
    carts: tuple[str, ...]
    goods: tuple[Goods, ...]
    """Each player's goods: they lie in front of the players for all to see."""
    played: tuple[Card, ...]
    """Cards played this turn: they lie on the table until it ends."""
    delivered_to: tuple[str, ...]
    discards_due: int
    """Cards the current player must still discard down to the hand limit (T7):
    all see the turn end and the cards go onto the discard pile face up."""
    last_discard: Card | None
    """The card discarded last while discards are due; the next one comes at
    or after it in hand order."""
    hands: tuple[tuple[Card, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    value_piles: tuple[tuple[Card, ...] | None, ...]
    value_pile_sizes: tuple[int, ...]
    dealer_piles: tuple[tuple[Card | None, ...] | None, ...]
    """None for a pile that is gone."""
    discard_pile: tuple[Card | None, ...]
    game_round_pile_size: int
    legal_moves: tuple[Move, ...]
    """The seat's legal moves when the decision is theirs; else empty."""

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.GAME_OVER

    def __repr__(self) -> str:
        to_move = "" if self.current_player is None else f", seat {self.current_player} to move"
        return (
            f"<Observation of seat {self.seat} ({self.recall} recall): {len(self.carts)} players, "
            f"round {self.round}, {self.phase.value}{to_move}>"
        )

    def _repr_svg_(self) -> str:
        """What the seat knows as a picture, for Jupyter: nothing more is drawn."""
        # Imported here, not at the top: the core never imports the pictures
        # package, which sits on top of it (python-chess does the same).
        from troedler.svg import board  # noqa: PLC0415

        return board(self, size=900)


def _setup_portion(state: GameState) -> int:
    """How many cards at the bottom of the discard pile are still the set-up's."""
    if state.phase is Phase.SET_UP:  # chance is still laying it
        return len(state.discard_pile)
    return setup_pile_hidden(state.rules, state.shuffles, len(state.discard_pile))


def seat_knows(seat: int, other: int, perfect: bool) -> bool:
    """Whether ``seat`` knows the hand and the value pile of ``other`` (I1, I3).

    A seat knows its own; with perfect recall it knows everyone's, having
    seen every card go into them. :func:`observe` and the tensors of
    :mod:`troedler.encoding.tensors` both ask this.
    """
    return perfect or other == seat


def seen_stacks(
    state: GameState, recall: Recall
) -> tuple[tuple[tuple[Card | None, ...] | None, ...], tuple[Card | None, ...]]:
    """The dealer piles and the discard pile as every seat sees them, bottom to top.

    Every seat saw the same cards go onto them (I1), so what a seat knows of
    them depends only on ``recall``: with perfect recall every card but the
    hidden part of the set-up pile (I2), with the table view only the top
    cards (I3). None stands for a card not known; a dealer pile that is gone
    is None.
    :func:`observe` gives these as ``dealer_piles`` and ``discard_pile``.

    Of ``state`` it reads the dealer piles and the discard pile, and with
    perfect recall the phase, the shuffles and the rules, which say how much
    of the set-up pile is still hidden: callers may keep the result for as
    long as those stay the same objects.
    """
    if not isinstance(state, GameState):
        raise ConfigurationError(f"seen_stacks needs a GameState, not {quote(state)}")
    if recall not in ("perfect", "table"):
        raise ConfigurationError(f"recall is 'perfect' or 'table', not {quote(recall)}")
    return _seen_stacks(state, recall == "perfect")


def _seen_stacks(
    state: GameState, perfect: bool
) -> tuple[tuple[tuple[Card | None, ...] | None, ...], tuple[Card | None, ...]]:
    """:func:`seen_stacks` of a checked state and recall."""
    pile = state.discard_pile
    if perfect:
        discard: tuple[Card | None, ...] = pile.cards
        hidden = _setup_portion(state)
        if hidden:
            # The set-up pile was seen only from above (I2): all but its top.
            discard = (None,) * (hidden - 1) + discard[hidden - 1 :]
        return state.dealer_piles, discard
    piles = tuple(
        None if dealt is None else (None,) * (len(dealt) - 1) + dealt[-1:]
        for dealt in state.dealer_piles
    )
    # Only the top lies visible: the pile need not be walked.
    return piles, ((None,) * (len(pile) - 1) + (pile.top,) if pile else ())


def observe(state: GameState, seat: int, *, recall: Recall = "perfect") -> Observation:
    """What ``seat`` knows of ``state``, with perfect recall or from the table alone.

    >>> from troedler import new_game
    >>> seen = observe(new_game(3, seed=1), 0, recall="table")
    >>> seen.hands[0] is not None, seen.hands[1], seen.hand_sizes
    (True, None, (3, 3, 3))
    """
    if not isinstance(state, GameState):
        raise ConfigurationError(f"observe needs a GameState, not {quote(state)}")
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise ConfigurationError(f"seat must be 0 to {state.num_players - 1}, not {quote(seat)}")
    if recall not in ("perfect", "table"):
        raise ConfigurationError(f"recall is 'perfect' or 'table', not {quote(recall)}")
    perfect = recall == "perfect"
    piles, discard = _seen_stacks(state, perfect)
    carts, goods, hands, hand_sizes, value_piles, value_pile_sizes = [], [], [], [], [], []
    for other, player in enumerate(state.players):
        known = seat_knows(seat, other, perfect)
        carts.append(player.cart)
        goods.append(player.goods)
        hands.append(player.hand if known else None)
        hand_sizes.append(len(player.hand))
        value_piles.append(player.value_pile if known else None)
        value_pile_sizes.append(len(player.value_pile))
    turn = state.turn
    return Observation(
        seat=seat,
        recall=recall,
        rules=state.rules,
        board=state.board,
        cards=state.cards,
        round=state.round,
        dealer=state.dealer,
        phase=state.phase,
        current_player=state.current_player,
        shuffles=state.shuffles,
        village_goods=state.village_goods,
        carts=tuple(carts),
        goods=tuple(goods),
        played=turn.played,
        delivered_to=turn.delivered_to,
        discards_due=turn.discards_due,
        last_discard=turn.last_discard,
        hands=tuple(hands),
        hand_sizes=tuple(hand_sizes),
        value_piles=tuple(value_piles),
        value_pile_sizes=tuple(value_pile_sizes),
        dealer_piles=piles,
        discard_pile=discard,
        game_round_pile_size=len(state.game_round_pile),
        legal_moves=legal_moves(state) if state.current_player == seat else (),
    )


def determinize(observation: Observation, rng: random.Random) -> GameState:
    """A full game state consistent with ``observation``, the unknown cards dealt at random.

    Every card the seat does not know is placed uniformly at random among the
    places consistent with what it knows: value piles hold only special feed
    and goods requests, and until the first reshuffle the hidden part of the
    set-up discard pile holds exactly its remaining requests and feed (I2).
    The seed of the state is drawn from ``rng`` too, since the real one is
    not known. ``rng`` must be a :class:`random.Random`.

    :class:`~troedler.ConfigurationError` (a :class:`TroedlerError`) if the
    observation is not one :func:`observe` can give: a wrong type, an unknown
    village, sizes that disagree with the cards shown, a seat out of range,
    or cards hidden where the seat would have seen them.
    """
    problem = observation_problem(observation)
    if problem is not None:
        raise ConfigurationError(f"not an observation of a game: {problem}")
    if not isinstance(rng, random.Random):
        raise ConfigurationError(f"rng must be a random.Random, not {quote(rng)}")
    o = observation
    n = o.rules.num_players
    unknown = cards_in_play(o.cards, o.board, n)
    known: Counter[Card] = Counter(o.played)
    for hand in o.hands:
        known.update(hand or ())
    for pile in o.value_piles:
        known.update(pile or ())
    for dealer_pile in o.dealer_piles:
        known.update(card for card in dealer_pile or () if card is not None)
    known.update(card for card in o.discard_pile if card is not None)
    if known - unknown:
        raise ConfigurationError("the observation holds cards the game does not have")
    unknown -= known
    pool = list(unknown.elements())

    def take(eligible: type | tuple[type, ...], count: int) -> list[Card]:
        # A uniform sample of the eligible cards, taken before the rest is
        # shuffled: taking the first ones of a shuffled pool would leave the
        # others of their kind bunched towards its end.
        places = [i for i, card in enumerate(pool) if isinstance(card, eligible)]
        if len(places) < count:
            raise ConfigurationError("the observation leaves too few cards for its stacks")
        chosen = sorted(rng.sample(places, count), reverse=True)
        cards = [pool[i] for i in chosen]
        for i in chosen:
            del pool[i]
        return cards

    discard = list(o.discard_pile)
    setting_up = o.phase is Phase.SET_UP
    portion = len(discard) if setting_up else setup_pile_hidden(o.rules, o.shuffles, len(discard))
    if portion:
        # Known from the rules: the set-up pile holds so many feed and requests
        # (I2). While chance still lays it, the part laid is a random part of
        # that make-up.
        setup = [card for card in discard[:portion] if card is not None]
        feed = o.rules.setup_feed - sum(1 for card in setup if type(card) is SpecialFeedCard)
        requests = o.rules.setup_requests - sum(1 for card in setup if type(card) is RequestCard)
        hidden = [i for i in range(portion) if discard[i] is None]
        if (
            feed < 0
            or requests < 0
            or len(setup) + len(hidden) != portion
            or any(type(card) not in _VALUE_PILE_TYPES for card in setup)
            or feed + requests < len(hidden)
            or (not setting_up and feed + requests != len(hidden))
        ):
            raise ConfigurationError("the set-up discard pile shows other cards than its own (I2)")
        if setting_up:
            slots = rng.sample([True] * feed + [False] * requests, len(hidden))
            feed, requests = slots.count(True), slots.count(False)
    else:
        feed = requests = 0
        hidden = []
    hidden_value_cards = sum(
        size for pile, size in zip(o.value_piles, o.value_pile_sizes, strict=True) if pile is None
    )
    # A hidden hand that still owes hand-limit discards must be able to make
    # them (T7): it is drawn first, among the hands that can, each weighted by
    # the ways to fill the set-up pile and the value piles after it.
    due, seat = o.discards_due, o.current_player
    pending: tuple[Card, ...] | None = None
    if due and seat is not None and o.hands[seat] is None:
        pending = _pending_hand(
            pool,
            o.hand_sizes[seat],
            (due, o.last_discard, o.rules.hand_limit),
            (feed, requests, hidden_value_cards),
            rng,
        )
    if hidden:
        fill = take(SpecialFeedCard, feed) + take(RequestCard, requests)
        rng.shuffle(fill)
        for i, card in zip(hidden, fill, strict=True):
            discard[i] = card
    value_piles = []
    for pile, size in zip(o.value_piles, o.value_pile_sizes, strict=True):
        value_piles.append(pile if pile is not None else tuple(take(VALUE_PILE_TYPES, size)))
    rng.shuffle(pool)
    # Everything left is dealt, in random order, into the remaining places.
    hands = []
    for s, (hand, size) in enumerate(zip(o.hands, o.hand_sizes, strict=True)):
        if hand is not None:
            hands.append(hand)
        elif s == seat and pending is not None:
            hands.append(pending)
        else:
            hands.append(tuple(_deal(pool, size)))
    dealer_piles: list[tuple[Card, ...] | None] = []
    for dealer_pile in o.dealer_piles:
        if dealer_pile is None:
            dealer_piles.append(None)
        else:
            dealer_piles.append(
                tuple(card if card is not None else _deal(pool, 1)[0] for card in dealer_pile)
            )
    discard_cards = tuple(card if card is not None else _deal(pool, 1)[0] for card in discard)
    game_round_pile = tuple(_deal(pool, o.game_round_pile_size))
    if o.rules.explicit_chance:
        # Explicit chance orders the pile only card by card, as it turns
        # them up: until then it is held in hand order (R2).
        game_round_pile = sort_hand(game_round_pile)
    if pool:
        raise ConfigurationError("the observation leaves cards with no place")
    state = GameState(
        rules=o.rules,
        board=o.board,
        cards=o.cards,
        seed=rng.getrandbits(64),
        shuffles=o.shuffles,
        round=o.round,
        dealer=o.dealer,
        phase=o.phase,
        current_player=o.current_player,
        game_round_pile=game_round_pile,
        dealer_piles=tuple(dealer_piles),
        discard_pile=Pile.of(discard_cards),
        village_goods=o.village_goods,
        players=tuple(
            PlayerState(cart, sort_hand(hand), goods, sort_hand(value_pile))
            for cart, hand, goods, value_pile in zip(
                o.carts, hands, o.goods, value_piles, strict=True
            )
        ),
        turn=Turn(o.played, o.delivered_to, o.discards_due, o.last_discard),
    )
    # The legal moves are the one part of an observation derived from the
    # rest; a few microseconds against the deal's hundred or more.
    shown = legal_moves(state) if o.current_player == o.seat else ()
    if shown != o.legal_moves:
        raise ConfigurationError("the observation's legal moves are not those of its position")
    return state


def _pending_hand(
    pool: list[Card],
    size: int,
    discards: tuple[int, Card | None, int],
    after: tuple[int, int, int],
    rng: random.Random,
) -> tuple[Card, ...]:
    """A hand of ``size`` cards taken out of ``pool`` that can make the
    discards due (T7), drawn as uniformly as the whole deal is.

    ``discards`` is (discards due, the last discard, the hand limit): the
    hand needs at least as many cards other than special feed at or after
    the last discard, and no more special feed than the limit. ``after`` is
    what the rest of the pool must still supply: (special feed, goods
    requests) for the set-up pile and cards of either sort for the value
    piles. Each make-up of the hand is weighted by the ways to pick it and
    to fill those places afterwards.
    """
    due, last, limit = discards
    setup_feed, setup_requests, value_cards = after
    # Whether a card may still be discarded depends on its value alone.
    eligible = {card.sort_key for card in discard_candidates(pool, last)}
    # Eligible requests, eligible others, feed, other requests, the rest.
    places: tuple[list[int], ...] = ([], [], [], [], [])
    for i, card in enumerate(pool):
        if type(card) is SpecialFeedCard:
            places[2].append(i)
        elif type(card) is RequestCard:
            places[0 if card.sort_key in eligible else 3].append(i)
        else:
            places[1 if card.sort_key in eligible else 4].append(i)
    er, en, fd, other_requests, rest = (len(p) for p in places)
    requests_in_pool = er + other_requests

    def ways(n: int, k: int) -> int:
        return math.comb(n, k) if 0 <= k <= n else 0

    splits: list[tuple[int, ...]] = []
    weights: list[int] = []
    for c in range(min(fd, limit, size) + 1):
        for a in range(min(er, size - c) + 1):
            for b in range(min(en, size - c - a) + 1):
                if a + b < due:
                    continue
                for d in range(min(other_requests, size - c - a - b) + 1):
                    e = size - c - a - b - d
                    feed_left, requests_left = fd - c, requests_in_pool - a - d
                    weight = (
                        ways(er, a) * ways(en, b) * ways(fd, c) * ways(other_requests, d)
                        * ways(rest, e)
                        * ways(feed_left, setup_feed)
                        * ways(requests_left, setup_requests)
                        * ways(feed_left - setup_feed + requests_left - setup_requests, value_cards)
                    )  # fmt: skip
                    if weight:
                        splits.append((a, b, c, d, e))
                        weights.append(weight)
    if not splits:
        raise ConfigurationError("no deal lets the current player make the discards due (T7)")
    counts = rng.choices(splits, weights=weights)[0]
    chosen = sorted(
        (x for where, k in zip(places, counts, strict=True) for x in rng.sample(where, k)),
        reverse=True,
    )
    hand = tuple(pool[x] for x in chosen)
    for x in chosen:
        del pool[x]
    return hand


def _deal(pool: list[Card], count: int) -> list[Card]:
    """The next ``count`` cards of the shuffled ``pool``, taken out of it."""
    if len(pool) < count:
        raise ConfigurationError("the observation has more places than unknown cards")
    dealt = pool[-count:] if count else []
    del pool[len(pool) - count :]
    return dealt


def _is_seat(value: object, n: int) -> bool:
    return type(value) is int and 0 <= value < n


def _cards_or_none(value: object) -> bool:
    """Whether ``value`` is a tuple of cards, None standing for an unknown one."""
    return type(value) is tuple and set(map(type, value)) <= _CARD_OR_NONE


def _cards_only(value: object) -> bool:
    return type(value) is tuple and set(map(type, value)) <= _CARD_TYPE_SET


def _none_count(cards: tuple[Card | None, ...]) -> int:
    # By identity: comparing None with == would call every card's __eq__.
    return sum(map(operator.is_, cards, itertools.repeat(None)))


def observation_problem(observation: object) -> str | None:
    """What keeps ``observation`` from being one :func:`observe` can give, or None.

    A cheap check, made by :func:`determinize` before it deals: the fields'
    types, seats and villages, per-seat sizes that agree with the cards
    shown, unknown cards exactly where the seat's recall leaves them unknown,
    and then the facts every seat sees with the same checks as a full state
    (:func:`troedler.core.invariants.public_problems`): the 48 goods, hands no
    larger than the rules allow (R4, T7), the dealer piles, the set-up pile
    (I2) and the turn (T4, T7).
    """
    o = observation
    if not isinstance(o, Observation):
        return f"expected an Observation, got {quote(o)}"
    if o.recall not in ("perfect", "table"):
        return f"recall is 'perfect' or 'table', not {quote(o.recall)}"
    if not (
        isinstance(o.rules, Rules)
        and isinstance(o.board, Board)
        and isinstance(o.cards, CardCatalogue)
    ):
        return "rules, board and cards must be a Rules, a Board and a CardCatalogue"
    n = o.rules.num_players
    if not _is_seat(o.seat, n) or not _is_seat(o.dealer, n):
        return f"seat {quote(o.seat)} or dealer {quote(o.dealer)} is not a seat of {n}"
    if not isinstance(o.phase, Phase):
        return f"phase must be a Phase, not {quote(o.phase)}"
    if o.current_player is not None and not _is_seat(o.current_player, n):
        return f"current player {quote(o.current_player)} does not fit the phase"
    if type(o.round) is not int or not 1 <= o.round <= MAX_ROUNDS:
        return f"round {quote(o.round)} is not a round"
    if type(o.shuffles) is not int or not 0 <= o.shuffles <= MAX_SHUFFLES:
        return f"{quote(o.shuffles)} shuffles by round {o.round} in the {o.phase.value} phase"
    if type(o.game_round_pile_size) is not int or o.game_round_pile_size < 0:
        return f"game_round_pile_size {quote(o.game_round_pile_size)} is not a size"
    if o.phase is Phase.FORM_PILES and o.game_round_pile_size == 0:
        return "forming is over, so the game has left the forming phase (R2, R3)"
    try:
        for seat in range(n):
            o.cards.starting_set(o.board.start_village(seat, n))
    except KeyError:
        return "the cards have no starting set for a start village of the board (C3)"
    per_seat = (o.carts, o.goods, o.hands, o.hand_sizes, o.value_piles, o.value_pile_sizes)
    if any(type(values) is not tuple or len(values) != n for values in per_seat):
        return f"carts, goods, hands, value piles and their sizes need one entry per seat ({n})"
    if any(not isinstance(cart, str) or not o.board.has_village(cart) for cart in o.carts):
        return "a cart stands on a village not on the board"
    village_goods = o.village_goods
    if type(village_goods) is not tuple or len(village_goods) != len(o.board.villages):
        return "village_goods needs the goods of every village of the board"
    if not all(isinstance(goods, Goods) for goods in (*village_goods, *o.goods)):
        return "village and player goods must be Goods"
    if not _cards_only(o.played) or type(o.delivered_to) is not tuple:
        return "played must be a tuple of cards and delivered_to of villages"
    if any(not isinstance(v, str) for v in o.delivered_to):
        return "delivered_to names a village not on the board"
    due, last = o.discards_due, o.last_discard
    if type(due) is not int or not 0 <= due <= MAX_CARDS:
        return f"discards_due {quote(due)} is not a number of discards"
    if last is not None and type(last) not in _CARD_TYPE_SET:
        return f"last_discard {quote(last)} is not a card"
    problem = _hidden_problem(o)
    if problem:
        return problem
    found = public_problems(
        o.rules,
        o.board,
        o.cards,
        o.phase,
        o.round,
        o.shuffles,
        o.dealer,
        o.current_player,
        village_goods,
        o.goods,
        o.hand_sizes,
        tuple(None if pile is None else len(pile) for pile in o.dealer_piles),
        o.discard_pile,
        Turn(o.played, o.delivered_to, due, last),
    )
    return found[0][1] if found else None


def _hidden_problem(o: Observation) -> str | None:
    """Where the cards a seat sees disagree with what its recall shows: hands
    and value piles of their sizes, in hand order, shown or hidden as
    :func:`seat_knows` says; stacks with unknown cards exactly where the
    recall hides them (I1-I3)."""
    n = o.rules.num_players
    perfect = o.recall == "perfect"
    for seat in range(n):
        seen = seat_knows(o.seat, seat, perfect)
        for stack, size, name in (
            (o.hands[seat], o.hand_sizes[seat], "hand"),
            (o.value_piles[seat], o.value_pile_sizes[seat], "value pile"),
        ):
            if type(size) is not int or size < 0:
                return f"the {name} size of seat {seat} is {quote(size)}"
            if stack is None if seen else stack is not None:
                how = "hidden from" if seen else "shown to"
                return f"the {name} of seat {seat} is {how} seat {o.seat}"
            if stack is not None and (
                not _cards_only(stack) or len(stack) != size or stack != sort_hand(stack)
            ):
                return f"the {name} of seat {seat} disagrees with its size or hand order"
        pile = o.value_piles[seat]
        if pile is not None and not set(map(type, pile)) <= _VALUE_PILE_TYPES:
            return f"the value pile of seat {seat} holds a card other than feed or requests"
    piles = o.dealer_piles
    if type(piles) is not tuple:
        return "dealer_piles must be a tuple of piles"
    for shown in piles:
        if shown is None:
            continue
        if not _cards_or_none(shown):
            return "a dealer pile must be a tuple of cards and None"
        if _none_count(shown) != (0 if perfect else max(len(shown) - 1, 0)) or (
            shown and shown[-1] is None
        ):
            return "a dealer pile hides other cards than the seat's recall does"
    discard = o.discard_pile
    if not _cards_or_none(discard):
        return "discard_pile must be a tuple of cards and None"
    if perfect:
        if o.phase is Phase.SET_UP:
            hidden = len(discard)
        else:
            hidden = setup_pile_hidden(o.rules, o.shuffles, len(discard))
        hidden = max(hidden - 1, 0)  # the set-up pile was seen from above only
    else:
        hidden = max(len(discard) - 1, 0)
    if _none_count(discard[:hidden]) != hidden or _none_count(discard[hidden:]):
        return "the discard pile hides other cards than the set-up pile's (I2)"
    return None
