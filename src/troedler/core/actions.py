"""The actions of the game as pure functions: state in, new state out.

The module follows the rulebook: first the round (R2-R6: forming the dealer
piles, taking them, passing the horse), then the turn (T1-T7: playing
cards, ending the turn, discarding down to the hand limit).

Each player action ``x`` comes with ``verify_x``, the one statement of its
rules: it raises :class:`IllegalMoveError` naming the rule and the facts,
and otherwise returns the checked move, made of the engine's own objects
(the hand's card, the board's village, the shared goods), as pokerkit's
``verify_...`` returns the value it cleaned. ``x`` applies what ``verify_x``
returned and checks nothing more; it never changes the state it is given.
Checks run in a fixed order: that ``state`` is a state, game over, phase,
whose decision, then the action's own rules. :func:`troedler.legal_moves`
lists exactly the moves every ``verify_x`` passes.

The end of a round (R6) and of the game (E1) follow from the end of the
last turn of a round (:func:`end_turn`, then any :func:`discard_card`); the
next round's piles are formed at once.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar, cast

from troedler.core.board import RouteKind
from troedler.core.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    ROUTE_CARDS,
    SPECIAL_FEED,
    Card,
    RequestCard,
    SpecialFeedCard,
    hand_count,
    hand_index,
    hand_without,
    sort_hand,
)
from troedler.core.chance import settle
from troedler.core.errors import ConfigurationError, IllegalMoveError, quote
from troedler.core.forming import start_forming, verify_turn_up
from troedler.core.goods import Good, Goods
from troedler.core.moves import (
    DISCARD_PILE_MOVES,
    END_TURN,
    EXTRA_GOOD_MOVES,
    FEED_EXTRA_GOOD_MOVES,
    TAKE_PILE_MOVES,
    DiscardCard,
    DiscardPile,
    EndTurn,
    Move,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    TakePile,
    board_moves,
    discard_move,
)
from troedler.core.pile import Pile
from troedler.core.rulebook import (
    PILE_SIZE,
    dealer_discards_first,
    discard_candidates,
    discards_owed,
    ends_game,
    goes_to_value_pile,
    next_to_take,
)
from troedler.core.state import NO_TURN, GameState, Phase, PlayerState, Turn, next_state

__all__ = [
    "PILE_SIZE",
    "discard_card",
    "discard_dealer_pile",
    "discard_options",
    "end_turn",
    "hand_limit_discards",
    "play_extra_good",
    "play_feed_extra_good",
    "play_feed_move",
    "play_request",
    "play_route",
    "take_pile",
    "verify_discard_card",
    "verify_discard_dealer_pile",
    "verify_end_turn",
    "verify_play_extra_good",
    "verify_play_feed_extra_good",
    "verify_play_feed_move",
    "verify_play_request",
    "verify_play_route",
    "verify_take_pile",
]

T = TypeVar("T")
_Piles = tuple[tuple[Card, ...] | None, ...]


def _fail(rule: str, message: str) -> NoReturn:
    raise IllegalMoveError(rule, message)


def verify_game_on(state: object) -> GameState:
    """``state``, if it is a state whose game goes on; else
    :class:`ConfigurationError` for what is no state, and
    :class:`IllegalMoveError` once the game is over (E1)."""
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {quote(state)}")
    if state.phase is Phase.GAME_OVER:
        _fail("E1", "the game is over")
    return state


def _own_card(cards: tuple[Card, ...], card: object, rule: str, missing: str) -> Card:
    """The card of the sorted ``cards`` equal to ``card``: a state holds its
    own cards, never a caller's, which might be a look-alike built past its
    constructor. ``missing`` says where it was looked for."""
    if type(card) not in CARD_TYPES or type(getattr(card, "sort_key", None)) is not int:
        _fail(rule, f"{quote(card)} is not a card")
    at = hand_index(cards, cast(Card, card))
    if at < 0:
        _fail(rule, f"{missing} holds no {card} card")
    return cards[at]


def _replace(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return items[:index] + (value,) + items[index + 1 :]


# === The round (R2-R6) =========================================================

# --- R4, R5: taking the dealer piles ----------------------------------------


def _verify_take_phase(state: GameState) -> int:
    """How many dealer piles are gone, after checking that piles are being
    taken (E1, R1)."""
    if isinstance(state, GameState) and state.phase is Phase.TAKE_PILES:
        return state.dealer_piles.count(None)
    phase = verify_game_on(state).phase
    if phase.is_chance:
        _fail("R1", f"round {state.round} is in the {phase.value} phase: chance moves")
    _fail(
        "R1",
        f"the dealer piles of round {state.round} are gone; "
        f"it is seat {state.current_player}'s turn",
    )


def _verify_pile(state: GameState, pile: object, gone: int) -> int:
    """``pile``, after checking that it is a dealer pile that still lies there (R4)."""
    piles = state.dealer_piles
    if type(pile) is not int or not 0 <= pile < len(piles):
        _fail("R4", f"there is no dealer pile {quote(pile)}; piles are 0 to {len(piles) - 1}")
    if piles[pile] is None:
        if not state.rules.two_player_rules:
            _fail("R4", f"dealer pile {pile} was taken already")
        if gone == 1:
            _fail("R4", f"dealer pile {pile} was discarded by the dealer")
        _fail("R4", f"dealer pile {pile} was taken or discarded already")
    return pile


def verify_take_pile(state: GameState, pile: int) -> TakePile:
    """The move of the current player taking dealer pile ``pile``, if they may
    (R1, R4): it is the take-piles phase, the pile lies there, and with two
    players the dealer has discarded a pile first; else
    :class:`IllegalMoveError`."""
    gone = _verify_take_phase(state)
    if dealer_discards_first(state.rules, gone):
        piles = len(state.dealer_piles)
        _fail("R4", f"seat {state.dealer}, the dealer, first discards one of the {piles} piles")
    return TAKE_PILE_MOVES[_verify_pile(state, pile, gone)]


def take_pile(state: GameState, pile: int) -> GameState:
    """The current player takes dealer pile ``pile`` into hand (R4).

    After the last player has taken, the pile left over goes onto the discard
    pile and the dealer begins the turns (R5). Checked by
    :func:`verify_take_pile`.
    """
    return _take_pile(state, verify_take_pile(state, pile))


def _take_pile(state: GameState, move: TakePile) -> GameState:
    seat = cast(int, state.current_player)  # the take-piles phase always has one
    player = state.players[seat]
    pile = move.pile
    hand = sort_hand(player.hand + (state.dealer_piles[pile] or ()))
    players = _replace(
        state.players, seat, PlayerState(player.cart, hand, player.goods, player.value_pile)
    )
    piles = _replace(state.dealer_piles, pile, None)
    taker = next_to_take(state.rules, state.dealer, piles.count(None))
    if taker is not None:
        return next_state(
            state, players=players, dealer_piles=piles, current_player=taker, turn=NO_TURN
        )
    leftover = tuple(card for rest in piles if rest for card in rest)
    return next_state(
        state,
        players=players,
        dealer_piles=(),
        discard_pile=state.discard_pile.add(leftover),
        phase=Phase.PLAY_TURNS,
        current_player=state.dealer,
        turn=NO_TURN,
    )


def verify_discard_dealer_pile(state: GameState, pile: int) -> DiscardPile:
    """The move of the dealer putting dealer pile ``pile`` onto the discard
    pile, if they may: two players only, before any pile is taken (R4); else
    :class:`IllegalMoveError`."""
    gone = _verify_take_phase(state)
    if not dealer_discards_first(state.rules, gone):
        if not state.rules.two_player_rules:
            _fail("R4", "only in the two-player game does the dealer discard a pile")
        _fail("R4", "the dealer discards a pile only before any pile is taken")
    return DISCARD_PILE_MOVES[_verify_pile(state, pile, gone)]


def discard_dealer_pile(state: GameState, pile: int) -> GameState:
    """Two players: the dealer puts dealer pile ``pile`` onto the discard pile (R4).

    This comes first in the take-piles phase, before anyone takes a pile.
    Checked by :func:`verify_discard_dealer_pile`.
    """
    return _discard_dealer_pile(state, verify_discard_dealer_pile(state, pile))


def _discard_dealer_pile(state: GameState, move: DiscardPile) -> GameState:
    pile = move.pile
    return next_state(
        state,
        dealer_piles=_replace(state.dealer_piles, pile, None),
        discard_pile=state.discard_pile.add(state.dealer_piles[pile] or ()),
        current_player=next_to_take(state.rules, state.dealer, 1),
        turn=NO_TURN,
    )


# --- R5, R6, E1: the next turn, the end of the round and of the game ---------


def _next_turn(
    state: GameState, seat: int, players: tuple[PlayerState, ...], discard: Pile
) -> GameState:
    """After ``seat``'s turn: the next player's turn, or the end of the round (R5, R6)."""
    following = (seat + 1) % state.num_players
    if following != state.dealer:
        return next_state(
            state, players=players, discard_pile=discard, current_player=following, turn=NO_TURN
        )
    if ends_game(state.rules, max(len(p.fulfilled_requests) for p in players)):
        return next_state(
            state,
            players=players,
            discard_pile=discard,
            phase=Phase.GAME_OVER,
            current_player=None,
            turn=NO_TURN,
        )
    # The horse passes clockwise and the next round's piles are formed (R6).
    following_round = start_forming(
        state,
        players=players,
        discard_pile=discard,
        round_number=state.round + 1,
        dealer=(state.dealer + 1) % state.num_players,
    )
    return settle(following_round)


# === The turn (T1-T7) ==========================================================

# --- T1: whose turn -------------------------------------------------------------


def _turn_player(state: GameState) -> PlayerState:
    """The player whose turn it is, after checking cards may be played (E1, T1, T7)."""
    if isinstance(state, GameState) and state.phase is Phase.PLAY_TURNS:
        seat = cast(int, state.current_player)  # the turns phase always has one
        if state.turn.discards_due:
            due = state.turn.discards_due
            _fail("T7", f"seat {seat} has ended the turn and discards {due} more")
        return state.players[seat]
    verify_game_on(state)
    _fail(
        "T1", f"cards are played in turns; round {state.round} is in the {state.phase.value} phase"
    )


def _verify_held(state: GameState, player: PlayerState, card: Card, rule: str) -> None:
    if hand_index(player.hand, card) < 0:
        _fail(rule, f"seat {state.current_player} holds no {card} card")


def _verify_good_in(state: GameState, village: int, good: object, rule: str) -> Good:
    """``good``, after checking that it is a good the village of index ``village`` holds."""
    if type(good) is not Good:
        _fail(rule, f"{quote(good)} is not a good")
    there = state.village_goods[village]
    if not there.counts[good]:
        held = f"only {there}" if there else "no goods"
        _fail(rule, f"{state.board.villages[village].name} holds {held}, no {good.name.lower()}")
    return good


def _after_card(
    state: GameState,
    seat: int,
    player: PlayerState,
    played: tuple[Card, ...],
    *,
    hand: tuple[Card, ...],
    cart: str | None = None,
    goods: Goods | None = None,
    village: int | None = None,
    village_goods: Goods | None = None,
    delivered_to: str | None = None,
) -> GameState:
    """The state after ``seat`` (``player``) played ``played``: what changed is
    passed in (``village`` by its index), everything else is shared with ``state``."""
    new_player = PlayerState(
        player.cart if cart is None else cart,
        hand,
        player.goods if goods is None else goods,
        player.value_pile,
    )
    all_goods = state.village_goods
    if village is not None and village_goods is not None:
        all_goods = _replace(all_goods, village, village_goods)
    turn = state.turn
    turn = Turn(
        turn.played + played,
        turn.delivered_to if delivered_to is None else turn.delivered_to + (delivered_to,),
    )
    return next_state(
        state,
        players=_replace(state.players, seat, new_player),
        village_goods=all_goods,
        current_player=seat,
        turn=turn,
    )


# --- T2, T5a: moving the cart ---------------------------------------------------


def _verify_move_cart(
    state: GameState, kind: RouteKind | None, to: object, take: object, card: Card, rule: str
) -> Move:
    """The board's own move of the cart to ``to`` with ``card``, taking ``take``
    there, after checking that the player holds the card, a route of ``kind``
    (any kind: None) leads there, and the village holds ``take``."""
    player = _turn_player(state)
    _verify_held(state, player, card, rule)
    board = state.board
    if not isinstance(to, str) or not board.has_village(to):
        _fail(rule, f"{quote(to)} is not a village of the board")
    here = board.index(player.cart)
    moves = board_moves(board)
    there = board.index(to)
    for village, options in moves.feed[here] if kind is None else moves.routes[here][kind]:
        if village == there:
            if take is None:
                return options[0]
            return options[1 + _verify_good_in(state, there, take, rule)]
    how = f"no {kind.code}" if kind is not None else "no route"
    _fail(rule, f"{how} leads from {player.cart} to {to}")


def verify_play_route(
    state: GameState, kind: RouteKind, to: str, take: Good | None = None
) -> PlayRoute:
    """The move of the current player playing a route card of ``kind`` to
    ``to``, taking ``take`` there, if they may (T1, T2): they hold one, a
    route of that kind leads there, and the village holds ``take``; else
    :class:`IllegalMoveError`."""
    if type(kind) is not RouteKind:
        _fail("T2", f"{quote(kind)} is not a route kind")
    return cast(PlayRoute, _verify_move_cart(state, kind, to, take, ROUTE_CARDS[kind], "T2"))


def play_route(state: GameState, kind: RouteKind, to: str, take: Good | None = None) -> GameState:
    """Play a route card of ``kind``: move the cart to ``to`` and take ``take`` there (T2).

    ``take`` is the good taken on arrival, or None to take nothing. Checked
    by :func:`verify_play_route`.
    """
    return _play_route(state, verify_play_route(state, kind, to, take))


def _play_route(state: GameState, move: PlayRoute) -> GameState:
    return _move_cart(state, move.to, move.take, ROUTE_CARDS[move.kind])


def verify_play_feed_move(state: GameState, to: str, take: Good | None = None) -> PlayFeedMove:
    """The move of the current player playing special feed to move the cart
    to ``to`` along a route of any kind, taking ``take`` there, if they may
    (T5a); else :class:`IllegalMoveError`."""
    return cast(PlayFeedMove, _verify_move_cart(state, None, to, take, SPECIAL_FEED, "T5a"))


def play_feed_move(state: GameState, to: str, take: Good | None = None) -> GameState:
    """Play special feed to move the cart along a route of any kind (T5a).

    Checked by :func:`verify_play_feed_move`.
    """
    return _play_feed_move(state, verify_play_feed_move(state, to, take))


def _play_feed_move(state: GameState, move: PlayFeedMove) -> GameState:
    return _move_cart(state, move.to, move.take, SPECIAL_FEED)


def _move_cart(state: GameState, to: str, take: Good | None, card: Card) -> GameState:
    """The effects of a checked move of the cart to ``to`` (the board's own
    name) with ``card``."""
    seat = cast(int, state.current_player)
    player = state.players[seat]
    hand = cast(tuple[Card, ...], hand_without(player.hand, card))  # verified: held
    if take is None:
        return _after_card(state, seat, player, (card,), hand=hand, cart=to)
    there = state.board.index(to)
    return _after_card(
        state,
        seat,
        player,
        (card,),
        hand=hand,
        cart=to,
        goods=player.goods.add(take),
        village=there,
        village_goods=state.village_goods[there].remove(take),
    )


# --- T3, T5b: an extra good -------------------------------------------------------


def _verify_take_extra(state: GameState, good: object, card: Card, rule: str) -> Good:
    player = _turn_player(state)
    _verify_held(state, player, card, rule)
    return _verify_good_in(state, state.board.index(player.cart), good, rule)


def verify_play_extra_good(state: GameState, good: Good) -> PlayExtraGood:
    """The move of the current player playing an extra good (+1) card to take
    ``good`` where the cart stands, if they may (T3); else
    :class:`IllegalMoveError`."""
    return EXTRA_GOOD_MOVES[_verify_take_extra(state, good, EXTRA_GOOD, "T3")]


def play_extra_good(state: GameState, good: Good) -> GameState:
    """Play an extra good (+1) card: take ``good`` where the cart stands (T3).

    Checked by :func:`verify_play_extra_good`.
    """
    return _play_extra_good(state, verify_play_extra_good(state, good))


def _play_extra_good(state: GameState, move: PlayExtraGood) -> GameState:
    return _take_extra(state, move.good, EXTRA_GOOD)


def verify_play_feed_extra_good(state: GameState, good: Good) -> PlayFeedExtraGood:
    """The move of the current player playing special feed to take ``good``
    where the cart stands, if they may (T5b); else :class:`IllegalMoveError`."""
    return FEED_EXTRA_GOOD_MOVES[_verify_take_extra(state, good, SPECIAL_FEED, "T5b")]


def play_feed_extra_good(state: GameState, good: Good) -> GameState:
    """Play special feed to take ``good`` where the cart stands (T5b).

    Checked by :func:`verify_play_feed_extra_good`.
    """
    return _play_feed_extra_good(state, verify_play_feed_extra_good(state, good))


def _play_feed_extra_good(state: GameState, move: PlayFeedExtraGood) -> GameState:
    return _take_extra(state, move.good, SPECIAL_FEED)


def _take_extra(state: GameState, good: Good, card: Card) -> GameState:
    """The effects of a checked extra good taken with ``card``."""
    seat = cast(int, state.current_player)
    player = state.players[seat]
    there = state.board.index(player.cart)
    return _after_card(
        state,
        seat,
        player,
        (card,),
        hand=cast(tuple[Card, ...], hand_without(player.hand, card)),  # verified: held
        goods=player.goods.add(good),
        village=there,
        village_goods=state.village_goods[there].remove(good),
    )


# --- T4, T5c: fulfilling a goods request -------------------------------------------


def _own_goods(value: object) -> Goods | None:
    """The engine's own goods equal to ``value``, or None if it is not goods:
    a state never holds a caller's object, which might be a look-alike."""
    counts = getattr(value, "counts", None)
    if not isinstance(value, Goods) or type(counts) is not tuple or len(counts) != len(Good):
        return None
    if any(type(n) is not int or n < 0 for n in counts):
        return None
    return Goods.of_counts(counts)


def verify_play_request(state: GameState, request: RequestCard, delivered: Goods) -> PlayRequest:
    """The move of the current player fulfilling ``request`` with
    ``delivered``, made of the hand's own card and the engine's own goods, if
    they may (T4, T5c): they hold the card, the cart's village holds no goods
    and has had no request this turn, ``delivered`` has the request's size
    and is in the cart, and special feed in hand replaces each shown good it
    lacks; else :class:`IllegalMoveError`."""
    player = _turn_player(state)
    seat = state.current_player
    if type(request) is not RequestCard:
        _fail("T4", f"{quote(request)} is not a goods request")
    own = _own_goods(delivered)
    if own is None:
        _fail("T4", f"{quote(delivered)} is not goods to deliver")
    card = cast(RequestCard, _own_card(player.hand, request, "T4", f"seat {seat}"))
    village = player.cart
    there = state.goods_in(village)
    if there:
        _fail("T4", f"{village} still holds {len(there)} goods ({there})")
    if village in state.turn.delivered_to:
        _fail("T4", f"seat {seat} already fulfilled a goods request in {village} this turn")
    if len(own) != len(card.goods):
        _fail("T4", f"goods request {card} takes {len(card.goods)} goods, not {len(own)} ({own})")
    if not own <= player.goods:
        _fail("T4", f"seat {seat} holds {player.goods}, which does not include {own}")
    replaced = len(card.goods - own)
    feed_held = hand_count(player.hand, SPECIAL_FEED)
    if replaced > feed_held:
        _fail(
            "T5c",
            f"delivering {own} for {card} replaces {replaced} goods and needs "
            f"{replaced} special feed; seat {seat} holds {feed_held}",
        )
    return PlayRequest(card, own)


def play_request(state: GameState, request: RequestCard, delivered: Goods) -> GameState:
    """Fulfil goods request ``request`` by putting ``delivered`` into the cart's village.

    The village must hold no goods and must not have received a request this
    turn (T4). ``delivered`` must have as many goods as the request shows;
    every shown good missing from it is replaced, at one special feed each
    (T5c). Checked by :func:`verify_play_request`.
    """
    return _play_request(state, verify_play_request(state, request, delivered))


def _play_request(state: GameState, move: PlayRequest) -> GameState:
    request, delivered, replaced = move.request, move.delivered, move.feed_cost
    seat = cast(int, state.current_player)
    player = state.players[seat]
    hand = cast(tuple[Card, ...], hand_without(player.hand, request))  # verified: held
    hand = cast(tuple[Card, ...], hand_without(hand, SPECIAL_FEED, replaced))  # verified
    village = player.cart
    return _after_card(
        state,
        seat,
        player,
        (request,) + (SPECIAL_FEED,) * replaced,
        hand=hand,
        goods=player.goods - delivered,
        village=state.board.index(village),
        village_goods=delivered,
        delivered_to=village,
    )


# --- T6, T7: ending the turn and discarding down to the hand limit ---------------


def hand_limit_discards(hand: tuple[Card, ...], limit: int) -> tuple[int, int]:
    """How many non-feed cards must be discarded, and how much feed goes to
    the value pile, when a turn ends with ``hand`` (T7):
    :func:`~troedler.core.rulebook.discards_owed` of the hand."""
    if len(hand) <= limit:
        return 0, 0
    return discards_owed(len(hand), hand_count(hand, SPECIAL_FEED), limit)


def discard_options(hand: tuple[Card, ...], due: int, last: Card | None) -> list[Card]:
    """The cards of the sorted ``hand`` that may be discarded next, each once,
    in hand order, while ``due`` discards are due and ``last`` was the last (T7).

    Discards go in hand order, so each choice of cards has one order: a card
    may be discarded if it is not special feed, does not come before ``last``,
    and leaves enough cards at or after it for the discards still due.
    """
    candidates = discard_candidates(hand, last)
    options: list[Card] = []
    for i in range(len(candidates) - due + 1):
        card = candidates[i]
        if not options or card.sort_key != options[-1].sort_key:
            options.append(card)
    return options


def verify_end_turn(state: GameState) -> EndTurn:
    """The move of the current player ending the playing part of the turn, if
    they may (E1, T1, T6): it is the turns phase and no discards are due;
    else :class:`IllegalMoveError`."""
    _turn_player(state)
    return END_TURN


def end_turn(state: GameState) -> GameState:
    """End the playing part of the current turn (T6, T7).

    Played routes and extra goods go onto the discard pile, played special
    feed and fulfilled requests onto the value pile (T6). Feed beyond the hand
    limit goes onto the value pile (T7). If other cards are over the limit
    the same player then discards them with :func:`discard_card`; where that
    leaves no choice (every such card must go, or they are all alike) the
    engine discards them at once. When the turn is over, the next player's
    turn begins; after the last turn of a round the horse passes and the next
    round's piles are formed (R6), or the game ends (E1). Checked by
    :func:`verify_end_turn`.
    """
    return _end_turn(state, verify_end_turn(state))


def _end_turn(state: GameState, move: EndTurn) -> GameState:
    seat = cast(int, state.current_player)
    player = state.players[seat]
    hand = player.hand
    required, overflow = hand_limit_discards(hand, state.rules.hand_limit)
    if overflow:
        hand = cast(tuple[Card, ...], hand_without(hand, SPECIAL_FEED, overflow))  # counted
    to_value: list[Card] = []
    to_discard: list[Card] = []
    for card in state.turn.played:
        (to_value if goes_to_value_pile(card) else to_discard).append(card)
    value_pile = player.value_pile
    if to_value or overflow:
        value_pile = sort_hand(value_pile + tuple(to_value) + (SPECIAL_FEED,) * overflow)
    discard = state.discard_pile.add(to_discard)
    if required:
        return _discard_down(state, seat, player, hand, value_pile, discard, required, None)
    new_player = PlayerState(player.cart, hand, player.goods, value_pile)
    return _next_turn(state, seat, _replace(state.players, seat, new_player), discard)


def verify_discard_card(state: GameState, card: Card) -> DiscardCard:
    """The move of the current player discarding the hand's own ``card``, if
    they may now (T7): discards are due, ``card`` is in hand and not special
    feed, it does not come before the card discarded last, and it leaves
    enough cards at or after it for the discards still due; else
    :class:`IllegalMoveError`."""
    due = verify_game_on(state).turn.discards_due
    if state.phase is not Phase.PLAY_TURNS or not due:
        _fail("T7", "no discard is due: cards are discarded only over the hand limit")
    seat = cast(int, state.current_player)  # the turns phase always has one
    hand = state.players[seat].hand
    if type(card) is SpecialFeedCard:
        _fail("T7", "special feed is never discarded")
    held = _own_card(hand, card, "T7", f"seat {seat}")
    last = state.turn.last_discard
    if last is not None and held.sort_key < last.sort_key:
        _fail("T7", f"discards go in hand order: {held} comes before {last}, discarded last")
    if all(option.sort_key != held.sort_key for option in discard_options(hand, due, last)):
        _fail("T7", f"after {held} too few cards remain for the {due} discards due")
    move = discard_move(held)  # one move per card value, shared with legal_moves
    return move if move.card is held else DiscardCard(held)


def discard_card(state: GameState, card: Card) -> GameState:
    """Put ``card`` from the hand onto the discard pile, down to the hand limit (T7).

    Only while discards are due after :func:`end_turn`. Special feed is never
    discarded, and discards go in hand order: ``card`` must not come before
    the card discarded last, and must leave enough cards at or after it for
    the discards still due. When the last one is made, or the rest leave no
    choice, the turn is over. Checked by :func:`verify_discard_card`.
    """
    return _discard_card(state, verify_discard_card(state, card))


def _discard_card(state: GameState, move: DiscardCard) -> GameState:
    seat = cast(int, state.current_player)
    player = state.players[seat]
    return _discard_down(
        state,
        seat,
        player,
        player.hand,
        player.value_pile,
        state.discard_pile,
        state.turn.discards_due,
        move.card,
    )


def _discard_down(
    state: GameState,
    seat: int,
    player: PlayerState,
    hand: tuple[Card, ...],
    value_pile: tuple[Card, ...],
    discard: Pile,
    due: int,
    card: Card | None,
) -> GameState:
    """Discard ``card`` (if any) from ``hand``, then every discard that is the
    only one possible, and either wait for the player's choice or end the turn."""
    options = [card] if card is not None else discard_options(hand, due, None)
    last = None
    while len(options) == 1:
        last = options[0]
        hand = cast(tuple[Card, ...], hand_without(hand, last))  # an option is held
        discard = discard.add((last,))
        due -= 1
        if not due:
            break
        options = discard_options(hand, due, last)
    players = _replace(
        state.players, seat, PlayerState(player.cart, hand, player.goods, value_pile)
    )
    if due:
        return next_state(
            state,
            players=players,
            discard_pile=discard,
            current_player=seat,
            turn=Turn(discards_due=due, last_discard=last),
        )
    return _next_turn(state, seat, players, discard)


# === One table: each move type, its check and its action ========================

MOVE_RULES: dict[type, tuple[Any, Any]] = {
    PlayRoute: (lambda s, m: verify_play_route(s, m.kind, m.to, m.take), _play_route),
    EndTurn: (lambda s, m: verify_end_turn(s), _end_turn),
    TakePile: (lambda s, m: verify_take_pile(s, m.pile), _take_pile),
    PlayRequest: (lambda s, m: verify_play_request(s, m.request, m.delivered), _play_request),
    DiscardCard: (lambda s, m: verify_discard_card(s, m.card), _discard_card),
    PlayFeedMove: (lambda s, m: verify_play_feed_move(s, m.to, m.take), _play_feed_move),
    PlayExtraGood: (lambda s, m: verify_play_extra_good(s, m.good), _play_extra_good),
    PlayFeedExtraGood: (
        lambda s, m: verify_play_feed_extra_good(s, m.good),
        _play_feed_extra_good,
    ),
    DiscardPile: (lambda s, m: verify_discard_dealer_pile(s, m.pile), _discard_dealer_pile),
}
"""Each move type: ``(check, act)``. ``check(state, move)`` is the move's
``verify_x``, giving the checked move; ``act(state, checked)`` applies it.
:func:`troedler.apply_move` and :func:`troedler.verify_move` dispatch here."""


# Whether an action would pass: is_legal(state, move) answers it for every
# move. The can_x functions of 0.2 still work for one release, with a warning.
_CAN = frozenset(
    f"can_{name}"
    for name in (
        "take_pile",
        "discard_dealer_pile",
        "play_route",
        "play_extra_good",
        "play_feed_move",
        "play_feed_extra_good",
        "play_request",
        "end_turn",
        "discard_card",
        "turn_up",
    )
)


def __getattr__(name: str) -> object:
    # Deprecated in 0.3, gone in the release after: is_legal answers for a move.
    if name in _CAN:
        import warnings  # noqa: PLC0415 (only on the deprecated path)

        verify = {**globals(), "verify_turn_up": verify_turn_up}[f"verify_{name[4:]}"]
        warnings.warn(
            f"troedler.actions.{name} is deprecated: use troedler.is_legal(state, move)",
            DeprecationWarning,
            stacklevel=2,
        )

        def can(state: GameState, *args: object) -> bool:
            try:
                verify(state, *args)
            except IllegalMoveError:
                return False
            return True

        can.__name__ = name
        return can
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
