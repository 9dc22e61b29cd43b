"""The game state: immutable records of everything on and around the table.

A :class:`GameState` is never changed; every action returns a new one that
shares the parts it did not touch. Per-seat data is a tuple indexed by seat
(seats are numbered clockwise from 0); per-village data is a tuple in the
order of ``board.villages``. In every pile kept as a tuple, the last card is
the top card.
"""

from __future__ import annotations

import enum
import functools
from collections import Counter

import attrs

from troedler.board import Board
from troedler.cards import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    SpecialFeedCard,
    card_sort_key,
    hand_count,
)
from troedler.errors import TroedlerError
from troedler.goods import Goods
from troedler.pile import Pile
from troedler.rules import Rules

__all__ = [
    "TOTAL_GOODS",
    "GameState",
    "Phase",
    "PlayerState",
    "Turn",
    "cards_in_play",
    "cards_in_state",
    "check_invariants",
    "problems",
]

TOTAL_GOODS = 48


class Phase(enum.Enum):
    """Where the game stands (R1).

    Setting up and forming the dealer piles take no decision: a seeded game
    does them at once and never stops in those phases. A game with explicit
    chance (:func:`troedler.explicit.new_explicit_game`) waits in them for
    each good or card that chance turns up.
    """

    SET_UP = "set up"
    FORM_PILES = "form piles"
    TAKE_PILES = "take piles"
    PLAY_TURNS = "play turns"
    GAME_OVER = "game over"

    @property
    def is_chance(self) -> bool:
        """Whether chance, not a player, decides what happens next."""
        return self is Phase.SET_UP or self is Phase.FORM_PILES


# Records built at every move carry no weak-reference slot: they are values,
# made by the million in a search, and the slot would cost 8 bytes each.
@attrs.frozen(weakref_slot=False)
class PlayerState:
    """One player's cart, hand, collected goods and value pile."""

    cart: str
    """The village where the player's cart stands."""
    hand: tuple[Card, ...]
    """Cards in hand, in :func:`~troedler.cards.card_sort_key` order."""
    goods: Goods
    """Goods the player has collected and not yet delivered."""
    value_pile: tuple[Card, ...] = ()
    """Used special feed and fulfilled goods requests (T6), in hand order: the
    pile lies face down and its order plays no part."""

    @property
    def fulfilled_requests(self) -> tuple[RequestCard, ...]:
        """The goods requests on the value pile."""
        # In hand order the feed comes first, then the requests.
        return self.value_pile[hand_count(self.value_pile, SPECIAL_FEED) :]  # type: ignore[return-value]

    @property
    def feed_used(self) -> int:
        """Special feed on the value pile: the feed part of the damage (E2)."""
        return hand_count(self.value_pile, SPECIAL_FEED)


@attrs.frozen(weakref_slot=False)
class Turn:
    """What the current turn has done so far."""

    played: tuple[Card, ...] = ()
    """Cards played this turn, waiting to be put away when it ends (T6)."""
    delivered_to: tuple[str, ...] = ()
    """Villages that received a goods request this turn (T4)."""
    discards_due: int = 0
    """Cards still to be discarded down to the hand limit (T7). Above 0 the
    turn has ended, its played cards are put away, and the same player must
    play that many :class:`~troedler.DiscardCard` moves."""
    last_discard: Card | None = None
    """The card discarded last while discards are due: discards go in hand
    order, so the next one is this card or a later one (T7)."""


NO_TURN = Turn()


# repr=False: the generated repr lists every card and runs to 12,000 characters.
@attrs.frozen(weakref_slot=False, repr=False)
class GameState:
    """The whole game at one moment. Build one with :func:`troedler.new_game`."""

    rules: Rules
    board: Board
    cards: CardCatalogue
    seed: int
    """The game's seed: every shuffle derives from it (and from ``shuffles``)."""
    shuffles: int
    """How many shuffles the game has made so far."""
    round: int
    dealer: int
    """The seat that holds the horse this round."""
    phase: Phase
    current_player: int | None
    """The seat whose decision the game waits for; None once the game is over."""
    game_round_pile: tuple[Card, ...]
    """The face-down game-round pile, bottom to top."""
    dealer_piles: tuple[tuple[Card, ...] | None, ...]
    """This round's dealer piles while they are taken; None marks a pile that is
    gone (taken or discarded). Empty outside the take-piles phase."""
    discard_pile: Pile
    """The face-up discard pile; ``discard_pile.cards`` lists it bottom to top."""
    village_goods: tuple[Goods, ...]
    players: tuple[PlayerState, ...]
    turn: Turn = NO_TURN

    @property
    def num_players(self) -> int:
        """How many players sit at the table."""
        return len(self.players)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (E1)."""
        return self.phase is Phase.GAME_OVER

    def __repr__(self) -> str:
        to_move = "" if self.current_player is None else f", seat {self.current_player} to move"
        return (
            f"<GameState: {self.num_players} players, round {self.round}, "
            f"{self.phase.value}{to_move}>"
        )

    def _repr_svg_(self) -> str:
        """The position as a picture, for Jupyter."""
        # Imported here, not at the top: the core never imports the pictures
        # package, which sits on top of it (python-chess does the same).
        from troedler.svg import board  # noqa: PLC0415

        return board(self, size=900)

    def goods_in(self, village: str) -> Goods:
        """The goods lying in ``village``."""
        return self.village_goods[self.board.index(village)]

    def pile_tops(self) -> tuple[Card | None, ...]:
        """The visible top card of each dealer pile (None: gone or empty)."""
        return tuple(pile[-1] if pile else None for pile in self.dealer_piles)


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
    """Raise :class:`TroedlerError` if ``state`` breaks a whole-state invariant.

    Checks that the 48 goods are all in villages or with players, that every
    card of the game is in exactly one place, and that phase, seats and piles
    agree. Used by tests and wherever a state comes from outside.
    """
    found = problems(state)
    if found:
        raise TroedlerError("state breaks its invariants: " + "; ".join(found))


def problems(state: GameState) -> list[str]:
    """What is wrong with ``state`` as a position of the game: empty if nothing.

    The facts :func:`check_invariants` checks, as sentences.
    """
    problems = []
    n = state.num_players
    if n != state.rules.num_players:
        problems.append(f"{n} players but rules for {state.rules.num_players}")
    if len(state.village_goods) != len(state.board.villages):
        problems.append("village_goods does not match the board")
    goods = sum(len(g) for g in state.village_goods) + sum(len(p.goods) for p in state.players)
    # While chance deals them at set-up, the rest of the goods wait in the bag.
    if goods != TOTAL_GOODS and not (state.phase is Phase.SET_UP and goods < TOTAL_GOODS):
        problems.append(f"{goods} goods in the game, not {TOTAL_GOODS}")
    places = cards_in_state(state)
    for seat, player in enumerate(state.players):
        for name, cards in (("hand", player.hand), ("value pile", player.value_pile)):
            if list(cards) != sorted(cards, key=card_sort_key):
                problems.append(f"the {name} of seat {seat} is not in hand order")
        if any(not isinstance(card, SpecialFeedCard | RequestCard) for card in player.value_pile):
            problems.append(
                f"the value pile of seat {seat} holds a card other than feed or requests"
            )
        if not state.board.has_village(player.cart):
            problems.append(f"a cart stands on unknown village {player.cart!r}")
    expected = cards_in_play(state.cards, state.board, n)
    if places != expected:
        extra = places - expected
        missing = expected - places
        problems.append(
            f"cards differ from the game's: extra {dict(extra)}, missing {dict(missing)}"
        )
    if not 0 <= state.dealer < n:
        problems.append(f"dealer {state.dealer} is not a seat")
    if state.phase is Phase.GAME_OVER or state.phase.is_chance:
        if state.current_player is not None:
            problems.append(f"no player is to move in the {state.phase.value} phase")
    elif state.current_player is None or not 0 <= state.current_player < n:
        problems.append(f"current player {state.current_player} is not a seat")
    if state.phase is Phase.TAKE_PILES:
        if len(state.dealer_piles) != n + 1:
            problems.append(f"{len(state.dealer_piles)} dealer piles, not {n + 1}")
        elif any(pile is not None and len(pile) > 4 for pile in state.dealer_piles):
            problems.append("a dealer pile holds more than 4 cards")
        else:
            gone = state.dealer_piles.count(None)
            two_player = state.rules.two_player_rules
            takes = gone - 1 if two_player and gone else gone
            taker = state.dealer if two_player and gone == 0 else (state.dealer + 1 + takes) % n
            if takes >= n:
                problems.append("every seat has taken a pile, yet piles are being taken")
            elif state.current_player != taker:
                problems.append(
                    f"seat {taker} takes the next pile, not seat {state.current_player}"
                )
    elif state.phase is Phase.FORM_PILES:
        if len(state.dealer_piles) != n + 1:
            problems.append(f"{len(state.dealer_piles)} dealer piles, not {n + 1}")
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
