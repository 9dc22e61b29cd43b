"""Full states consistent with what a seat knows, for information-set search.

:func:`determinize` deals the unknown cards of an
:class:`~troedler.Observation` at random into a :class:`~troedler.GameState`:
``observe(determinize(o, rng), o.seat, recall=o.recall) == o`` always.
"""

from __future__ import annotations

import math
import random

import attrs

from troedler.core.cards import (
    CARD_TYPES,
    UNKNOWN,
    Card,
    RequestCard,
    SpecialFeedCard,
    UnknownCard,
    sort_hand,
)
from troedler.core.errors import ConfigurationError, quote
from troedler.core.invariants import (
    cards_in_play,
    cards_in_state,
    position_shape_problem,
    problems,
    public_problems,
    table_problems,
)
from troedler.core.pile import Pile
from troedler.core.rulebook import VALUE_PILE_TYPES, Rules, discard_options, setup_pile_left
from troedler.core.state import RECALLS, GameState, Phase, PlayerState, position_fields
from troedler.seat.observation import Observation, hidden_setup_cards, observe

__all__ = ["determinize", "observation_problem"]

_VIEW_CARDS = frozenset((*CARD_TYPES, UnknownCard))

_CHECKED: list[Observation] = []
"""The last few observations whose determinizations were checked: a search
deals the same one thousands of times, and it need be checked once."""
_CHECKED_KEPT = 8


def determinize(observation: Observation, rng: random.Random) -> GameState:
    """A full game state consistent with ``observation``, the unknown cards dealt at random.

    Every card the seat does not know is placed uniformly at random among the
    places consistent with what it knows: value piles hold only special feed
    and goods requests, and until the first reshuffle the hidden part of the
    set-up discard pile holds exactly its remaining requests and feed (I2).
    The seed of the state is drawn from ``rng`` too, since the real one is
    not known. ``rng`` must be a :class:`random.Random`.

    :class:`~troedler.ConfigurationError` (a :class:`TroedlerError`) if the
    observation is not one :func:`~troedler.observe` can give: a field of
    the wrong type, cards the game does not have, cards unknown where the
    seat would have seen them, or a position no game can reach.

    >>> from troedler import new_game, observe
    >>> seen = observe(new_game(3, seed=1), 0, recall="table")
    >>> observe(determinize(seen, random.Random(0)), 0, recall="table") == seen
    True
    """
    if not isinstance(rng, random.Random):
        raise ConfigurationError(f"rng must be a random.Random, not {quote(rng)}")
    checked = any(seen is observation for seen in _CHECKED)
    problem = None if checked else _shape_problem(observation) or _public_problem(observation)
    if problem is None:
        state = _dealt(observation, rng)
        if checked:
            return state
        problem = _consistency_problem(observation, state)
        if problem is None:
            _CHECKED[:] = [*_CHECKED[1 - _CHECKED_KEPT :], observation]
            return state
    raise ConfigurationError(f"not an observation of a game: {problem}")


def observation_problem(observation: object) -> str | None:
    """What keeps ``observation`` from being one :func:`~troedler.observe` can
    give, or None: the checks of :func:`determinize`, which it makes first."""
    problem = _shape_problem(observation)
    if problem is not None:
        return problem
    assert isinstance(observation, Observation)  # checked by _shape_problem
    problem = _public_problem(observation)
    if problem is not None:
        return problem
    try:
        state = _dealt(observation, random.Random(0))  # noqa: S311 (a deal, not a secret)
    except ConfigurationError as error:
        return str(error)
    return _consistency_problem(observation, state)


def _shape_problem(o: object) -> str | None:
    """The first field of ``o`` that does not hold a value of its type."""
    if not isinstance(o, Observation):
        return f"expected an Observation, got {quote(o)}"
    if o.recall not in RECALLS:
        return f"recall is 'perfect' or 'table', not {quote(o.recall)}"
    found = position_shape_problem(o, _VIEW_CARDS)
    if found is None and (type(o.seat) is not int or not 0 <= o.seat < len(o.players)):
        found = f"seat {quote(o.seat)} is not a seat of {len(o.players)}"
    return found


def _public_problem(o: Observation) -> str | None:
    """The first fact every seat sees that no game can reach (:func:`public_problems`)."""
    found = table_problems(o) or public_problems(o)
    return found[0][1] if found else None


def _consistency_problem(o: Observation, state: GameState) -> str | None:
    """Why ``o`` is not what its seat knows of ``state``, a state dealt from
    it, or None: the state is one a game can reach (the invariants) and its
    seat, observing it, sees exactly ``o``."""
    found = problems(state)
    if found:
        return found[0]
    seen = observe(state, o.seat, recall=o.recall)
    if seen == o:
        return None
    field = next(name for name in _FIELDS if getattr(seen, name) != getattr(o, name))
    return f"{field} does not show what seat {o.seat} knows with {o.recall} recall (I1-I3)"


_FIELDS = tuple(field.name for field in Observation.__attrs_attrs__)


def _dealt(o: Observation, rng: random.Random) -> GameState:
    """``o`` with its unknown cards dealt at random from the cards it does not show."""
    in_play = cards_in_play(o.cards, o.board, o.num_players)
    known = cards_in_state(o)
    del known[UNKNOWN]
    if known - in_play:
        raise ConfigurationError("not an observation of a game: it holds cards the game lacks")
    pool = list((in_play - known).elements())

    def take(eligible: tuple[type, ...], count: int) -> list[Card]:
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

    discard = list(o.discard_pile.cards)
    portion = hidden_setup_cards(o)
    feed, requests = _setup_pile_left(o.rules, o.phase, discard[:portion], rng)
    hidden_value_cards = sum(
        len(player.value_pile) for seat, player in enumerate(o.players) if not o.knows_hand(seat)
    )
    # A hidden hand that still owes hand-limit discards must be able to make
    # them (T7): it is drawn first, among the hands that can, each weighted by
    # the ways to fill the set-up pile and the value piles after it.
    turn, seat = o.turn, o.current_player
    pending: tuple[Card, ...] | None = None
    if turn.discards_due and seat is not None and not o.knows_hand(seat):
        pending = _pending_hand(
            pool,
            len(o.players[seat].hand),
            (turn.discards_due, turn.last_discard, o.rules.hand_limit),
            (feed, requests, hidden_value_cards),
            rng,
        )
    fill = take((SpecialFeedCard,), feed) + take((RequestCard,), requests)
    rng.shuffle(fill)
    hidden = (i for i in range(portion) if discard[i] is UNKNOWN)
    for i, card in zip(hidden, fill, strict=True):
        discard[i] = card
    players = []
    for other, player in enumerate(o.players):
        if o.knows_hand(other):
            players.append(player)
            continue
        value_pile = sort_hand(take(VALUE_PILE_TYPES, len(player.value_pile)))
        players.append(attrs.evolve(player, value_pile=value_pile))
    rng.shuffle(pool)
    # Everything left is dealt, in random order, into the remaining places.
    players = [
        _with_hand(player, pending if other == seat and pending is not None else None, pool)
        for other, player in enumerate(players)
    ]
    dealer_piles = tuple(None if pile is None else _filled(pile, pool) for pile in o.dealer_piles)
    discard_pile = Pile.of(_filled(tuple(discard), pool))
    # The face-down pile is all unknown: the last cards of the pool, in its order.
    count = len(o.game_round_pile)
    if count > len(pool):
        raise ConfigurationError("the observation has more places than unknown cards")
    game_round_pile = tuple(pool[len(pool) - count :])
    del pool[len(pool) - count :]
    if pool:
        raise ConfigurationError("the observation leaves cards with no place")
    return GameState(
        **{
            **position_fields(o),
            "game_round_pile": game_round_pile,
            "dealer_piles": dealer_piles,
            "discard_pile": discard_pile,
            "players": tuple(players),
        },
        seed=rng.getrandbits(64),
    )


def _with_hand(
    player: PlayerState, pending: tuple[Card, ...] | None, pool: list[Card]
) -> PlayerState:
    """``player`` with the unknown cards of the hand dealt from ``pool``, or
    ``pending`` as the hand where it was drawn already."""
    if pending is None and UNKNOWN not in player.hand:
        return player
    hand = pending if pending is not None else _filled(player.hand, pool)
    return attrs.evolve(player, hand=sort_hand(hand))


def _setup_pile_left(
    rules: Rules, phase: Phase, setup: list[Card], rng: random.Random
) -> tuple[int, int]:
    """How many special feed and goods requests the hidden part of the
    set-up pile ``setup`` (its cards from the bottom) holds: what the rules
    put in it less what is shown (S5, I2). While chance still lays it, the
    part laid is a random part of that make-up."""
    if not setup:
        return 0, 0
    hidden = sum(1 for card in setup if card is UNKNOWN)
    left = setup_pile_left(rules, setup)
    setting_up = phase is Phase.SET_UP
    if left is None or sum(left) < hidden or (not setting_up and sum(left) != hidden):
        raise ConfigurationError("the set-up discard pile shows other cards than its own (I2)")
    feed, requests = left
    if setting_up:
        slots = rng.sample([True] * feed + [False] * requests, hidden)
        return slots.count(True), slots.count(False)
    return feed, requests


def _filled(cards: tuple[Card, ...], pool: list[Card]) -> tuple[Card, ...]:
    """``cards`` with each unknown one dealt from the end of the shuffled ``pool``."""
    if UNKNOWN not in cards:
        return cards
    return tuple(_deal(pool) if card is UNKNOWN else card for card in cards)


def _deal(pool: list[Card]) -> Card:
    if not pool:
        raise ConfigurationError("the observation has more places than unknown cards")
    return pool.pop()


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
    eligible = {card.sort_key for card in discard_options(sort_hand(pool), 1, last)}
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
