"""Damage and points at the end of the game (E2-E6)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from troedler.core import rulebook
from troedler.core.cards import Card
from troedler.core.errors import ConfigurationError, TroedlerError, quote
from troedler.core.goods import TOTAL_GOODS
from troedler.core.rulebook import MAX_PLAYERS, MIN_PLAYERS
from troedler.core.state import GameState, Position

__all__ = [
    "Outcome",
    "Tally",
    "outcome",
    "score",
    "value_pile_tally",
]


_INT = {int}


@attrs.frozen
class Tally:
    """What one player brings to the final scoring.

    ``feed_used`` is the special feed on their value pile (not in hand),
    ``goods_held`` the goods still in front of them, ``request_points`` the
    points of each fulfilled goods request.
    """

    feed_used: int
    goods_held: int
    request_points: tuple[int, ...] = ()

    def __attrs_post_init__(self) -> None:
        # The one check of a tally, made as it is built: cheap, since the
        # greedy bot builds a tally for every move it weighs.
        feed, goods, points = self.feed_used, self.goods_held, self.request_points
        bad = (
            type(feed) is not int
            or type(goods) is not int
            or feed < 0
            or not 0 <= goods <= TOTAL_GOODS
            or type(points) is not tuple
            # A bool or a float is no point: only ints, compared once they are.
            or bool(points and (set(map(type, points)) != _INT or min(points) < 0))
        )
        if bad:
            raise ConfigurationError(
                f"Tally: expected counts of 0 or more, at most {TOTAL_GOODS} goods (feed_used "
                f"{quote(feed)}, goods_held {quote(goods)}) and a tuple of points of 0 or more "
                f"(request_points {quote(points)})"
            )

    @property
    def damage(self) -> int:
        """Feed used plus half the goods held, rounded up (E2)."""
        return rulebook.damage(self.feed_used, self.goods_held)

    @property
    def points(self) -> int:
        """Request points plus one per good held (E5)."""
        return rulebook.total_points(sum(self.request_points), self.goods_held)


@attrs.frozen
class Outcome:
    """The result of a game: per-seat damage and points, who lost, who won."""

    tallies: tuple[Tally, ...]
    damage: tuple[int, ...]
    totally_damaged: frozenset[int]
    """Seats that suffered total damage (E3, E4): they cannot win."""
    points: tuple[int, ...]
    winners: frozenset[int]


def score(tallies: Sequence[Tally], *, two_player_rules: bool | None = None) -> Outcome:
    """Score 2 to 4 players' tallies (E2-E6).

    ``two_player_rules`` (default: exactly two tallies) picks total damage by
    a margin of 3 (E4) instead of a sole highest damage (E3).

    >>> result = score([Tally(4, 5, (7, 6, 5, 3)), Tally(6, 0, (7, 7, 4, 3, 3))])
    >>> result.damage, result.points, sorted(result.winners)
    ((7, 6), (26, 24), [0])
    """
    if isinstance(tallies, str | bytes) or not isinstance(tallies, Iterable):
        raise ConfigurationError(f"score needs a sequence of tallies, not {quote(tallies)}")
    tallies = tuple(tallies)
    if not MIN_PLAYERS <= len(tallies) <= MAX_PLAYERS:
        raise ConfigurationError(f"S1: scoring needs 2 to 4 players, got {len(tallies)}")
    for seat, tally in enumerate(tallies):
        if not isinstance(tally, Tally):  # a Tally checks its numbers as it is built
            raise ConfigurationError(f"tally of seat {seat} must be a Tally, got {quote(tally)}")
    if two_player_rules is None:
        two_player_rules = len(tallies) == MIN_PLAYERS
    damage = tuple(tally.damage for tally in tallies)
    points = tuple(tally.points for tally in tallies)
    totally_damaged = _totally_damaged(damage, two_player_rules)
    contenders = [seat for seat in range(len(tallies)) if seat not in totally_damaged]
    standings = {
        seat: rulebook.standing(points[seat], tallies[seat].goods_held) for seat in contenders
    }
    best = max(standings.values())
    winners = frozenset(seat for seat, standing in standings.items() if standing == best)
    return Outcome(tallies, damage, totally_damaged, points, winners)


def _totally_damaged(damage: tuple[int, ...], two_player_rules: bool) -> frozenset[int]:
    if two_player_rules and len(damage) != MIN_PLAYERS:
        raise ConfigurationError("E4: two-player scoring needs exactly 2 tallies")
    highest = max(damage)
    at_highest = damage.count(highest)
    return frozenset(
        seat
        for seat, mine in enumerate(damage)
        # The other's damage matters only with two players: seat 1 - seat.
        if rulebook.totally_damaged(mine, highest, at_highest, damage[-1 - seat], two_player_rules)
    )


def tally(state: Position, seat: int) -> Tally:
    """Seat ``seat``'s tally as things stand, in a state or in a seat's view
    that knows that seat's value pile (:meth:`~troedler.Position.knows_hand`)."""
    if not isinstance(state, Position):
        raise ConfigurationError(f"tally needs a GameState, not {quote(state)}")
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise ConfigurationError(f"seat must be 0 to {state.num_players - 1}, not {quote(seat)}")
    if not state.knows_hand(seat):
        raise ConfigurationError(f"the value pile of seat {seat} is not known here (I3)")
    player = state.players[seat]
    return value_pile_tally(player.value_pile, len(player.goods))


def value_pile_tally(value_pile: Iterable[Card], goods_held: int) -> Tally:
    """The tally of the cards on a value pile and the goods held (E2, E5).

    The special feed among ``value_pile`` is the feed used, the goods
    requests are the fulfilled ones, in the pile's order. The pictures read
    a seat's tally through this too, with the cards its turn has played so
    far (which join the value pile when the turn ends, T6).
    """
    feed_used, requests = rulebook.value_pile_parts(value_pile)
    return Tally(feed_used, goods_held, tuple(request.points for request in requests))


def outcome(state: GameState) -> Outcome:
    """The result of a finished game; :class:`TroedlerError` if it is not over."""
    if not isinstance(state, GameState):
        raise ConfigurationError(f"outcome needs a GameState, not {quote(state)}")
    if not state.is_over:
        raise TroedlerError(f"E1: the game is not over (round {state.round}, {state.phase.value})")
    return score(
        [tally(state, seat) for seat in range(state.num_players)],
        two_player_rules=state.rules.two_player_rules,
    )
