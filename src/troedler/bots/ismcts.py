"""Information-set Monte Carlo tree search (single observer).

Each iteration deals the cards the bot cannot see at random
(:func:`~troedler.determinize`), walks one shared tree of moves down as far
as the tree reaches, adds one move, plays on to the end of the next round with a
quick policy (deliver when possible, else fetch a good a request in hand is
missing, else end the turn) and scores the position for every seat. A
move's statistics count only the iterations in which it was legal
(availability counts), so the tree stays sound although every iteration
sees a different deal.

Three choices keep the search narrow and well aimed. Ending a turn is one
branch, whatever the cards over the hand limit (they are chosen by how much
each card is worth keeping); at the root the bot then picks the discard with
the greedy evaluation. Positions that are not the end of the game are
scored with :func:`~troedler.bots.greedy.evaluate`, turned into shares of a
win that sum to one across the seats. And at the root the greedy
evaluation's preference among the bot's own moves guides which to search
first (PUCT), fading as evidence gathers.

A *guide* (:class:`~troedler.bots.learned.ValueGuide`, a learned value
network) can take the greedy evaluation's place in all three: it scores
the leaves with each seat's chance of winning, guides the first moves by
its policy, and picks the discards. :meth:`ISMCTSBot.search` gives what
the search found at the root, for training.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Protocol, cast

import attrs

from troedler.bots.base import check_players
from troedler.bots.greedy import best_discards, ending_value, evaluate
from troedler.core.cards import (
    Card,
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
    sort_hand,
)
from troedler.core.errors import ConfigurationError
from troedler.core.goods import Good, Goods
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import DiscardCard, EndTurn, Move, PlayExtraGood, PlayRequest, PlayRoute
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Phase
from troedler.seat import Observation, determinize

__all__ = ["Guide", "ISMCTSBot", "Judge", "Search"]

Choice = Move | None
"""A branch of the tree: a move, or None for ending the turn."""

_END_TURN = EndTurn()

PLIES_PER_ROUND = 40
"""Most moves a playout makes per round before the position is scored."""


class Judge(Protocol):
    """What a guided search asks its guide, for one decision."""

    def shares(self, state: GameState) -> Sequence[float]:
        """Each seat's share of a win in ``state``; the shares sum to one."""
        ...

    def priors(self, state: GameState, seat: int, moves: Sequence[Move]) -> Sequence[float]:
        """How strongly to search each of ``seat``'s ``moves`` first, in their order."""
        ...

    def discard(self, state: GameState, seat: int) -> Move:
        """The discard ``seat`` makes to the hand limit (T7)."""
        ...


class Guide(Protocol):
    """Something that guides a search: it gives a :class:`Judge` for each decision."""

    def judge(self, players: int) -> Judge:
        """A judge of its own for one decision in a game of ``players``
        (judges may keep state)."""
        ...


@attrs.frozen
class Search:
    """What a search found at the root: each choice (None: ending the turn)
    with its visits, its mean share of the win over them (None when never
    visited), and its prior."""

    choices: tuple[Choice, ...]
    visits: tuple[int, ...]
    values: tuple[float | None, ...]
    priors: tuple[float, ...]

    def best(self) -> int:
        """The index of the choice searched most (the higher prior among equals,
        then the first)."""
        return max(range(len(self.choices)), key=lambda i: (self.visits[i], self.priors[i]))


@attrs.define(slots=True, eq=False)
class _Node:
    """Statistics of one branch, from the view of the seat that chose it."""

    visits: int = 0
    available: int = 0
    reward: float = 0.0
    children: dict[Choice, _Node] = attrs.field(factory=dict)


def _choices(moves: Sequence[Move]) -> list[Choice]:
    # legal_moves lists ending the turn last.
    if moves and type(moves[-1]) is EndTurn:
        return [*moves[:-1], None]
    return list(moves)


def _keep_worth(card: Card, goods: Goods) -> float:
    """How much a card is worth keeping over the hand limit, in rough points."""
    if isinstance(card, RequestCard):
        missing = len(card.goods - goods)
        return card.points * (1.0 - missing / len(card.goods)) + 0.5
    if isinstance(card, ExtraGoodCard):
        return 0.4
    if isinstance(card, RouteCard):
        return 0.3
    return 0.0


def _quick_end_turn(state: GameState) -> GameState:
    """End the turn, throwing away the cards over the hand limit worth least."""
    state = apply_move(state, _END_TURN)
    due = state.turn.discards_due
    if not due:
        return state
    seat = cast(int, state.current_player)  # discards are due: the turn's player
    player = state.players[seat]
    cheapest = sorted(
        (card for card in player.hand if type(card) is not SpecialFeedCard),
        key=lambda card: _keep_worth(card, player.goods),
    )
    discard = sort_hand(cheapest[:due])
    # Discards go in hand order, and the engine makes those that leave no
    # choice itself: they are always the next cards of the sorted choice.
    while state.turn.discards_due:
        state = apply_move(state, DiscardCard(discard[due - state.turn.discards_due]))
    return state


def _apply(state: GameState, choice: Choice) -> GameState:
    if choice is None:
        return _quick_end_turn(state)
    return apply_move(state, choice)


def _playout_move(state: GameState, moves: Sequence[Move], rng: random.Random) -> Choice:
    """A quick, purposeful move: deliver when possible, else fetch a missing good.

    Playouts stand in for every player's future, so they must not squander
    goods or feed: random routes would heap up goods (damage) for nothing,
    and make every position look alike.
    """
    if state.phase is Phase.TAKE_PILES:
        return moves[rng.randrange(len(moves))]
    seat = state.current_player
    assert seat is not None  # only asked while the game runs
    player = state.players[seat]
    wanted: set[Good] = set()
    for card in player.hand:
        if type(card) is RequestCard:
            wanted.update((card.goods - player.goods).kinds())
    best_delivery: PlayRequest | None = None
    best_gain = 0
    fetching: list[Move] = []
    # One pass: playouts make most of a search's moves.
    for move in moves:
        if isinstance(move, PlayRoute):
            if move.take in wanted:
                fetching.append(move)
        elif isinstance(move, PlayExtraGood):
            if move.good in wanted:
                fetching.append(move)
        elif isinstance(move, PlayRequest):
            gain = move.request.points - move.feed_cost
            if best_delivery is None or gain > best_gain:
                best_delivery, best_gain = move, gain
    if best_delivery is not None:
        return best_delivery
    if fetching:
        return fetching[rng.randrange(len(fetching))]
    return None


def _shares(state: GameState, temperature: float) -> list[float]:
    """Each seat's share of a win in ``state``; the shares sum to one."""
    if state.is_over:
        winners = outcome(state).winners
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(state.num_players)]
    values = [evaluate(state, seat) for seat in range(state.num_players)]
    top = max(values)
    weights = [math.exp((value - top) / temperature) for value in values]
    total = sum(weights)
    return [weight / total for weight in weights]


@attrs.frozen
class ISMCTSBot:
    """Searches a tree of moves over random deals of the cards it cannot see.

    The budget is ``iterations`` per move; with ``seconds`` the search also
    stops when that much time has passed, which makes games depend on the
    machine's speed (iterations alone replay exactly).
    """

    iterations: int = 200
    seconds: float | None = None
    exploration: float = 0.7
    """The weight of exploration: higher tries more moves."""
    temperature: float = 3.0
    """How sharply an evaluation lead turns into a share of the win."""
    prior_temperature: float = 0.5
    """How sharply the greedy evaluation's preference guides the root."""
    playout_rounds: int = 2
    """Rounds a playout plays to their end: 1 ends the current round, 2 also the next."""
    name: str = "ismcts"
    guide: Guide | None = None
    """What scores the leaves and guides the root in place of the greedy evaluation."""

    def __attrs_post_init__(self) -> None:
        if self.iterations < 1:
            raise ConfigurationError(f"ismcts needs at least 1 iteration, not {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise ConfigurationError(f"ismcts needs a positive time budget, not {self.seconds}")
        if self.playout_rounds < 1:
            raise ConfigurationError(
                f"ismcts playouts need at least 1 round, not {self.playout_rounds}"
            )
        for name in ("exploration", "temperature", "prior_temperature"):
            if not getattr(self, name) > 0:
                raise ConfigurationError(f"ismcts needs a positive {name}")

    def check_players(self, num_players: int) -> None:
        """Refuse, before any game, a player count the guide cannot judge."""
        if self.guide is not None:
            check_players(self.guide, num_players)

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """The move searched most often."""
        if len(legal_moves) == 1:
            return legal_moves[0]
        if observation.turn.discards_due:
            # Ending the turn was one branch of the search; its discards are
            # chosen with the greedy evaluation (or the guide), as at the root.
            state = determinize(observation, rng)
            if self.guide is not None:
                return self.guide.judge(state.num_players).discard(state, observation.seat)
            return best_discards(state, observation.seat)[1]
        found = self.search(observation, legal_moves, rng)
        best = found.choices[found.best()]
        return _END_TURN if best is None else best

    def search(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Search:
        """Search the decision of ``observation``'s seat among ``legal_moves``
        (no discards due) and say what was found at the root."""
        judge = None if self.guide is None else self.guide.judge(observation.rules.num_players)
        # The root is the bot's own decision: its choices are the same in every deal.
        choices = _choices(legal_moves)
        priors = self._priors(determinize(observation, rng), legal_moves, judge)
        root = {choice: _Node() for choice in choices}
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        for done in range(self.iterations):
            # PUCT at the root: the prior preference fades as the search
            # gathers evidence.
            scale = self.exploration * math.sqrt(done + 1)
            choice = max(
                choices, key=lambda c: _mean(root[c]) + scale * priors[c] / (1 + root[c].visits)
            )
            state = determinize(observation, rng)
            self._iterate(root[choice], _apply(state, choice), observation.seat, rng, judge)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return Search(
            choices=tuple(choices),
            visits=tuple(root[c].visits for c in choices),
            values=tuple(
                root[c].reward / root[c].visits if root[c].visits else None for c in choices
            ),
            priors=tuple(priors[c] for c in choices),
        )

    def _priors(
        self, state: GameState, moves: Sequence[Move], judge: Judge | None
    ) -> dict[Choice, float]:
        """How strongly the greedy evaluation (or the guide) prefers each choice at the root."""
        seat = state.current_player
        assert seat is not None
        if judge is not None:
            return dict(zip(_choices(moves), judge.priors(state, seat, moves), strict=True))
        values: dict[Choice, float] = {}
        for choice in _choices(moves):
            if choice is None:
                values[None] = ending_value(state, seat)
            else:
                values[choice] = evaluate(apply_move(state, choice), seat)
        top = max(values.values())
        weights = {c: math.exp((v - top) / self.prior_temperature) for c, v in values.items()}
        total = sum(weights.values())
        return {c: weight / total for c, weight in weights.items()}

    def _iterate(
        self, first: _Node, state: GameState, seat: int, rng: random.Random, judge: Judge | None
    ) -> None:
        """One iteration below the root's ``first`` choice, made by ``seat``."""
        path = [(first, seat)]
        node = first
        while not state.is_over:
            moves = legal_moves(state)
            choices = _choices(moves)
            mover = state.current_player
            assert mover is not None
            children = node.children
            untried = [choice for choice in choices if choice not in children]
            if untried:
                choice = untried[rng.randrange(len(untried))]
                children[choice] = _Node()
            else:
                choice = max(choices, key=lambda c: self._ucb(children[c]))
            for other in choices:
                if other in children:
                    children[other].available += 1
            node = children[choice]
            path.append((node, mover))
            state = _apply(state, choice)
            if untried:
                break
        end = self._playout(state, rng)
        shares = _shares(end, self.temperature) if judge is None else judge.shares(end)
        for node, mover in path:
            node.visits += 1
            node.reward += shares[mover]

    def _ucb(self, node: _Node) -> float:
        return _mean(node) + self.exploration * math.sqrt(math.log(node.available) / node.visits)

    def _playout(self, state: GameState, rng: random.Random) -> GameState:
        end = state.round + self.playout_rounds
        for _ in range(PLIES_PER_ROUND * self.playout_rounds):
            if state.is_over or state.round >= end:
                break
            state = _apply(state, _playout_move(state, legal_moves(state), rng))
        return state


def _mean(node: _Node) -> float:
    # An untried move is taken to be worth a fair share of an even game.
    return node.reward / node.visits if node.visits else 0.5
