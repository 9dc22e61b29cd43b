"""Observations as flat ``float32`` arrays of one fixed length, for neural networks.

:func:`observation_tensor` turns an :class:`~troedler.Observation` (what one
seat knows, with perfect recall or from the table alone) into a numpy array.
It reads nothing but the observation, so the array never holds more than
that seat may know; cards the seat does not know are simply not counted.

The array is a row of named slices (:class:`TensorLayout`). Its length
depends on the board, the card catalogue and the number of players, never
on the state. Per-seat slices are in *relative* seat order: row 0 is the
observing seat, row 1 the next seat clockwise, and so on, so that a network
sees every seat's position the same way. Cards are counted per card type in
the order of :func:`troedler.adapters.actions.card_types`; goods in
:class:`~troedler.Good` order; villages in board order.

Needs numpy (``pip install 'troedler[rl]'``).

>>> from troedler import new_game, observe
>>> tensor = observation_tensor(observe(new_game(3, seed=1), 0, recall="table"))
>>> tensor.dtype, tensor.shape == (tensor_layout_for(3).size,)
(dtype('float32'), True)
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import cast

import attrs
import numpy as np
import numpy.typing as npt

from troedler.adapters.actions import card_types
from troedler.board import Board, default_board
from troedler.cards import Card, CardCatalogue, RequestCard, SpecialFeedCard, default_cards
from troedler.datafile import describe
from troedler.errors import ConfigurationError
from troedler.goods import Goods
from troedler.rules import Rules
from troedler.state import Phase
from troedler.views import Observation

__all__ = [
    "TensorLayout",
    "TensorSlice",
    "observation_tensor",
    "tensor_layout",
    "tensor_layout_for",
]

_PHASES = tuple(Phase)
_TAKE_PILES, _PLAY_TURNS = _PHASES.index(Phase.TAKE_PILES), _PHASES.index(Phase.PLAY_TURNS)
_SORT_KEY = operator.attrgetter("sort_key")
# dtype objects, not the type names: numpy converts a name on every call.
_BYTE, _FLOAT = np.dtype(np.uint8), np.dtype(np.float32)
_MEMO_SIZE = 1024
"""Card tuples whose counts a layout keeps (see TensorLayout._counts)."""
_GOODS = 6


@attrs.frozen
class TensorSlice:
    """One named part of the tensor: ``tensor[start:stop]``, read as ``shape``."""

    name: str
    start: int
    stop: int
    shape: tuple[int, ...]
    description: str = attrs.field(eq=False, repr=False)

    @property
    def size(self) -> int:
        """How many numbers the slice holds."""
        return self.stop - self.start


def _slice_specs(players: int, villages: int, types: int) -> list[tuple[str, tuple[int, ...], str]]:
    """Name, shape and meaning of every slice, in tensor order."""
    n, v, t, piles = players, villages, types, players + 1
    return [
        ("seat", (n,), "the observing seat, one-hot (absolute seat number)"),
        ("recall", (1,), "1 with perfect recall, 0 with the table view"),
        ("round", (1,), "the round number, from 1"),
        ("phase", (len(_PHASES),), "set up, form piles, take piles, play turns, game over"),
        ("dealer", (n,), "the dealer, one-hot by relative seat"),
        ("current_player", (n,), "the seat to decide, one-hot by relative seat; 0 once over"),
        ("discards_due", (1,), "cards the current player still has to discard (T7)"),
        ("last_discard", (t,), "the card type last discarded in this obligation, one-hot"),
        ("played", (t,), "cards played this turn, per card type"),
        ("delivered_to", (v,), "1 for each village that received a goods request this turn"),
        ("village_goods", (v, _GOODS), "goods in each village, per good"),
        ("carts", (n, v), "each seat's cart, one-hot per village"),
        ("goods", (n, _GOODS), "each seat's collected goods, per good"),
        ("hand_sizes", (n,), "cards in each seat's hand"),
        ("hands_known", (n,), "1 where the seat's hand is known"),
        ("hands", (n, t), "known hands, per card type (0 where not known)"),
        ("value_pile_sizes", (n,), "cards on each seat's value pile"),
        ("value_piles_known", (n,), "1 where the seat's value pile is known"),
        ("value_piles", (n, t), "known value piles, per card type (0 where not known)"),
        ("requests_fulfilled", (n,), "goods requests on each known value pile"),
        ("request_points", (n,), "points of those requests"),
        ("feed_used", (n,), "special feed on each known value pile (damage, E2)"),
        ("dealer_piles_present", (piles,), "1 for each dealer pile lying on the table"),
        ("dealer_piles_unknown", (piles,), "cards of each dealer pile the seat does not know"),
        ("dealer_piles", (piles, t), "known cards of each dealer pile, per card type"),
        ("discard_pile_size", (1,), "cards on the discard pile"),
        ("discard_pile_unknown", (1,), "cards of it the seat does not know"),
        ("discard_pile", (t,), "known cards of the discard pile, per card type"),
        ("game_round_pile_size", (1,), "cards in the face-down game-round pile"),
    ]


class TensorLayout:
    """Where each part of an observation goes in the tensor, for one game size.

    Build it with :func:`tensor_layout`, which keeps one per board, catalogue
    and player count.
    """

    board: Board
    cards: CardCatalogue
    num_players: int
    card_types: tuple[Card, ...]
    """The card types counted in per-card slices, in their order."""
    slices: tuple[TensorSlice, ...]
    """Every slice, in tensor order; together they cover the whole tensor."""
    size: int
    """The length of every tensor of this layout."""

    def __init__(self, board: Board, cards: CardCatalogue, num_players: int) -> None:
        if not isinstance(board, Board) or not isinstance(cards, CardCatalogue):
            raise ConfigurationError("a tensor layout needs a Board and a CardCatalogue")
        Rules.for_players(num_players)  # ConfigurationError (S1) for a bad count
        self.board = board
        self.cards = cards
        self.num_players = num_players
        self.card_types = card_types(cards)
        slices = []
        start = 0
        for name, shape, description in _slice_specs(
            num_players, len(board.villages), len(self.card_types)
        ):
            size = int(np.prod(shape))
            slices.append(TensorSlice(name, start, start + size, shape, description))
            start += size
        self.slices = tuple(slices)
        self.size = start
        self._offsets = tuple(s.start for s in slices)
        at = {s.name: s.start for s in slices}
        t, v = len(self.card_types), len(board.villages)
        # Where each relative seat's numbers go: row 0 is the observing seat.
        self._rows = tuple(
            (
                at["carts"] + row * v,
                at["goods"] + row * _GOODS,
                at["hand_sizes"] + row,
                at["hands_known"] + row,
                at["hands"] + row * t,
                at["value_pile_sizes"] + row,
                at["value_piles_known"] + row,
                at["value_piles"] + row * t,
                at["requests_fulfilled"] + row,
                at["request_points"] + row,
                at["feed_used"] + row,
            )
            for row in range(num_players)
        )
        self._last_villages: tuple[tuple[Goods, ...], bytes] = ((), b"")
        self._memo: dict[int, tuple[tuple[Card, ...], tuple[bytes, int, int]]] = {}
        self._type = {card.sort_key: i for i, card in enumerate(self.card_types)}
        self._village = {village.name: i for i, village in enumerate(board.villages)}

    def __repr__(self) -> str:
        return f"<TensorLayout {self.num_players} players: {self.size} numbers>"

    def slice(self, name: str) -> TensorSlice:
        """The slice called ``name``; KeyError if there is none."""
        for found in self.slices:
            if found.name == name:
                return found
        raise KeyError(name)

    def views(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Every slice of ``tensor`` by name, reshaped; views share its memory."""
        return {s.name: tensor[s.start : s.stop].reshape(s.shape) for s in self.slices}

    def encode(self, observation: Observation) -> npt.NDArray[np.float32]:
        """The tensor of ``observation``: a new array of :attr:`size` ``float32`` numbers."""
        o = observation
        if not isinstance(o, Observation):
            raise ConfigurationError(f"expected an Observation, got {describe(o)}")
        n = self.num_players
        if o.rules.num_players != n or (o.board is not self.board and o.board != self.board):
            raise ConfigurationError(
                "the observation is of another game than the layout's (players or board)"
            )
        if o.cards is not self.cards and o.cards != self.cards:
            raise ConfigurationError("the observation is of a game with other cards")
        (
            seat_at, recall_at, round_at, phase_at, dealer_at, current_at, due_at, last_at,
            played_at, delivered_at, village_goods_at, _carts, _goods, _hand_sizes,
            _hands_known, _hands, _value_sizes, _value_known, _value, _fulfilled,
            _points, _feed, piles_present_at, piles_unknown_at, piles_at, discard_size_at,
            discard_unknown_at, discard_at, game_round_at,
        ) = self._offsets  # fmt: skip
        kind = self._type
        village = self._village
        me = o.seat
        # Every number but the round is a small count: they are written into
        # a bytearray (which refuses anything above 255) and converted in one
        # go, far cheaper than writing numpy elements one at a time. Loops are
        # written out in full: this runs at every step of an environment.
        buf = bytearray(self.size)
        buf[seat_at + me] = 1
        if o.recall == "perfect":
            buf[recall_at] = 1
        # The two phases of nearly every state first, by identity: hashing an
        # Enum member runs Python code.
        phase = o.phase
        if phase is Phase.PLAY_TURNS:
            buf[phase_at + _PLAY_TURNS] = 1
        elif phase is Phase.TAKE_PILES:
            buf[phase_at + _TAKE_PILES] = 1
        else:
            buf[phase_at + _PHASES.index(phase)] = 1
        buf[dealer_at + (o.dealer - me) % n] = 1
        if o.current_player is not None:
            buf[current_at + (o.current_player - me) % n] = 1
        if o.discards_due:
            buf[due_at] = o.discards_due
            if o.last_discard is not None:
                buf[last_at + kind[o.last_discard.sort_key]] = 1
        for card in o.played:
            buf[played_at + kind[card.sort_key]] += 1
        for name in o.delivered_to:
            buf[delivered_at + village[name]] = 1
        villages = self._village_bytes(o.village_goods)
        buf[village_goods_at : village_goods_at + len(villages)] = villages
        carts, goods, hands, values = o.carts, o.goods, o.hands, o.value_piles
        hand_sizes, value_sizes = o.hand_sizes, o.value_pile_sizes
        seat = me
        for (
            cart_at, goods_at, hand_size_at, hand_known_at, hand_at,
            value_size_at, value_known_at, value_at, fulfilled_at, points_at, feed_at,
        ) in self._rows:  # fmt: skip
            buf[cart_at + village[carts[seat]]] = 1
            held = goods[seat]
            if held:
                buf[goods_at : goods_at + _GOODS] = bytes(held.counts)
            buf[hand_size_at] = hand_sizes[seat]
            hand = hands[seat]
            if hand is not None:
                buf[hand_known_at] = 1
                if hand:
                    counts = self._counts(hand)[0]
                    buf[hand_at : hand_at + len(counts)] = counts
            buf[value_size_at] = value_sizes[seat]
            pile = values[seat]
            if pile is not None:
                buf[value_known_at] = 1
                if pile:
                    counts, feed, points = self._counts(pile)
                    buf[value_at : value_at + len(counts)] = counts
                    buf[fulfilled_at] = len(pile) - feed
                    buf[points_at] = points
                    buf[feed_at] = feed
            seat = seat + 1 if seat + 1 < n else 0
        t = len(self.card_types)
        for i, dealer_pile in enumerate(o.dealer_piles):
            if dealer_pile is not None:
                buf[piles_present_at + i] = 1
                known = 0
                base = piles_at + i * t
                for laid in _known(dealer_pile):
                    buf[base + kind[laid.sort_key]] += 1
                    known += 1
                unknown = len(dealer_pile) - known
                buf[piles_unknown_at + i] = unknown
        discard = o.discard_pile
        buf[discard_size_at] = len(discard)
        if discard:
            known = 0
            if o.recall == "perfect":  # long piles, nearly all known
                for key, number in Counter(map(_SORT_KEY, _known(discard))).items():
                    buf[discard_at + kind[key]] = number
                    known += number
            else:
                for seen in _known(discard):
                    buf[discard_at + kind[seen.sort_key]] += 1
                    known += 1
            buf[discard_unknown_at] = len(discard) - known
        buf[game_round_at] = o.game_round_pile_size
        if o.round < 256:
            buf[round_at] = o.round
            return np.frombuffer(buf, _BYTE).astype(_FLOAT)
        tensor = np.frombuffer(buf, _BYTE).astype(_FLOAT)
        tensor[round_at] = o.round  # the one number that may pass 255
        return tensor

    def _counts(self, cards: tuple[Card, ...]) -> tuple[bytes, int, int]:
        """``cards`` counted per card type, with their special feed and request points.

        Hands and value piles stay the same tuple from state to state until
        their owner plays, so the counts are kept by identity; the kept tuple
        itself ensures that no other tuple can take its id().
        """
        memo = self._memo
        found = memo.get(id(cards))
        if found is not None and found[0] is cards:
            return found[1]
        kind = self._type
        counts = bytearray(len(self.card_types))
        feed = points = 0
        for card in cards:
            counts[kind[card.sort_key]] += 1
            if type(card) is RequestCard:
                points += card.points
            elif type(card) is SpecialFeedCard:
                feed += 1
        result = (bytes(counts), feed, points)
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[id(cards)] = (cards, result)
        return result

    def _village_bytes(self, village_goods: tuple[Goods, ...]) -> bytes:
        """The goods of every village as bytes, kept for the last tuple seen:
        states share that tuple until a good is taken or delivered."""
        last, encoded = self._last_villages
        if village_goods is not last:
            encoded = b"".join([bytes(goods.counts) for goods in village_goods])
            # One tuple, so that threads sharing the layout never see a mixed pair.
            self._last_villages = (village_goods, encoded)
        return encoded


def _known(cards: Sequence[Card | None]) -> Iterator[Card]:
    """The known cards of a stack: filter(None, ...) drops the unknown ones
    at C speed (a card is always true)."""
    return cast("Iterator[Card]", filter(None, cards))


@functools.lru_cache(maxsize=16)
def _tensor_layout(board: Board, cards: CardCatalogue, num_players: int) -> TensorLayout:
    return TensorLayout(board, cards, num_players)


def tensor_layout(board: Board, cards: CardCatalogue, num_players: int) -> TensorLayout:
    """The tensor layout for ``num_players`` on ``board`` with ``cards``, built once."""
    return _tensor_layout(board, cards, num_players)


def tensor_layout_for(num_players: int) -> TensorLayout:
    """The tensor layout for ``num_players`` on troedler's own board with its own cards."""
    return _tensor_layout(default_board(), default_cards(), num_players)


def observation_tensor(observation: Observation) -> npt.NDArray[np.float32]:
    """``observation`` as a flat ``float32`` array (see :class:`TensorLayout`)."""
    if not isinstance(observation, Observation):
        raise ConfigurationError(f"expected an Observation, got {describe(observation)}")
    return _tensor_layout(
        observation.board, observation.cards, observation.rules.num_players
    ).encode(observation)
