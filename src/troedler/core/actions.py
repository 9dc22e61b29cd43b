"""The actions of the game as pure functions: state in, new state out.

The module follows the rulebook: first the round (R2-R6: forming the dealer
piles, taking them, passing the horse), then the turn (T1-T7: playing
cards, ending the turn, discarding down to the hand limit).

Each kind of move has its check, ``verify_x(state, move)``, the one
statement of its rules: it raises :class:`IllegalMoveError` naming the rule
and the facts, and otherwise returns the checked move, made of the engine's
own objects (the hand's card, the board's village, the shared goods), as
pokerkit's ``verify_...`` returns the value it cleaned. Its action applies
what the check returned and checks nothing more; it never changes the state
it is given. :data:`MOVE_RULES` pairs each move type with its check and its
action, and :func:`troedler.apply_move` is the one door to them. Checks run
in a fixed order: that the move is of its kind, that ``state`` is a state,
game over, phase, whose decision, then the move's own rules.
:func:`troedler.legal_moves` lists exactly the moves every check passes.

The end of a round (R6) and of the game (E1) follow from the end of the
last turn of a round (:class:`~troedler.EndTurn`, then any
:class:`~troedler.DiscardCard`); the next round's piles are formed at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from troedler.core.board import RouteKind
from troedler.core.cards import (
    ROUTE_CARDS,
    SPECIAL_FEED,
    Card,
    RequestCard,
    SpecialFeedCard,
    hand_count,
    hand_index,
    hand_without,
    is_card,
    sort_hand,
)
from troedler.core.chance import settle
from troedler.core.errors import ConfigurationError, IllegalMoveError, quote
from troedler.core.forming import start_forming
from troedler.core.goods import GOOD_KINDS, Good, Goods
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
    dealer_discards_first,
    discard_options,
    ends_game,
    goes_to_value_pile,
    hand_limit_discards,
    next_to_take,
)
from troedler.core.state import (
    NO_TURN,
    GameState,
    Phase,
    PlayerState,
    Turn,
    next_state,
    with_player,
)

__all__ = [
    "MOVE_RULES",
    "verify_discard_card",
    "verify_discard_dealer_pile",
    "verify_end_turn",
    "verify_game_on",
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


def _wrong_move(move: object, kind: type) -> NoReturn:
    raise ConfigurationError(f"expected a {kind.__name__}, got {quote(move)}")


def _held(hand: tuple[Card, ...], card: Card, rule: str, seat: int | None) -> Card:
    """The card of ``seat``'s sorted ``hand`` equal to ``card``, which they
    must hold to play or discard it (T2-T5, T7); else :class:`IllegalMoveError`.
    A state holds its own cards, never a caller's: a card a caller names is
    first checked with :func:`~troedler.core.cards.is_card`."""
    at = hand_index(hand, card)
    if at < 0:
        _fail(rule, f"seat {seat} holds no {card} card")
    return hand[at]


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


def verify_take_pile(state: GameState, move: TakePile) -> TakePile:
    """The checked ``move`` of the current player taking a dealer pile, if
    they may (R1, R4): it is the take-piles phase, the pile lies there, and
    with two players the dealer has discarded a pile first; else
    :class:`IllegalMoveError`."""
    if type(move) is not TakePile:
        _wrong_move(move, TakePile)
    gone = _verify_take_phase(state)
    if dealer_discards_first(state.rules, gone):
        piles = len(state.dealer_piles)
        _fail("R4", f"seat {state.dealer}, the dealer, first discards one of the {piles} piles")
    return TAKE_PILE_MOVES[_verify_pile(state, move.pile, gone)]


def _take_pile(state: GameState, move: TakePile) -> GameState:
    """The current player takes dealer pile ``move.pile`` into hand (R4).

    After the last player has taken, the pile left over goes onto the discard
    pile and the dealer begins the turns (R5).
    """
    seat: int = state.current_player  # type: ignore[assignment]  # the take-piles phase has one
    player = state.players[seat]
    pile = move.pile
    hand = sort_hand(player.hand + (state.dealer_piles[pile] or ()))
    players = with_player(state.players, seat, hand=hand)
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


def verify_discard_dealer_pile(state: GameState, move: DiscardPile) -> DiscardPile:
    """The checked ``move`` of the dealer putting a dealer pile onto the
    discard pile, if they may: two players only, before any pile is taken
    (R4); else :class:`IllegalMoveError`."""
    if type(move) is not DiscardPile:
        _wrong_move(move, DiscardPile)
    gone = _verify_take_phase(state)
    if not dealer_discards_first(state.rules, gone):
        if not state.rules.two_player_rules:
            _fail("R4", "only in the two-player game does the dealer discard a pile")
        _fail("R4", "the dealer discards a pile only before any pile is taken")
    return DISCARD_PILE_MOVES[_verify_pile(state, move.pile, gone)]


def _discard_dealer_pile(state: GameState, move: DiscardPile) -> GameState:
    """Two players: the dealer puts dealer pile ``move.pile`` onto the discard
    pile, before anyone takes a pile (R4)."""
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
    following = (seat + 1) % len(players)
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
        dealer=(state.dealer + 1) % len(players),
    )
    return settle(following_round)


# === The turn (T1-T7) ==========================================================

# --- T1: whose turn -------------------------------------------------------------


def _turn_player(state: GameState) -> PlayerState:
    """The player whose turn it is, after checking cards may be played (E1, T1, T7)."""
    if isinstance(state, GameState) and state.phase is Phase.PLAY_TURNS:
        seat: int = state.current_player  # type: ignore[assignment]  # the turns phase has one
        if state.turn.discards_due:
            due = state.turn.discards_due
            _fail("T7", f"seat {seat} has ended the turn and discards {due} more")
        return state.players[seat]
    verify_game_on(state)
    _fail(
        "T1", f"cards are played in turns; round {state.round} is in the {state.phase.value} phase"
    )


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
    played: tuple[Card, ...],
    *,
    hand: tuple[Card, ...],
    cart: str | None = None,
    goods: Goods | None = None,
    village: int | None = None,
    village_goods: Goods | None = None,
    delivered_to: str | None = None,
) -> GameState:
    """The state after ``seat`` played ``played``: what changed is passed in
    (``village`` by its index), everything else is shared with ``state``."""
    all_goods = state.village_goods
    if village is not None and village_goods is not None:
        all_goods = _replace(all_goods, village, village_goods)
    turn = state.turn
    turn = Turn(
        played=turn.played + played,
        delivered_to=(
            turn.delivered_to if delivered_to is None else turn.delivered_to + (delivered_to,)
        ),
    )
    return next_state(
        state,
        players=with_player(state.players, seat, hand=hand, cart=cart, goods=goods),
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
    _held(player.hand, card, rule, state.current_player)
    board = state.board
    positions = board.positions
    if not isinstance(to, str) or to not in positions:
        _fail(rule, f"{quote(to)} is not a village of the board")
    here = positions[player.cart]
    moves = board_moves(board)
    there = positions[to]
    for village, options in moves.feed[here] if kind is None else moves.routes[here][kind]:
        if village == there:
            if take is None:
                return options[0]
            return options[1 + _verify_good_in(state, there, take, rule)]
    how = f"no {kind.code}" if kind is not None else "no route"
    _fail(rule, f"{how} leads from {player.cart} to {to}")


def verify_play_route(state: GameState, move: PlayRoute) -> PlayRoute:
    """The checked ``move`` of the current player playing a route card to
    move the cart, if they may (T1, T2): they hold a route card of the
    move's kind, a route of that kind leads to its village, and the village
    holds the good it takes; else :class:`IllegalMoveError`."""
    if type(move) is not PlayRoute:
        _wrong_move(move, PlayRoute)
    kind = move.kind
    if type(kind) is not RouteKind:
        _fail("T2", f"{quote(kind)} is not a route kind")
    # The board's own move of the kind asked for: a PlayRoute.
    return _verify_move_cart(state, kind, move.to, move.take, ROUTE_CARDS[kind], "T2")  # type: ignore[return-value]


def verify_play_feed_move(state: GameState, move: PlayFeedMove) -> PlayFeedMove:
    """The checked ``move`` of the current player playing special feed to
    move the cart along a route of any kind, taking a good there, if they
    may (T5a); else :class:`IllegalMoveError`."""
    if type(move) is not PlayFeedMove:
        _wrong_move(move, PlayFeedMove)
    # The board's own move along any route: a PlayFeedMove.
    return _verify_move_cart(state, None, move.to, move.take, SPECIAL_FEED, "T5a")  # type: ignore[return-value]


def _move_cart(state: GameState, move: PlayRoute | PlayFeedMove) -> GameState:
    """Play the checked ``move``'s card: the cart moves to ``move.to`` (the
    board's own name) and takes ``move.take`` there (T2, T5a)."""
    seat: int = state.current_player  # type: ignore[assignment]  # a player decides
    player = state.players[seat]
    card = move.card
    to = move.to
    take = move.take
    hand = hand_without(player.hand, card)  # verified: held
    if take is None:
        return _after_card(state, seat, (card,), hand=hand, cart=to)
    there = state.board.positions[to]
    return _after_card(
        state,
        seat,
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
    _held(player.hand, card, rule, state.current_player)
    return _verify_good_in(state, state.board.positions[player.cart], good, rule)


def verify_play_extra_good(state: GameState, move: PlayExtraGood) -> PlayExtraGood:
    """The checked ``move`` of the current player playing an extra good (+1)
    card to take a good where the cart stands, if they may (T3); else
    :class:`IllegalMoveError`."""
    if type(move) is not PlayExtraGood:
        _wrong_move(move, PlayExtraGood)
    return EXTRA_GOOD_MOVES[_verify_take_extra(state, move.good, PlayExtraGood.card, "T3")]


def verify_play_feed_extra_good(state: GameState, move: PlayFeedExtraGood) -> PlayFeedExtraGood:
    """The checked ``move`` of the current player playing special feed to
    take a good where the cart stands, if they may (T5b); else
    :class:`IllegalMoveError`."""
    if type(move) is not PlayFeedExtraGood:
        _wrong_move(move, PlayFeedExtraGood)
    return FEED_EXTRA_GOOD_MOVES[
        _verify_take_extra(state, move.good, PlayFeedExtraGood.card, "T5b")
    ]


def _take_extra(state: GameState, move: PlayExtraGood | PlayFeedExtraGood) -> GameState:
    """Play the checked ``move``'s card: take ``move.good`` where the cart stands (T3, T5b)."""
    seat: int = state.current_player  # type: ignore[assignment]  # a player decides
    player = state.players[seat]
    card = move.card
    good = move.good
    there = state.board.positions[player.cart]
    return _after_card(
        state,
        seat,
        (card,),
        hand=hand_without(player.hand, card),  # verified: held
        goods=player.goods.add(good),
        village=there,
        village_goods=state.village_goods[there].remove(good),
    )


# --- T4, T5c: fulfilling a goods request -------------------------------------------


def _own_goods(value: object) -> Goods | None:
    """The engine's own goods equal to ``value``, or None if it is not goods:
    a state never holds a caller's object, which might be a look-alike."""
    counts = getattr(value, "counts", None)
    if not isinstance(value, Goods) or type(counts) is not tuple or len(counts) != GOOD_KINDS:
        return None
    if any(type(n) is not int or n < 0 for n in counts):
        return None
    return Goods.of_counts(counts)


def verify_play_request(state: GameState, move: PlayRequest) -> PlayRequest:
    """The checked ``move`` of the current player fulfilling a goods request,
    made of the hand's own card and the engine's own goods, if they may (T4,
    T5c): they hold the card, the cart's village holds no goods and has had
    no request this turn, the goods delivered are as many as the request
    shows and are in the cart, and special feed in hand replaces each shown
    good they lack; else :class:`IllegalMoveError`."""
    if type(move) is not PlayRequest:
        _wrong_move(move, PlayRequest)
    player = _turn_player(state)
    seat = state.current_player
    request = move.request
    if type(request) is not RequestCard or not is_card(request):
        _fail("T4", f"{quote(request)} is not a goods request")
    own = _own_goods(move.delivered)
    if own is None:
        _fail("T4", f"{quote(move.delivered)} is not goods to deliver")
    card: RequestCard = _held(player.hand, request, "T4", seat)  # type: ignore[assignment]
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
    if request is card and move.delivered is own and move.feed_cost == replaced:
        return move  # already the engine's own, as legal_moves lists it
    return PlayRequest(card, own)


def _play_request(state: GameState, move: PlayRequest) -> GameState:
    """Fulfil the checked ``move``'s request: put its goods into the cart's
    village, the request and one special feed per replaced good played (T4, T5c)."""
    request, delivered, replaced = move.request, move.delivered, move.feed_cost
    seat: int = state.current_player  # type: ignore[assignment]  # a player decides
    player = state.players[seat]
    hand = hand_without(player.hand, request)  # verified: held
    hand = hand_without(hand, SPECIAL_FEED, replaced)  # verified
    village = player.cart
    return _after_card(
        state,
        seat,
        (request,) + (SPECIAL_FEED,) * replaced,
        hand=hand,
        goods=player.goods - delivered,
        village=state.board.positions[village],
        village_goods=delivered,
        delivered_to=village,
    )


# --- T6, T7: ending the turn and discarding down to the hand limit ---------------


def verify_end_turn(state: GameState, move: EndTurn) -> EndTurn:
    """The checked ``move`` of the current player ending the playing part of
    the turn, if they may (E1, T1, T6): it is the turns phase and no
    discards are due; else :class:`IllegalMoveError`."""
    if type(move) is not EndTurn:
        _wrong_move(move, EndTurn)
    _turn_player(state)
    return END_TURN


def _end_turn(state: GameState, move: EndTurn) -> GameState:
    """End the playing part of the current turn (T6, T7).

    Played routes and extra goods go onto the discard pile, played special
    feed and fulfilled requests onto the value pile (T6). Feed beyond the hand
    limit goes onto the value pile (T7). If other cards are over the limit
    the same player then discards them with :class:`~troedler.DiscardCard`
    moves; where that leaves no choice (every such card must go, or they are
    all alike) the engine discards them at once. When the turn is over, the
    next player's turn begins; after the last turn of a round the horse
    passes and the next round's piles are formed (R6), or the game ends (E1).
    """
    seat: int = state.current_player  # type: ignore[assignment]  # a player decides
    player = state.players[seat]
    hand = player.hand
    required, overflow = hand_limit_discards(hand, state.rules.hand_limit)
    if overflow:
        hand = hand_without(hand, SPECIAL_FEED, overflow)  # counted
    to_value: list[Card] = []
    to_discard: list[Card] = []
    for card in state.turn.played:
        (to_value if goes_to_value_pile(card) else to_discard).append(card)
    value_pile = player.value_pile
    if to_value or overflow:
        value_pile = sort_hand(value_pile + tuple(to_value) + (SPECIAL_FEED,) * overflow)
    discard = state.discard_pile.add(to_discard)
    if required:
        return _discard_down(state, seat, hand, value_pile, discard, required, None)
    players = with_player(state.players, seat, hand=hand, value_pile=value_pile)
    return _next_turn(state, seat, players, discard)


def verify_discard_card(state: GameState, move: DiscardCard) -> DiscardCard:
    """The checked ``move`` of the current player discarding a card of the
    hand, the hand's own, if they may now (T7): discards are due, the card
    is in hand and may go next (:func:`~troedler.core.rulebook.discard_options`);
    else :class:`IllegalMoveError`."""
    if type(move) is not DiscardCard:
        _wrong_move(move, DiscardCard)
    due = verify_game_on(state).turn.discards_due
    if state.phase is not Phase.PLAY_TURNS or not due:
        _fail("T7", "no discard is due: cards are discarded only over the hand limit")
    seat: int = state.current_player  # type: ignore[assignment]  # the turns phase has one
    hand = state.players[seat].hand
    card = move.card
    if type(card) is SpecialFeedCard:
        _fail("T7", "special feed is never discarded")
    if not is_card(card):
        _fail("T7", f"{quote(card)} is not a card")
    held = _held(hand, card, "T7", seat)
    last = state.turn.last_discard
    if last is not None and held.sort_key < last.sort_key:
        _fail("T7", f"discards go in hand order: {held} comes before {last}, discarded last")
    if all(option.sort_key != held.sort_key for option in discard_options(hand, due, last)):
        _fail("T7", f"after {held} too few cards remain for the {due} discards due")
    checked = discard_move(held)  # one move per card value, shared with legal_moves
    return checked if checked.card is held else DiscardCard(held)


def _discard_card(state: GameState, move: DiscardCard) -> GameState:
    """Put the checked ``move``'s card onto the discard pile, down to the hand
    limit (T7). When the last one is made, or the rest leave no choice, the
    turn is over."""
    seat: int = state.current_player  # type: ignore[assignment]  # a player decides
    hand = state.players[seat].hand
    return _discard_down(
        state, seat, hand, None, state.discard_pile, state.turn.discards_due, move.card
    )


def _discard_down(
    state: GameState,
    seat: int,
    hand: tuple[Card, ...],
    value_pile: tuple[Card, ...] | None,
    discard: Pile,
    due: int,
    card: Card | None,
) -> GameState:
    """Discard ``card`` (if any) from ``hand``, then every discard that is the
    only one possible, and either wait for the player's choice or end the turn.
    ``value_pile`` is the player's new value pile, None if it is unchanged."""
    options = [card] if card is not None else discard_options(hand, due, None)
    last = None
    while len(options) == 1:
        last = options[0]
        hand = hand_without(hand, last)  # an option is held
        discard = discard.add((last,))
        due -= 1
        if not due:
            break
        options = discard_options(hand, due, last)
    players = with_player(state.players, seat, hand=hand, value_pile=value_pile)
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

Check = Callable[[GameState, Any], Move]
"""A move type's check: ``verify_x(state, move)``, giving the checked move."""
Act = Callable[[GameState, Any], GameState]
"""A move type's action: the state after a checked move."""

MOVE_RULES: dict[type, tuple[Check, Act]] = {
    PlayRoute: (verify_play_route, _move_cart),
    EndTurn: (verify_end_turn, _end_turn),
    TakePile: (verify_take_pile, _take_pile),
    PlayRequest: (verify_play_request, _play_request),
    DiscardCard: (verify_discard_card, _discard_card),
    PlayFeedMove: (verify_play_feed_move, _move_cart),
    PlayExtraGood: (verify_play_extra_good, _take_extra),
    PlayFeedExtraGood: (verify_play_feed_extra_good, _take_extra),
    DiscardPile: (verify_discard_dealer_pile, _discard_dealer_pile),
}
"""Each move type: ``(check, act)``. ``check(state, move)`` is the move's
``verify_x``, giving the checked move; ``act(state, checked)`` applies it.
:func:`troedler.apply_move` and :func:`troedler.verify_move` dispatch here."""


# --- The action functions of 0.3, deprecated -------------------------------------
#
# One door makes a move: apply_move(state, move). The action functions of
# 0.3 (take_pile(state, pile) ...) still work in 0.4, with a warning, by
# building their move and going through that door's table; they go in 0.5.

DEPRECATED_ACTIONS: dict[str, type] = {
    "take_pile": TakePile,
    "discard_dealer_pile": DiscardPile,
    "play_route": PlayRoute,
    "play_extra_good": PlayExtraGood,
    "play_feed_move": PlayFeedMove,
    "play_feed_extra_good": PlayFeedExtraGood,
    "play_request": PlayRequest,
    "end_turn": EndTurn,
    "discard_card": DiscardCard,
}
"""Each action function of 0.3, gone in 0.5, and the move it makes."""


def deprecated_action(name: str) -> Callable[..., GameState]:
    """The action function ``name`` of 0.3, with a :class:`DeprecationWarning`
    at its caller's caller: ``x(state, *fields)`` applies ``Move(*fields)``."""
    import warnings  # noqa: PLC0415 (only on the deprecated path)

    move_type = DEPRECATED_ACTIONS[name]
    warnings.warn(
        f"troedler.{name} is deprecated: use "
        f"troedler.apply_move(state, troedler.{move_type.__name__}(...))",
        DeprecationWarning,
        stacklevel=3,
    )
    check, act = MOVE_RULES[move_type]

    def action(state: GameState, *fields: Any) -> GameState:
        return act(state, check(state, move_type(*fields)))

    action.__name__ = action.__qualname__ = name
    return action


def __getattr__(name: str) -> object:
    if name in DEPRECATED_ACTIONS:
        return deprecated_action(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
