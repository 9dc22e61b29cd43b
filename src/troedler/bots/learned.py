"""The learned bot: the greedy bot's way of playing, with a learned value.

:class:`LearnedBot` (``neural`` in a line-up) plays as
:class:`~troedler.bots.greedy.GreedyBot` does: it completes what it knows
into a full state (:func:`~troedler.determinize`), tries every legal move,
and keeps the one whose result it values most; it ends its turn when no
card is worth playing. It values a result with a
:class:`~troedler.bots.value.ValueNetwork` instead of greedy's evaluation:
the odds of winning from there, learned from what a search found in
self-play (see docs/rl.md). It then looks one move past its
:data:`FOLLOW_UPS` best card moves of a turn: such a move is worth the best
move that can follow it in the same turn, ending the turn included. With
``follow_ups=0`` and a fresh network it plays exactly as the greedy bot
does.

One network plays one player count. The networks that ship with troedler
play 2 and 4 players; a three-player table is refused before the first
game. ``LearnedBot.from_file(path)`` (``neural:PATH``) plays a weight file
of your own.

:class:`ValueGuide` lends a network to the search
(:class:`~troedler.bots.ismcts.ISMCTSBot`): it scores the search's leaves
and guides its first moves.

Needs numpy (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt

from troedler.bots.greedy import discard_evaluations, discard_paths
from troedler.bots.ismcts import ISMCTSBot
from troedler.bots.neural import FORMAT as POLICY_FORMAT
from troedler.bots.neural import NeuralBot, WeightsError, read_archive
from troedler.bots.value import ValueNetwork, load_value_network
from troedler.core.errors import ConfigurationError, quote
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import DiscardPile, EndTurn, Move, TakePile
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Phase
from troedler.encoding.tensors import TensorEncoder
from troedler.seat import Observation, determinize

__all__ = [
    "DISCARD_SHORTLIST",
    "FOLLOW_UPS",
    "GUIDED_EXPLORATION",
    "SHIPPED_PLAYERS",
    "Decision",
    "LearnedBot",
    "ValueGuide",
    "Valuer",
    "bot_from_weights",
    "one_move_bot",
    "shipped_network",
    "shipped_path",
]

SHIPPED_PLAYERS = (2, 4)
"""The player counts whose networks ship with troedler."""

_END_TURN = EndTurn()

DISCARD_SHORTLIST = 12
"""Past this many ways to discard down to the hand limit, the network values
only the best of them by greedy's evaluation (a move's time stays in bounds)."""

FOLLOW_UPS = 3
"""How many of its best card moves of a turn the learned bot looks one move
past (its *follow-ups* are the moves that can follow them). Over the same
100 four-player games against three greedy bots, with four-player
generation 2 (since replaced), the bot with one move of
look-ahead won 41%, and looking past its best 3 card moves 67%, at about
7 ms a move. Where a move also kept its own value when that was higher,
looking past the best 2, 3, 5 or all of them won 63%, 65%, 59% and 54%, at
5, 7, 9 and 25 ms a move: past the best few, the follow-ups of moves the
network already rates low add time, not strength."""


GUIDED_EXPLORATION = 1.5
"""The weight of exploration of a search that the networks guide (the plain
search keeps its 0.7). At four players, over the same 80 games against three
greedy bots at 60 iterations a move, guided by four-player generation 2
(since replaced), the guided search won 20% at 0.25, 41%
at 0.7, 57% at 1.5 and 56% at 3; the plain search 55% at 0.7 and 57% at 1.5.
The network's policy leads the first moves, and wider exploration keeps the
search from following it alone."""


def shipped_path(players: int) -> Path:
    """Where the shipped network for ``players`` lies in the package."""
    return Path(str(resources.files("troedler.bots") / "weights" / f"value-{players}p.npz"))


@functools.lru_cache(maxsize=4)
def shipped_network(players: int) -> ValueNetwork:
    """The network for ``players`` that ships with troedler, read once per process.

    Raises :class:`~troedler.bots.neural.WeightsError` for a player count
    without one.
    """
    if players not in SHIPPED_PLAYERS:
        raise WeightsError(
            f"players: the networks that ship with troedler play "
            f"{' and '.join(map(str, SHIPPED_PLAYERS))} players, not {quote(players)}; "
            "name a weight file of your own as neural:PATH"
        )
    return load_value_network(shipped_path(players))


@attrs.frozen(eq=False)
class Decision:
    """The options of one decision, as the learned bot sees them.

    ``moves`` are the options in legal-move order; ``states`` the position
    each leads to, as the bot values it (for ending the turn: after the
    best discards, if any are due); ``scores`` their value for the deciding
    seat, ending the turn's with the network's patience added, so that the
    highest score is the bot's choice (ties to the first, but to ending the
    turn over an equal card).
    """

    moves: tuple[Move, ...]
    states: tuple[GameState, ...]
    scores: npt.NDArray[np.float64]

    def best(self) -> int:
        """The index of the bot's choice."""
        end = next((i for i, move in enumerate(self.moves) if type(move) is EndTurn), None)
        best: int | None = None
        for i, score in enumerate(self.scores):
            if i == end:
                continue
            if best is None or score > self.scores[best]:
                best = i
        if best is None or (end is not None and not self.scores[best] > self.scores[end]):
            assert end is not None
            return end
        return best


class Valuer:
    """A network and a tensor encoder of its own: the learned bot's judgement.

    Every bot, search and labelling run keeps its own (an encoder remembers
    what it encoded last); the network itself is shared.
    """

    def __init__(self, network: ValueNetwork) -> None:
        self.network = network
        self.encoder: TensorEncoder = network.encoder()

    def scores(
        self,
        states: Sequence[GameState],
        seat: int,
        values: Sequence[Sequence[float]] | None = None,
    ) -> npt.NDArray[np.float64]:
        """The score of each of ``states`` for ``seat`` (the logit less the
        bias); ``values`` are their :func:`~troedler.bots.greedy.evaluations`
        where they are known already."""
        return self.network.state_scores(states, seat, self.encoder, values)

    def best_discards(self, state: GameState, seat: int) -> tuple[float, Move, GameState]:
        """The best way for ``seat`` to discard down to the hand limit (T7):
        its score, the first discard, and the position after the last one. As
        :func:`~troedler.bots.greedy.best_discards` does, every path of
        discards is tried and the first of equals kept; past
        :data:`DISCARD_SHORTLIST` paths, the network values only the best of
        them by greedy's evaluation."""
        paths = discard_paths(state)
        values = discard_evaluations([end for _, end in paths], seat)
        if len(paths) > DISCARD_SHORTLIST:
            # Many paths: the network values those greedy's evaluation likes
            # best (ties kept), which always hold greedy's own choice.
            cut = sorted((row[seat] for row in values), reverse=True)[DISCARD_SHORTLIST - 1]
            kept = [i for i, row in enumerate(values) if row[seat] >= cut]
            paths = [paths[i] for i in kept]
            values = [values[i] for i in kept]
        scores = self.scores([end for _, end in paths], seat, values)
        # Paths are listed first discard by first discard: the first of equals wins.
        best = int(np.argmax(scores))
        return float(scores[best]), paths[best][0], paths[best][1]

    def ending(self, state: GameState, seat: int) -> tuple[float, GameState]:
        """The score of ending ``seat``'s turn now, with the best discards after,
        and the position it leads to."""
        after = apply_move(state, _END_TURN)
        if after.turn.discards_due and after.current_player == seat:
            score, _, leaf = self.best_discards(after, seat)
            return score, leaf
        return float(self.scores([after], seat)[0]), after

    def decide(self, state: GameState, seat: int, moves: Sequence[Move]) -> Decision:
        """The options of ``seat`` among ``moves`` in ``state`` (taking piles,
        or playing a turn with no discards due) with their scores."""
        network = self.network
        if state.phase is Phase.TAKE_PILES:
            afters = [apply_move(state, move) for move in moves]
            scores = np.empty(len(moves), dtype=np.float64)
            taking = [i for i, move in enumerate(moves) if not isinstance(move, DiscardPile)]
            if taking:
                scores[taking] = self.scores([afters[i] for i in taking], seat)
            for i, move in enumerate(moves):
                if isinstance(move, DiscardPile):
                    # Throw away what the other player would like best.
                    after = afters[i]
                    other = after.current_player
                    assert other is not None
                    takes = [
                        apply_move(after, TakePile(p))
                        for p, pile in enumerate(after.dealer_piles)
                        if pile is not None
                    ]
                    scores[i] = -float(np.max(self.scores(takes, other)))
            return Decision(tuple(moves), tuple(afters), scores)
        states: list[GameState] = []
        end = None
        for i, move in enumerate(moves):
            if type(move) is EndTurn:
                end = i
                states.append(state)  # replaced below
            else:
                states.append(apply_move(state, move))
        cards = [i for i in range(len(moves)) if i != end]
        scores = np.empty(len(moves), dtype=np.float64)
        if cards:
            scores[cards] = self.scores([states[i] for i in cards], seat)
        if end is not None:
            end_score, states[end] = self.ending(state, seat)
            scores[end] = end_score + network.patience
        return Decision(tuple(moves), tuple(states), scores)

    def look_further(
        self, state: GameState, seat: int, decision: Decision, follow_ups: int
    ) -> Decision:
        """``decision`` (of ``seat`` in ``state``) with each of its
        ``follow_ups`` best card moves worth the best option that can follow
        it in the same turn: another card, or ending the turn. Its ``states``
        stay the positions after the moves themselves. Taking piles, there is
        no turn to look into, and the decision is returned as it is."""
        if state.phase is Phase.TAKE_PILES or not follow_ups:
            return decision
        scores = decision.scores.copy()
        cards = [i for i, move in enumerate(decision.moves) if type(move) is not EndTurn]
        cards.sort(key=lambda i: -decision.scores[i])  # stable: the first of equals first
        for i in cards[:follow_ups]:
            # After a card the same seat plays on: only ending the turn passes
            # it on, and the game ends only at a round's end (E1).
            after = decision.states[i]
            scores[i] = float(np.max(self.decide(after, seat, legal_moves(after)).scores))
        return Decision(decision.moves, decision.states, scores)

    def policy(self, decision: Decision) -> npt.NDArray[np.float64]:
        """The network's policy over a decision's options: a softmax of the
        scores divided by its temperature."""
        scaled = decision.scores / self.network.temperature
        weights = np.exp(scaled - scaled.max())
        return weights / weights.sum()  # type: ignore[no-any-return]

    def priors(self, state: GameState, seat: int, moves: Sequence[Move]) -> list[float]:
        """The network's policy over ``moves``, in their order, looking one
        move past the best :data:`FOLLOW_UPS` card moves of a turn, as the
        learned bot does by default."""
        decision = self.look_further(state, seat, self.decide(state, seat, moves), FOLLOW_UPS)
        return list(self.policy(decision))

    def discard(self, state: GameState, seat: int) -> Move:
        """The first of the best discards to the hand limit."""
        return self.best_discards(state, seat)[1]

    def shares(self, state: GameState) -> list[float]:
        """Each seat's share of a win in ``state``: the outcome once the game is
        over, else each seat's chance of winning by the network, scaled to sum to 1."""
        if state.is_over:
            winners = outcome(state).winners
            return [1.0 / len(winners) if s in winners else 0.0 for s in range(state.num_players)]
        logits = self.network.seat_logits(state, self.encoder)
        chances = 1.0 / (1.0 + np.exp(-logits))
        return list(chances / chances.sum())


def _by_players(
    networks: Mapping[int, ValueNetwork] | ValueNetwork | None,
) -> dict[int, ValueNetwork] | None:
    """Networks by player count, checked (None stays None: the shipped ones)."""
    if networks is None:
        return None
    if isinstance(networks, ValueNetwork):
        return {networks.players: networks}
    for players, network in networks.items():
        if network.players != players:
            raise ConfigurationError(
                f"networks: the network given for {players} players plays {network.players}"
            )
    return dict(networks)


def _network_for(networks: Mapping[int, ValueNetwork] | None, players: int) -> ValueNetwork:
    """The network of ``networks`` (None: the shipped ones) for ``players``."""
    if networks is None:
        return shipped_network(players)
    if players not in networks:
        made = " and ".join(map(str, sorted(networks)))
        raise WeightsError(
            f"players: the network plays {made}-player games, not {players}-player ones"
        )
    return networks[players]


class LearnedBot:
    """Plays the move whose result its value network rates best (``neural``).

    ``networks`` maps a player count to its network; left out, the networks
    that ship with troedler are used (2 and 4 players). ``follow_ups``
    (:data:`FOLLOW_UPS`): how many of its best card moves of a turn it looks
    one move past; 0 looks no further, as greedy. With
    ``exploration``, that share of decisions draws its move from the
    network's policy instead (for self-play); 0, the bot is deterministic
    given its ``rng``.
    """

    def __init__(
        self,
        networks: Mapping[int, ValueNetwork] | ValueNetwork | None = None,
        *,
        follow_ups: int = FOLLOW_UPS,
        exploration: float = 0.0,
        name: str = "neural",
    ) -> None:
        self.networks = _by_players(networks)
        """The networks by player count (None: the shipped ones)."""
        if not 0.0 <= exploration <= 1.0:
            raise ConfigurationError(f"exploration: a share from 0 to 1, not {quote(exploration)}")
        if type(follow_ups) is not int or follow_ups < 0:
            raise ConfigurationError(f"follow_ups: a whole number from 0, not {quote(follow_ups)}")
        self.follow_ups = follow_ups
        self.exploration = exploration
        self.name = name
        self._valuers: dict[int, Valuer] = {}

    @classmethod
    def from_file(cls, path: str | Path, **options: object) -> LearnedBot:
        """A bot playing the value network in the weight file at ``path``."""
        network = load_value_network(path)
        return cls({network.players: network}, **options)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        counts = "shipped" if self.networks is None else sorted(self.networks)
        return f"<LearnedBot {self.name!r}: {counts}>"

    def __getstate__(self) -> dict[str, object]:
        # Valuers hold encoders, which are rebuilt where the bot goes.
        return {**self.__dict__, "_valuers": {}}

    def network(self, players: int) -> ValueNetwork:
        """The network that plays ``players``-player games; a
        :class:`~troedler.bots.neural.WeightsError` if there is none."""
        return _network_for(self.networks, players)

    def check_players(self, num_players: int) -> None:
        """Refuse, before any game, a player count without a network."""
        self.network(num_players)

    def valuer(self, players: int) -> Valuer:
        """This bot's judgement of ``players``-player games."""
        if players not in self._valuers:
            self._valuers[players] = Valuer(self.network(players))
        return self._valuers[players]

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """The move the network values most: by the position it leads to, or
        for the best ``follow_ups`` card moves by the best move that can
        follow them in the turn."""
        if not isinstance(observation, Observation):
            raise ConfigurationError(f"expected an Observation, got {quote(observation)}")
        if len(legal_moves) == 1:
            return legal_moves[0]
        valuer = self.valuer(observation.rules.num_players)
        seat = observation.seat
        state = determinize(observation, rng)
        piles = state.phase is Phase.TAKE_PILES
        if not piles and state.turn.discards_due:
            return valuer.best_discards(state, seat)[1]
        decision = valuer.look_further(
            state, seat, valuer.decide(state, seat, legal_moves), self.follow_ups
        )
        if self.exploration and rng.random() < self.exploration:
            return _draw(decision.moves, valuer.policy(decision), rng)
        if piles:
            return decision.moves[int(np.argmax(decision.scores))]
        return decision.moves[decision.best()]


def one_move_bot(path: str | Path | None = None) -> LearnedBot:
    """The learned bot with one move of look-ahead, as a generation judges its
    network: with the shipped networks (``troedler.bots.learned:one_move_bot``
    in a line-up), or the value network at ``path``
    (``troedler.bots.learned:one_move_bot:PATH``)."""
    if path is None:
        return LearnedBot(follow_ups=0, name="neural-1")
    return LearnedBot.from_file(path, follow_ups=0, name="neural-1")


def bot_from_weights(path: str | Path) -> LearnedBot | NeuralBot:
    """The bot that plays the weight file at ``path``: a :class:`LearnedBot`
    for a value network, a :class:`~troedler.bots.neural.NeuralBot` for a policy."""
    spec, _ = read_archive(path)
    if spec.get("format") == POLICY_FORMAT:
        return NeuralBot(path)
    return LearnedBot.from_file(path)


def _draw(
    moves: Sequence[Move], probabilities: npt.NDArray[np.float64], rng: random.Random
) -> Move:
    draw = rng.random() * math.fsum(probabilities)
    running = 0.0
    for move, probability in zip(moves, probabilities, strict=True):
        running += probability
        if draw < running:
            return move
    return moves[int(np.flatnonzero(probabilities > 0)[-1])]  # rounding at the top


@attrs.frozen(eq=False)
class ValueGuide:
    """Value networks lent to :class:`~troedler.bots.ismcts.ISMCTSBot`: each
    scores the search's leaves (each seat's chance of winning), weights its
    first moves by the network's policy and picks its discards.

    ``networks`` maps a player count to its network (one network stands for
    its own count); left out, the networks that ship with troedler are used
    (``ismcts:N:neural``).
    """

    networks: Mapping[int, ValueNetwork] | None = attrs.field(default=None, converter=_by_players)

    def network(self, players: int) -> ValueNetwork:
        """The network that judges ``players``-player games; a
        :class:`~troedler.bots.neural.WeightsError` if there is none."""
        return _network_for(self.networks, players)

    def check_players(self, num_players: int) -> None:
        """Refuse, before any game, a player count without a network."""
        self.network(num_players)

    def judge(self, players: int) -> Valuer:
        """A judgement of the network's own, for one decision."""
        return Valuer(self.network(players))

    def search(self, iterations: int, *, name: str = "ismcts+neural") -> ISMCTSBot:
        """The search of ``iterations`` a move that these networks guide, with
        the exploration that suits them (:data:`GUIDED_EXPLORATION`)."""
        return ISMCTSBot(
            iterations=iterations, exploration=GUIDED_EXPLORATION, name=name, guide=self
        )
