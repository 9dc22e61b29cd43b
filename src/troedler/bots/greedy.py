"""A greedy bot: one move of look-ahead on a planning evaluation.

It completes what it knows into a full state (:func:`~troedler.determinize`),
tries every legal move, and keeps the one whose result it likes best; it ends
its turn when no card improves its position. The evaluation plans ahead:
how close each goods request in hand is to complete, how far the cart is
from the goods still missing and, with a request ready, from an empty
village to deliver to; and its own damage against the other players', since
alone at the top of damage it would lose everything (E3, E4).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import attrs

from troedler.core.board import Board
from troedler.core.cards import ExtraGoodCard, RequestCard, RouteCard, SpecialFeedCard
from troedler.core.goods import Good
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import DiscardPile, EndTurn, Move, TakePile
from troedler.core.scoring import Tally, value_pile_tally
from troedler.core.state import GameState, Phase
from troedler.seat import Observation, determinize

__all__ = [
    "GreedyBot",
    "best_discards",
    "discard_evaluations",
    "discard_paths",
    "ending_value",
    "evaluate",
    "evaluations",
]

FAR = 6
PATIENCE_ROUNDS = 20
"""Past this round the fear of leading the damage table fades (see evaluate)."""


@functools.lru_cache(maxsize=8)
def _distances(board: Board) -> tuple[tuple[int, ...], ...]:
    """Routes between every two villages (any kind), by breadth-first search."""
    count = len(board.villages)
    rows = []
    for start in range(count):
        row = [FAR] * count
        row[start] = 0
        frontier = [start]
        while frontier:
            following = []
            for here in frontier:
                for there in board.targets(here):
                    if row[there] > row[here] + 1:
                        row[there] = row[here] + 1
                        following.append(there)
            frontier = following
        rows.append(tuple(row))
    return tuple(rows)


def _tally(state: GameState, seat: int) -> Tally:
    """``seat``'s tally if the game ended now, counting what its turn has played."""
    player = state.players[seat]
    cards = player.value_pile
    if state.current_player == seat:
        cards += state.turn.played  # they join the value pile when the turn ends (T6)
    return value_pile_tally(cards, len(player.goods))


def evaluate(state: GameState, seat: int) -> float:
    """How much ``seat`` likes ``state``, in rough points: higher is better."""
    return _evaluate(state, seat, _Shared.of(state))


def evaluations(state: GameState) -> list[float]:
    """:func:`evaluate` of ``state`` for every seat, in seat order (what the
    seats share is worked out once for all)."""
    shared = _Shared.of(state)
    return [_evaluate(state, seat, shared) for seat in range(state.num_players)]


@attrs.frozen
class _Shared:
    """What every seat's evaluation of one position shares."""

    tallies: tuple[Tally, ...]
    """Each seat's tally (:func:`_tally`)."""
    urgency: float
    """How much leading the damage table is feared now (see :func:`_evaluate`)."""
    holders: tuple[tuple[int, ...], ...]
    """By good, the villages that have some of it."""

    @classmethod
    def of(cls, state: GameState) -> _Shared:
        """What the seats of ``state`` share."""
        tallies = tuple(_tally(state, seat) for seat in range(state.num_players))
        # Early on the damage table will change many times; near the end it decides.
        most_done = max(len(p.fulfilled_requests) for p in state.players)
        urgency = min(1.0, max(0.15, (most_done + 1) / state.rules.end_threshold))
        # A game dragging on this long is a stand-off: the damage table is level
        # and whoever moves first would lead it. Only a player who risks the lead
        # can break it, so the fear fades round by round.
        if state.round > PATIENCE_ROUNDS:
            urgency *= max(0.1, 1 - (state.round - PATIENCE_ROUNDS) / PATIENCE_ROUNDS)
        holders: list[list[int]] = [[] for _ in Good]
        for village, there in enumerate(state.village_goods):
            for good in there.kinds():
                holders[good].append(village)
        return cls(tallies, urgency, tuple(map(tuple, holders)))


def _evaluate(state: GameState, seat: int, shared: _Shared) -> float:
    player = state.players[seat]
    board = state.board
    mine = state.current_player == seat
    tallies = shared.tallies
    tally = tallies[seat]
    goods = player.goods
    # Goods count a point each at the end, but a request needs them more:
    # needed goods earn their worth through the requests below.
    done = len(tally.request_points)
    score = sum(tally.request_points) + 0.5 * done + 0.2 * len(goods)

    # Damage only hurts at the top of the table, but there it costs everything.
    damage = tally.damage
    worst_other = max(tallies[other].damage for other in range(len(tallies)) if other != seat)
    lead = damage - worst_other - (2 if state.rules.two_player_rules else 0)
    urgency = shared.urgency
    # Feed used is damage for good; goods held are damage only until delivered.
    feed_used = tally.feed_used
    score -= 1.5 * feed_used + 0.3 * (damage - feed_used)
    if lead > 0:
        score -= urgency * (0.5 * tally.points + 4.0 * lead + 3.0)
    elif lead == 0:
        score -= urgency * 1.0

    distances = _distances(board)[board.index(player.cart)]
    missing_kinds: set[Good] = set()
    ready = False
    worths = []
    for card in player.hand:
        if isinstance(card, RequestCard):
            missing = card.goods - goods
            have = len(card.goods) - len(missing)
            # Worth less in hand than delivered, more the nearer it is to complete.
            worths.append(card.points * (0.15 + 0.45 * have / len(card.goods)))
            if missing:
                missing_kinds.update(missing.kinds())
            else:
                ready = True
                score += 0.15 * card.points
    # Two requests in hand are a plan; more of them clog the hand.
    worths.sort(reverse=True)
    score += sum(worths[:2]) + 0.25 * sum(worths[2:])
    if missing_kinds:
        holders = shared.holders
        near = min((distances[v] for kind in missing_kinds for v in holders[kind]), default=FAR)
        score -= 0.4 * near
    if ready:
        # A village takes a delivery once it is empty: count the goods to
        # clear out of it as steps too.
        delivered = state.turn.delivered_to if mine else ()
        near = min(
            (distances[v] + len(there) for v, there in enumerate(state.village_goods)
             if board.villages[v].name not in delivered),
            default=FAR,
        )  # fmt: skip
        score -= 0.6 * min(near, FAR)

    feed = 0
    for card in player.hand:
        if isinstance(card, RouteCard):
            score += 0.3
        elif isinstance(card, ExtraGoodCard):
            score += 0.4
        elif isinstance(card, SpecialFeedCard):
            feed += 1
    # A little feed is a reserve; more of it clogs the hand (T7 never lets it
    # go, and once every hand is clogged with feed nobody can deliver).
    score += 0.4 * min(feed, 2) - 0.5 * max(0, feed - 2)
    return score


def _first_two(scored: tuple[float, int, Move]) -> tuple[float, int]:
    return scored[0], scored[1]


_END_TURN = EndTurn()


def ending_value(state: GameState, seat: int) -> float:
    """How much ``seat`` likes ending its turn now, with the best discards after."""
    after = apply_move(state, _END_TURN)
    if after.turn.discards_due and after.current_player == seat:
        return best_discards(after, seat)[0]
    return evaluate(after, seat)


def discard_paths(state: GameState) -> list[tuple[Move, GameState]]:
    """Every way to discard down to the hand limit (T7) from ``state``: the
    first discard of each path and the position after the last, paths in
    the order of their first discards.

    Discards go in hand order, so every choice of cards is one path.
    """
    paths: list[tuple[Move, GameState]] = []
    _add_paths(state, None, paths)
    return paths


def _add_paths(state: GameState, first: Move | None, paths: list[tuple[Move, GameState]]) -> None:
    for move in legal_moves(state):
        after = apply_move(state, move)
        here = move if first is None else first
        # While discards are due they are still the same player's.
        if after.turn.discards_due:
            _add_paths(after, here, paths)
        else:
            paths.append((here, after))


def discard_evaluations(ends: Sequence[GameState], seat: int) -> list[list[float]]:
    """:func:`evaluations` of each of ``ends``, the positions that ways for
    ``seat`` to discard to the hand limit lead to from one position
    (:func:`discard_paths`). A discard changes only the discarding hand, so
    what the seats share and every other seat's value are worked out once."""
    if not ends:
        return []
    shared = _Shared.of(ends[0])
    others = [_evaluate(ends[0], other, shared) for other in range(ends[0].num_players)]
    rows = []
    for end in ends:
        row = others.copy()
        row[seat] = _evaluate(end, seat, shared)
        rows.append(row)
    return rows


def best_discards(state: GameState, seat: int) -> tuple[float, Move]:
    """The best way for ``seat`` to discard down to the hand limit (T7): the
    evaluation of the turn's end, and the discard to make first (the first
    of equals)."""
    paths = discard_paths(state)
    values = [row[seat] for row in discard_evaluations([end for _, end in paths], seat)]
    best = values.index(max(values))  # the first of equals
    return values[best], paths[best][0]


@attrs.frozen
class GreedyBot:
    """Plays the move whose result its planning evaluation likes best."""

    name: str = "greedy"
    patience: float = 0.05
    """How much better a card must make things to be worth playing."""

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """The best move by :func:`evaluate` after one move of look-ahead."""
        if len(legal_moves) == 1:
            return legal_moves[0]
        seat = observation.seat
        state = determinize(observation, rng)
        if state.phase is Phase.TAKE_PILES:
            return self._pile(state, seat, legal_moves)
        if state.turn.discards_due:
            return best_discards(state, seat)[1]
        # Compare each card with the best way to end the turn now, not with
        # the position as it stands: cards over the hand limit are lost then.
        end_value = ending_value(state, seat)
        best_play: tuple[float, int, Move] | None = None
        for i, move in enumerate(legal_moves):
            if isinstance(move, EndTurn):
                continue
            scored = (evaluate(apply_move(state, move), seat), -i, move)
            if best_play is None or _first_two(scored) > _first_two(best_play):
                best_play = scored
        if best_play is not None and best_play[0] > end_value + self.patience:
            return best_play[2]
        return _END_TURN

    def _pile(self, state: GameState, seat: int, legal_moves: Sequence[Move]) -> Move:
        def worth(move: Move) -> float:
            if isinstance(move, DiscardPile):
                # Throw away what the other player would like best.
                after = apply_move(state, move)
                other = after.current_player
                assert other is not None
                return -max(
                    evaluate(apply_move(after, take), other)
                    for take in (
                        TakePile(i) for i, p in enumerate(after.dealer_piles) if p is not None
                    )
                )
            return evaluate(apply_move(state, move), seat)

        return max(legal_moves, key=worth)
