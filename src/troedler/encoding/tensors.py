"""Observations as flat ``float32`` arrays of one fixed length, for neural networks.

:func:`observation_tensor` turns an :class:`~troedler.Observation` (what one
seat knows, with perfect recall or from the table alone) into a numpy array.
It reads nothing but the observation, so the array never holds more than
that seat may know; cards the seat does not know are simply not counted.

The array is a row of named slices (:class:`TensorLayout`). Its length
depends on the board, the card catalogue and the number of players, never
on the state. What belongs to one seat is one row of the ``seats`` slice
(fields in :attr:`TensorLayout.seat_fields`), in *relative* seat order: row
0 is the observing seat, row 1 the next seat clockwise, and so on, so that a
network sees every seat's position the same way. Cards are counted per card type in
the order of :func:`troedler.encoding.action_ids.card_types`; goods in
:class:`~troedler.Good` order; villages in board order.

:func:`state_tensor` gives the same array from a game state and a seat: it
observes the state and encodes what the seat knows, by the same path.

Needs numpy (``pip install -e '.[rl]'``).

>>> from troedler import new_game, observe
>>> tensor = observation_tensor(observe(new_game(3, seed=1), 0, recall="table"))
>>> tensor.dtype, tensor.shape == (tensor_layout_for(3).size,)
(dtype('float32'), True)
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections import Counter
from collections.abc import Iterator, Sequence

import attrs
import numpy as np
import numpy.typing as npt

from troedler.core.board import Board, default_board
from troedler.core.cards import (
    UNKNOWN,
    Card,
    CardCatalogue,
    RequestCard,
    SpecialFeedCard,
    default_cards,
)
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, some_of
from troedler.core.goods import Goods
from troedler.core.invariants import problems
from troedler.core.pile import Pile
from troedler.core.rulebook import Rules, pile_count
from troedler.core.state import GameState, Phase, PlayerState
from troedler.encoding.action_ids import card_types
from troedler.seat import Observation, Recall, observation_problem, observe

__all__ = [
    "MEMO_SIZE",
    "TENSOR_LAYOUT_VERSION",
    "TensorEncoder",
    "TensorLayout",
    "TensorSlice",
    "observation_tensor",
    "state_tensor",
    "tensor_layout",
    "tensor_layout_for",
]

TENSOR_LAYOUT_VERSION = 1
"""Changes whenever the order, meaning or scale of the slices changes. With the
player count (which sets the size) and the fingerprint of board and cards it
pins down what every number of a tensor means, as weight files need."""

_PHASES = tuple(Phase)
_TAKE_PILES, _PLAY_TURNS = _PHASES.index(Phase.TAKE_PILES), _PHASES.index(Phase.PLAY_TURNS)
_SORT_KEY = operator.attrgetter("sort_key")
_COUNTS = operator.attrgetter("counts")
# dtype objects, not the type names: numpy converts a name on every call.
_BYTE, _FLOAT = np.dtype(np.uint8), np.dtype(np.float32)
MEMO_SIZE = 1024
"""Card tuples whose counts, and players whose rows, an encoder keeps at most
(see TensorEncoder._counts and _encode_state); past it, it starts afresh."""
_GOODS = 6
_MALFORMED = (AttributeError, IndexError, KeyError, TypeError, ValueError)
"""What encoding a hand-made observation or state that no game can give may raise."""
_BYTES = tuple(bytes((number,)) for number in range(256))
_KNOWN, _HIDDEN, _NO_TOTALS = b"\x01", b"\x00", bytes(3)
_PHASE_BYTES = tuple(bytes(i == j for j in range(len(_PHASES))) for i in range(len(_PHASES)))


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


def _slice_specs(
    players: int, villages: int, types: int, seat_row: int
) -> list[tuple[str, tuple[int, ...], str]]:
    """Name, shape and meaning of every slice, in tensor order; a seat's row
    holds ``seat_row`` numbers."""
    n, v, t, piles = players, villages, types, pile_count(players)
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
        ("seats", (n, seat_row), "one row per seat (see seat_fields)"),
        ("dealer_piles_present", (piles,), "1 for each dealer pile lying on the table"),
        ("dealer_piles_unknown", (piles,), "cards of each dealer pile the seat does not know"),
        ("dealer_piles", (piles, t), "known cards of each dealer pile, per card type"),
        ("discard_pile_size", (1,), "cards on the discard pile"),
        ("discard_pile_unknown", (1,), "cards of it the seat does not know"),
        ("discard_pile", (t,), "known cards of the discard pile, per card type"),
        ("game_round_pile_size", (1,), "cards in the face-down game-round pile"),
    ]


def _seat_field_specs(villages: int, types: int) -> list[tuple[str, tuple[int, ...], str]]:
    """Name, shape and meaning of every field of one seat's row, in row order."""
    v, t = villages, types
    return [
        ("carts", (v,), "the seat's cart, one-hot per village"),
        ("goods", (_GOODS,), "the seat's collected goods, per good"),
        ("hand_sizes", (1,), "cards in the seat's hand"),
        ("hands_known", (1,), "1 where the seat's hand is known"),
        ("hands", (t,), "the known hand, per card type (0 where not known)"),
        ("value_pile_sizes", (1,), "cards on the seat's value pile"),
        ("value_piles_known", (1,), "1 where the seat's value pile is known"),
        ("value_piles", (t,), "the known value pile, per card type (0 where not known)"),
        ("requests_fulfilled", (1,), "goods requests on the known value pile"),
        ("request_points", (1,), "points of those requests"),
        ("feed_used", (1,), "special feed on the known value pile (damage, E2)"),
    ]


def _named(parts: tuple[TensorSlice, ...], name: str) -> TensorSlice:
    for found in parts:
        if found.name == name:
            return found
    raise KeyError(name)


def _lay_out(specs: list[tuple[str, tuple[int, ...], str]]) -> tuple[TensorSlice, ...]:
    slices = []
    start = 0
    for name, shape, description in specs:
        size = int(np.prod(shape))
        slices.append(TensorSlice(name, start, start + size, shape, description))
        start += size
    return tuple(slices)


class TensorLayout:
    """Where each part of an observation goes in the tensor, for one game size.

    Build it with :func:`tensor_layout`, which keeps one per board, catalogue
    and player count. What each seat holds is one block, ``seats``: row 0
    is the observing seat, row 1 the next seat clockwise, and so on, each row
    made of the :attr:`seat_fields`. A network can thus read every seat with
    the same weights.
    """

    board: Board
    cards: CardCatalogue
    num_players: int
    card_types: tuple[Card, ...]
    """The card types counted in per-card slices, in their order."""
    slices: tuple[TensorSlice, ...]
    """Every slice, in tensor order; together they cover the whole tensor."""
    seat_fields: tuple[TensorSlice, ...]
    """The fields of one row of the ``seats`` slice, placed within the row."""
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
        t, v = len(self.card_types), len(board.villages)
        self.seat_fields = _lay_out(_seat_field_specs(v, t))
        self.slices = _lay_out(_slice_specs(num_players, v, t, self.seat_fields[-1].stop))
        self.size = self.slices[-1].stop
        at = {s.name: s.start for s in self.slices}
        # The seats in relative order, for each observing seat.
        self._orders = tuple(
            tuple((seat + row) % num_players for row in range(num_players))
            for seat in range(num_players)
        )
        self._hidden_cards = bytes(t)
        self._no_villages, self._no_seat = bytes(v), bytes(num_players)
        self._one_hot_seats = tuple(
            bytes(i == j for j in range(num_players)) for i in range(num_players)
        )
        self._one_hot_types = tuple(bytes(i == j for j in range(t)) for i in range(t))
        self._round_at = at["round"]
        self._carts = {
            village.name: bytes(i == j for j in range(v))
            for i, village in enumerate(board.villages)
        }
        self._type = {card.sort_key: i for i, card in enumerate(self.card_types)}
        self._village = {village.name: i for i, village in enumerate(board.villages)}

    def __repr__(self) -> str:
        return f"<TensorLayout {self.num_players} players: {self.size} numbers>"

    def slice(self, name: str) -> TensorSlice:
        """The slice called ``name``; KeyError if there is none."""
        return _named(self.slices, name)

    def seat_field(self, name: str) -> TensorSlice:
        """The field of a seat row called ``name``; KeyError if there is none."""
        return _named(self.seat_fields, name)

    def views(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Every slice of ``tensor`` by name, reshaped; views share its memory.

        The slices cover the tensor once each, as OpenSpiel's observers need;
        :meth:`seat_views` splits the ``seats`` slice into its fields.
        """
        return {s.name: tensor[s.start : s.stop].reshape(s.shape) for s in self.slices}

    def seat_views(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Every seat field of ``tensor`` by name, one row per relative seat
        (a field of one number gives one number per seat); views share its memory."""
        seats = self.views(tensor)["seats"]
        n = self.num_players
        return {
            field.name: seats[:, field.start : field.stop].reshape(
                (n, *field.shape) if field.size > 1 else (n,)
            )
            for field in self.seat_fields
        }

    def encode(self, observation: Observation) -> npt.NDArray[np.float32]:
        """The tensor of ``observation``: a new array of :attr:`size` ``float32`` numbers."""
        return TensorEncoder(self).encode(observation)

    def encode_state(
        self, state: GameState, seat: int, recall: Recall = "table"
    ) -> npt.NDArray[np.float32]:
        """The tensor of what ``seat`` knows of ``state``:
        :meth:`TensorEncoder.encode_state` of a new encoder, which keeps nothing
        between calls (an environment keeps its own encoder)."""
        return TensorEncoder(self).encode_state(state, seat, recall)


class TensorEncoder:
    """Encodes what a seat knows into tensors of one :class:`TensorLayout`,
    remembering what it encoded last to skip the parts that did not change.

    Each environment and each OpenSpiel observer owns one: what it remembers
    is its own, never shared across the process. It keeps the objects it
    remembers (so no other can take their identity) and at most
    :data:`MEMO_SIZE` hands and seat rows.
    """

    def __init__(self, layout: TensorLayout) -> None:
        self.layout = layout
        # The layout's tables, read on every call: one attribute look-up each.
        self.board, self.cards = layout.board, layout.cards
        self.num_players = layout.num_players
        self.card_types = layout.card_types
        self._orders = layout._orders
        self._hidden_cards = layout._hidden_cards
        self._no_villages, self._no_seat = layout._no_villages, layout._no_seat
        self._one_hot_seats = layout._one_hot_seats
        self._one_hot_types = layout._one_hot_types
        self._round_at = layout._round_at
        self._carts = layout._carts
        self._type = layout._type
        self._village = layout._village
        self._last_villages: tuple[tuple[Goods, ...], bytes] = ((), b"")
        self._memo: dict[int, tuple[tuple[Card, ...], tuple[bytes, bytes]]] = {}
        self._rows: tuple[dict[int, tuple[PlayerState, bytes]], ...] = ({}, {})
        nothing: tuple[tuple[object, bytes], tuple[object, bytes]] = ((None, b""), (None, b""))
        self._stacks_memo = [nothing, nothing]
        """The dealer-pile and discard-pile slices last encoded, for each recall."""

    def encode(self, observation: Observation) -> npt.NDArray[np.float32]:
        """The tensor of ``observation``: a new array of :attr:`size` ``float32`` numbers."""
        o = observation
        if not isinstance(o, Observation):
            raise ConfigurationError(f"expected an Observation, got {describe(o)}")
        self._check_game(o.rules, o.board, o.cards, "observation")
        try:
            return self._encode(o)
        except _MALFORMED:
            problem = observation_problem(o) or "a count out of range"
            raise ConfigurationError(f"not an observation of a game: {problem}") from None

    def encode_state(
        self, state: GameState, seat: int, recall: Recall = "table"
    ) -> npt.NDArray[np.float32]:
        """The tensor of what ``seat`` knows of ``state``: that of
        ``observe(state, seat, recall=recall)``, which it encodes."""
        if not isinstance(state, GameState):
            raise ConfigurationError(f"expected a GameState, got {describe(state)}")
        self._check_game(state.rules, state.board, state.cards, "state")
        seen = observe(state, seat, recall=recall)
        try:
            return self._encode(seen)
        except _MALFORMED:
            found = problems(state) or ["a count out of range"]
            raise ConfigurationError(
                "not a state a game can reach: " + some_of(found, 3, separator="; ")
            ) from None

    def _encode(self, o: Observation) -> npt.NDArray[np.float32]:
        perfect = o.recall == "perfect"
        rows = []
        for other in self._orders[o.seat]:
            player = o.players[other]
            # The hand and value pile of a seat not known are counted as
            # hidden, even when empty: who knows what is the rule's, not the
            # cards'.
            known = o.knows_hand(other)
            memo = self._rows[known]
            kept = memo.get(id(player))
            if kept is not None and kept[0] is player:
                rows.append(kept[1])
                continue
            row = self._row(
                player.cart, player.goods, len(player.hand), player.hand if known else None,
                len(player.value_pile), player.value_pile if known else None,
            )  # fmt: skip
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            # The kept player keeps its id() from being reused by another.
            memo[id(player)] = (player, row)
            rows.append(row)
        turn = o.turn
        pieces = self._head(
            o.seat, perfect, o.round, o.phase, o.dealer, o.current_player,
            turn.discards_due, turn.last_discard, turn.played, turn.delivered_to,
        )  # fmt: skip
        pieces.append(self._village_bytes(o.village_goods))
        pieces += rows
        pieces += self._stacks(o.dealer_piles, o.discard_pile, perfect)
        pieces.append(_BYTES[len(o.game_round_pile)])
        return self._assemble(pieces, o.round)

    def _stacks(
        self, piles: tuple[tuple[Card, ...] | None, ...], pile: Pile, perfect: bool
    ) -> tuple[bytes, bytes]:
        """The dealer-pile and discard-pile slices, each kept by the identity of
        the stack it was counted from: a view shares the state's stacks where
        it knows them all, and they change only when a card is laid, a pile
        taken or cards discarded."""
        kept_piles, kept_discard = self._stacks_memo[perfect]
        piles_part = kept_piles[1] if kept_piles[0] is piles else self._dealer_pile_bytes(piles)
        discard_part = (
            kept_discard[1] if kept_discard[0] is pile else self._discard_bytes(pile, perfect)
        )
        # One tuple, so that threads sharing the layout never see a mixed pair.
        self._stacks_memo[perfect] = ((piles, piles_part), (pile, discard_part))
        return piles_part, discard_part

    def _check_game(self, rules: Rules, board: Board, cards: CardCatalogue, what: str) -> None:
        if rules.num_players != self.num_players or (
            board is not self.board and board != self.board
        ):
            raise ConfigurationError(
                f"the {what} is of another game than the layout's (players or board)"
            )
        if cards is not self.cards and cards != self.cards:
            raise ConfigurationError(f"the {what} is of a game with other cards")

    def _head(
        self,
        seat: int,
        perfect: bool,
        round_number: int,
        phase: Phase,
        dealer: int,
        current_player: int | None,
        discards_due: int,
        last_discard: Card | None,
        played: tuple[Card, ...],
        delivered_to: tuple[str, ...],
    ) -> list[bytes]:
        """The slices before the village goods, as pieces to join."""
        n = self.num_players
        relative = self._one_hot_seats
        # The two phases of nearly every state first, by identity: hashing an
        # Enum member runs Python code.
        if phase is Phase.PLAY_TURNS:
            phase_part = _PHASE_BYTES[_PLAY_TURNS]
        elif phase is Phase.TAKE_PILES:
            phase_part = _PHASE_BYTES[_TAKE_PILES]
        else:
            phase_part = _PHASE_BYTES[_PHASES.index(phase)]
        no_card = self._hidden_cards
        last = no_card
        if discards_due and last_discard is not None:
            last = self._one_hot_types[self._type[last_discard.sort_key]]
        delivered = self._no_villages
        if delivered_to:
            marked = bytearray(delivered)
            for name in delivered_to:
                marked[self._village[name]] = 1
            delivered = bytes(marked)
        return [
            relative[seat],
            _BYTES[perfect],
            _BYTES[round_number if round_number < 256 else 0],  # see _assemble
            phase_part,
            relative[(dealer - seat) % n],
            self._no_seat if current_player is None else relative[(current_player - seat) % n],
            _BYTES[discards_due],
            last,
            self._counts(played)[0] if played else no_card,
            delivered,
        ]

    def _row(
        self,
        cart: str,
        goods: Goods,
        hand_size: int,
        hand: tuple[Card, ...] | None,
        value_pile_size: int,
        value_pile: tuple[Card, ...] | None,
    ) -> bytes:
        """One seat's row; ``hand`` and ``value_pile`` are None where not known."""
        hidden = self._hidden_cards
        hand_part = hidden if hand is None else self._counts(hand)[0]
        if value_pile is None:
            value_part, totals = hidden, _NO_TOTALS
        else:
            value_part, totals = self._counts(value_pile)
        # Joined from pieces in row order (see _seat_field_specs): one call in C.
        return b"".join(
            (
                self._carts[cart], bytes(goods.counts),
                _BYTES[hand_size], _HIDDEN if hand is None else _KNOWN, hand_part,
                _BYTES[value_pile_size], _HIDDEN if value_pile is None else _KNOWN, value_part,
                totals,
            )
        )  # fmt: skip

    def _dealer_pile_bytes(self, dealer_piles: tuple[tuple[Card, ...] | None, ...]) -> bytes:
        """The three dealer-pile slices, from the piles as the seat knows them."""
        kind = self._type
        t = len(self.card_types)
        places = pile_count(self.num_players)
        present, unknown, counts = bytearray(places), bytearray(places), bytearray(places * t)
        for i, dealer_pile in enumerate(dealer_piles):
            if dealer_pile is not None:
                present[i] = 1
                known = 0
                base = i * t
                for laid in _known(dealer_pile):
                    counts[base + kind[laid.sort_key]] += 1
                    known += 1
                unknown[i] = len(dealer_pile) - known
        return b"".join((present, unknown, counts))

    def _discard_bytes(self, pile: Pile, perfect: bool) -> bytes:
        """The three discard-pile slices, from the pile as the seat knows it."""
        discard = pile.cards
        kind = self._type
        counts = bytearray(len(self.card_types))
        known = 0
        if perfect:  # long piles, nearly all known
            for key, number in Counter(map(_SORT_KEY, _known(discard))).items():
                counts[kind[key]] = number
                known += number
        else:
            for seen in _known(discard):
                counts[kind[seen.sort_key]] += 1
                known += 1
        return b"".join((_BYTES[len(discard)], _BYTES[len(discard) - known], counts))

    def _assemble(self, pieces: list[bytes], round_number: int) -> npt.NDArray[np.float32]:
        # Every number but the round is a small count: the pieces are bytes
        # (which refuse anything above 255), joined and converted in one go,
        # far cheaper than writing numpy elements one at a time.
        tensor = np.frombuffer(b"".join(pieces), _BYTE).astype(_FLOAT)
        if round_number > 255:
            tensor[self._round_at] = round_number  # the one number that may pass 255
        return tensor

    def _counts(self, cards: tuple[Card, ...]) -> tuple[bytes, bytes]:
        """``cards`` counted per card type, and as a value pile would give them
        (requests fulfilled, request points, special feed) in three bytes.

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
        result = (bytes(counts), bytes((len(cards) - feed, points, feed)))
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[id(cards)] = (cards, result)
        return result

    def _village_bytes(self, village_goods: tuple[Goods, ...]) -> bytes:
        """The goods of every village as bytes, kept for the last tuple seen:
        states share that tuple until a good is taken or delivered."""
        last, encoded = self._last_villages
        if village_goods is not last:
            encoded = bytes(itertools.chain.from_iterable(map(_COUNTS, village_goods)))
            # One tuple, so that threads sharing the layout never see a mixed pair.
            self._last_villages = (village_goods, encoded)
        return encoded


_IS_KNOWN = functools.partial(operator.is_not, UNKNOWN)


def _known(cards: Sequence[Card]) -> Iterator[Card]:
    """The known cards of a stack, the unknown ones dropped at C speed."""
    return filter(_IS_KNOWN, cards)


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


def state_tensor(state: GameState, seat: int, recall: Recall = "table") -> npt.NDArray[np.float32]:
    """What ``seat`` knows of ``state`` as a tensor:
    ``observation_tensor(observe(state, seat, recall=recall))``."""
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {describe(state)}")
    return _tensor_layout(state.board, state.cards, state.num_players).encode_state(
        state, seat, recall
    )
