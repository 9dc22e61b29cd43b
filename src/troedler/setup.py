"""Setting up a game (S1-S6) and forming the first round's piles."""

from __future__ import annotations

from troedler.actions import form_piles
from troedler.board import Board, default_board
from troedler.cards import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    card_sort_key,
    default_cards,
)
from troedler.chance import shuffled
from troedler.errors import ConfigurationError, quote
from troedler.goods import Good, Goods
from troedler.limits import check_seed
from troedler.pile import Pile
from troedler.rules import Rules
from troedler.state import NO_TURN, GameState, Phase, PlayerState

__all__ = ["new_game"]

GOODS_PER_KIND = 8


def new_game(
    num_players: int,
    *,
    seed: int,
    starting_dealer: int = 0,
    board: Board | None = None,
    rules: Rules | None = None,
    cards: CardCatalogue | None = None,
) -> GameState:
    """A new game, set up (S1-S6) with round 1's dealer piles formed.

    The returned state waits for the first decision: the first pile to take
    (or, with two players, the dealer's pile to discard). ``seed`` fixes
    every shuffle of the game. ``board`` and ``cards`` default to the
    reconstructed ones shipped with troedler; ``rules`` to the rulebook's
    for ``num_players``.

    >>> state = new_game(4, seed=1)
    >>> state.round, state.dealer, state.current_player, len(state.dealer_piles)
    (1, 0, 1, 5)
    """
    rules = Rules.for_players(num_players) if rules is None else rules
    if not isinstance(rules, Rules) or rules.num_players != num_players:
        raise ConfigurationError(
            f"S1: the rules must be a Rules for {quote(num_players)} players, got {quote(rules)}"
        )
    check_seed(seed)
    if type(starting_dealer) is not int or not 0 <= starting_dealer < num_players:
        raise ConfigurationError(
            f"S3: the starting dealer must be a seat 0 to {num_players - 1}, "
            f"not {quote(starting_dealer)}"
        )
    board = default_board() if board is None else board
    cards = default_cards() if cards is None else cards
    if not isinstance(board, Board) or not isinstance(cards, CardCatalogue):
        raise ConfigurationError("board must be a Board and cards a CardCatalogue")
    if rules.setup_requests > len(cards.requests) or rules.setup_feed > cards.special_feed:
        raise ConfigurationError(
            f"S5: the set-up takes {rules.setup_requests} goods requests and "
            f"{rules.setup_feed} special feed; the cards have {len(cards.requests)} and "
            f"{cards.special_feed}"
        )
    starts = [board.start_village(seat, num_players) for seat in range(num_players)]
    for village in starts:
        _check_starting_set(board, cards, village)

    # S4: the 48 goods, mixed, dealt onto the numbered villages in board order.
    goods_bag = shuffled([good for good in Good for _ in range(GOODS_PER_KIND)], seed, 0)
    village_goods = []
    dealt = 0
    for numbered in board.villages:
        village_goods.append(Goods.of(goods_bag[dealt : dealt + numbered.number]))
        dealt += numbered.number

    # S5: random requests and special feed, shuffled into the face-up discard pile.
    requests = shuffled(cards.requests, seed, 1)
    chosen, rest = requests[: rules.setup_requests], requests[rules.setup_requests :]
    feed_left = cards.special_feed - rules.setup_feed
    discard = shuffled(chosen + (SPECIAL_FEED,) * rules.setup_feed, seed, 2)

    # S6: every other card of the deck becomes the face-down game-round pile.
    deck: tuple[Card, ...] = (
        cards.routes + rest + (SPECIAL_FEED,) * feed_left + (EXTRA_GOOD,) * cards.extra_goods
    )
    game_round_pile = shuffled(deck, seed, 3)

    players = tuple(
        PlayerState(
            cart=village,
            hand=tuple(sorted(cards.starting_set(village).cards, key=card_sort_key)),
            goods=Goods(),
        )
        for village in starts
    )
    state = GameState(
        rules=rules,
        board=board,
        cards=cards,
        seed=seed,
        shuffles=4,
        round=1,
        dealer=starting_dealer,
        phase=Phase.TAKE_PILES,
        current_player=None,
        game_round_pile=game_round_pile,
        dealer_piles=(),
        discard_pile=Pile.of(discard),
        village_goods=tuple(village_goods),
        players=players,
        turn=NO_TURN,
    )
    return form_piles(state)


def _check_starting_set(board: Board, cards: CardCatalogue, village: str) -> None:
    try:
        starting_set = cards.starting_set(village)
    except KeyError:
        raise ConfigurationError(
            f"C3: the cards have no starting set for start village {village}"
        ) from None
    if starting_set.route not in board.route_kinds(village):
        raise ConfigurationError(
            f"C3: the starting set of {village} has a {starting_set.route.code} card, "
            f"but no {starting_set.route.code} leaves {village}"
        )
