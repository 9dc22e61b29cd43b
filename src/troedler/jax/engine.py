"""The game as pure JAX functions of a fixed-shape state: set-up, the step, the
legal mask, the observation tensor, the rewards.

Every function here takes the :class:`~troedler.jax.tables.Tables` of the
game (plain Python and numpy, fixed when the function is traced) and one
game's arrays; :mod:`troedler.jax.env` vmaps and jits them. Nothing branches
in Python on a traced value: every rule is written as arithmetic and
``jnp.where`` on whole arrays, so that a batch of games runs as one program
whatever phase each game is in.

Piles are arrays of card types, bottom to top, with a size; the entries past
the size are kept at 0, so that two equal games are equal arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pgx
from jax.custom_batching import custom_vmap
from pgx._src.struct import dataclass, field

from troedler.core import rulebook
from troedler.core.board import ANY_KIND
from troedler.core.goods import GOODS_PER_KIND
from troedler.core.rulebook import PILE_SIZE, SETUP_SHUFFLES, Rules
from troedler.core.state import Phase
from troedler.encoding.action_ids import SECTION_NAMES
from troedler.jax.tables import GOODS, Game, Tables

__all__ = [
    "GAME_OVER",
    "PLAY_TURNS",
    "TAKE_PILES",
    "GameArrays",
    "State",
    "init",
    "legal_mask",
    "observe",
    "step",
]

Array = jax.Array

TAKE_PILES = tuple(Phase).index(Phase.TAKE_PILES)
PLAY_TURNS = tuple(Phase).index(Phase.PLAY_TURNS)
GAME_OVER = tuple(Phase).index(Phase.GAME_OVER)
_PHASES = len(Phase)
_NO_CARD = -1
_I32 = jnp.int32

# The rulebook's formulas, the very functions the core calls: plain
# arithmetic that works element by element on arrays as on the integers
# they are typed for there (see troedler.core.rulebook).
_damage = cast("Callable[[Array, Array], Array]", rulebook.damage)
_discards_owed = cast("Callable[[Array, Array, int], tuple[Array, Array]]", rulebook.discards_owed)
_ends_game = cast("Callable[[Rules, Array], Array]", rulebook.ends_game)
_reshuffle_due = cast("Callable[[Array, int, Array, int, bool], Array]", rulebook.reshuffle_due)
_setup_pile_hidden = cast("Callable[[Rules, Array, Array], Array]", rulebook.setup_pile_hidden)
_totally_damaged = cast(
    "Callable[[Array, Array, Array, Array, bool], Array]", rulebook.totally_damaged
)
_total_points = cast("Callable[[Array, Array], Array]", rulebook.total_points)
_standing = cast("Callable[[Array, Array], Array]", rulebook.standing)

# Each section of the action ids by its place in their order (troedler.encoding.action_ids).
(
    _TAKE,
    _DISCARD_PILE,
    _ROUTE,
    _EXTRA,
    _FEED_MOVE,
    _FEED_EXTRA,
    _DELIVER,
    _END,
    _DISCARD_CARD,
) = (
    SECTION_NAMES.index(name)
    for name in (
        "take pile",
        "discard pile",
        "route",
        "extra good",
        "feed move",
        "feed extra good",
        "deliver",
        "end turn",
        "discard card",
    )
)


@dataclass
class GameArrays:
    """The arrays of one game (a leading batch axis in a batch): the private
    part of a :class:`State`, ``state._x``, as pgx keeps a game's own arrays.

    Card types are numbered as in :func:`troedler.encoding.action_ids.card_types`,
    phases as in :class:`troedler.Phase`, seats and villages as in the core;
    a card type of -1 stands for no card. Read a game through
    :func:`troedler.jax.to_state`, not through these arrays: their layout
    may change with the engine.
    """

    round: Array
    dealer: Array
    phase: Array
    shuffles: Array
    """Shuffles made so far (4 at set-up, one more at every reshuffle, R3)."""
    deck: Array
    """[cards] the face-down game-round pile, bottom to top."""
    deck_size: Array
    discard: Array
    """[cards] the discard pile, bottom to top."""
    discard_size: Array
    piles: Array
    """[players + 1, 4] the dealer piles, bottom to top."""
    pile_size: Array
    pile_gone: Array
    """[players + 1] bool: taken or discarded, or no piles lie (outside the take-piles phase)."""
    village_goods: Array
    """[villages, 6] goods in each village."""
    cart: Array
    """[players] the village of each seat's cart."""
    goods: Array
    """[players, 6] goods each seat has collected."""
    hand: Array
    """[players, card types] each hand, counted per card type."""
    value_pile: Array
    """[players, card types] each value pile, counted per card type."""
    played: Array
    """[most cards in a hand] cards played this turn, in order."""
    played_size: Array
    delivered: Array
    """[villages] 0, or k for the k-th village that received a goods request this turn."""
    discards_due: Array
    last_discard: Array
    """The card type discarded last while discards are due, or -1."""

    if TYPE_CHECKING:  # what pgx's untyped dataclass makes, for the type checker

        def __init__(self, **fields: Array) -> None: ...

        def replace(self, **fields: Array) -> GameArrays:
            """A copy with ``fields`` changed."""


@dataclass
class State(pgx.State):  # type: ignore[misc]  # pgx ships no type hints
    """One game (or a batch of games: every array then has a leading batch axis).

    Its public fields are pgx's six; the game itself lies in the private
    ``_x`` (:class:`GameArrays`), read through :func:`troedler.jax.to_state`.
    """

    current_player: Array
    """The seat to decide (int32); seat 0 once the game is over."""
    observation: Array
    """The observation tensor of the seat to decide (seat 0's once over)."""
    rewards: Array
    """[players] float32: the winners share 1 at the step that ends the game."""
    terminated: Array
    """Set at the step that ends the game (E1), and by an illegal action."""
    truncated: Array
    """Set when a game still running passes ``max_rounds`` rounds."""
    legal_action_mask: Array
    """[num_actions] bool: the legal action ids (all set once the game is over)."""
    _step_count: Array
    _x: GameArrays
    _game: Game = field(pytree_node=False)
    """Board, cards and rules: static, the same for every game of a batch."""

    @property
    def env_id(self) -> Any:
        """pgx's name for the environment."""
        return "troedler"

    def to_svg(self, *, color_theme: Any = None, scale: Any = None) -> str:
        """The game drawn by :func:`troedler.svg.render_svg` (through
        :func:`troedler.jax.to_state`); a batch is drawn game by game, side by side.

        ``color_theme`` and ``scale`` are pgx's; ``scale`` multiplies the size.
        """
        from troedler.jax.picture import state_svg  # noqa: PLC0415 - svg only when drawn

        return state_svg(self, scale=1.0 if scale is None else float(scale))

    def save_svg(self, filename: Any, *, color_theme: Any = None, scale: Any = None) -> None:
        """Write :meth:`to_svg` to ``filename`` (a name ending in ``.svg``)."""
        from troedler.jax.picture import save_state_svg  # noqa: PLC0415 - svg only when drawn

        save_state_svg(self, filename, scale=1.0 if scale is None else float(scale))


# --- small array helpers ----------------------------------------------------


def _counts(items: Array, valid: Array, size: int) -> Array:
    """How many of each value ``0 .. size - 1`` the valid ``items`` hold."""
    where = jnp.where(valid, items, size)  # out of range: dropped
    return jnp.zeros(size, _I32).at[where].add(1, mode="drop")


def _append(stack: Array, size: Array, items: Array, valid: Array) -> tuple[Array, Array]:
    """``stack`` with the valid ``items`` put on top, in order."""
    valid = valid.astype(_I32)
    position = jnp.where(valid > 0, size + jnp.cumsum(valid) - 1, stack.shape[0])
    return stack.at[position].set(items.astype(_I32), mode="drop"), size + valid.sum()


def _one_hot(value: Array | int, size: int) -> Array:
    """``value`` one-hot in ``size`` places; all zero for a value out of range."""
    return (jnp.arange(size) == value).astype(_I32)


def _discard_options(t: Tables, hand: Array, due: Array, last: Array) -> Array:
    """The card types of ``hand`` that may be discarded next (T7), as
    :func:`troedler.core.rulebook.discard_options` lists them."""
    kinds = jnp.arange(hand.shape[0])
    candidates = jnp.where(jnp.asarray(t.discardable) & (kinds >= last), hand, 0)
    before = jnp.cumsum(candidates) - candidates
    return (candidates > 0) & (before <= candidates.sum() - due)


# --- set-up and forming the dealer piles (S4-S6, R2, R3) --------------------


def _fisher_yates(cards: Array, size: Array, key: Array) -> Array:
    """``cards[:size]`` shuffled (the rest kept), by Fisher-Yates from the top.

    Place i takes a random place 0 to i, a 32-bit word modulo i + 1: no place
    is more likely than another by more than (i + 1) / 2**32, below 3e-8 for
    the game's 110 cards. It runs only for the games that reshuffle (see
    :func:`_only_where`).
    """
    words = jax.random.bits(key, cards.shape, jnp.uint32)

    def swap(k: Array, cards: Array) -> Array:
        i = cards.shape[0] - 1 - k
        j = (words[i] % jnp.asarray(i + 1, jnp.uint32)).astype(_I32)
        j = jnp.where(i < size, j, i)  # places past the size stay where they are
        here, there = cards[i], cards[j]
        return cards.at[j].set(here).at[i].set(there)

    shuffled: Array = jax.lax.fori_loop(0, cards.shape[0] - 1, swap, cards)
    return shuffled


def _only_where(need: Array, function: Callable[..., Any], otherwise: Any, *arguments: Any) -> Any:
    """``function(*arguments)`` where ``need`` holds, else ``otherwise``: a
    pytree shaped as the function's result.

    For one game this is a ``lax.cond``. Under ``jax.vmap`` a ``cond`` on a
    batched condition runs both branches for every game; here the batch rule
    runs ``function`` only for the games that need it, a chunk of them at a
    time (gathered, computed, scattered back), while any game is left. Work
    that happens once a round or once a game (forming piles, a reshuffle, a
    new set-up) then costs the batch in proportion to the games doing it.
    """

    def one(need: Array, otherwise: Any, arguments: tuple[Any, ...]) -> Any:
        return jax.lax.cond(need, lambda: function(*arguments), lambda: otherwise)

    batched = custom_vmap(one)

    @batched.def_vmap
    def rule(
        size: int, in_batched: Any, need: Array, otherwise: Any, arguments: tuple[Any, ...]
    ) -> tuple[Any, Any]:
        def spread(value: Array, is_batched: bool) -> Array:
            return value if is_batched else jnp.broadcast_to(value, (size, *jnp.shape(value)))

        need_batched, otherwise_batched, arguments_batched = in_batched
        need = spread(need, need_batched)
        otherwise = jax.tree_util.tree_map(spread, otherwise, otherwise_batched)
        arguments = jax.tree_util.tree_map(spread, arguments, arguments_batched)
        chunk = max(1, -(-size // _CHUNKS))

        def body(carry: tuple[Any, Array]) -> tuple[Any, Array]:
            result, todo = carry
            games = jnp.nonzero(todo, size=chunk, fill_value=size)[0]
            picked = jax.tree_util.tree_map(lambda a: a[jnp.minimum(games, size - 1)], arguments)
            done = jax.vmap(function)(*picked)
            # Fill places (index ``size``) are dropped.
            result = jax.tree_util.tree_map(
                lambda old, new: old.at[games].set(new, mode="drop"), result, done
            )
            return result, todo.at[games].set(False, mode="drop")

        result, _ = jax.lax.while_loop(lambda carry: carry[1].any(), body, (otherwise, need))
        return result, jax.tree_util.tree_map(lambda _: True, result)

    return batched(need, otherwise, arguments)


_CHUNKS = 16
"""A batch rule of :func:`_only_where` handles a sixteenth of the batch at a time."""


def _form_piles(t: Tables, x: GameArrays, key: Array, *, reshuffles: bool = True) -> GameArrays:
    """``x`` with the round's dealer piles formed from the top of the
    game-round pile, reshuffling the discard pile where R3 says so (never
    with ``reshuffles=False``, for a new game's full pile)."""
    c, piles = t.cards_in_play, t.piles
    need = t.round_cards
    rules = t.game.rules
    d, m = x.deck_size, x.discard_size
    if reshuffles:
        # The game-round pile runs out once its d cards are laid, with none left.
        reshuffle = _reshuffle_due(d, 0, m, need, rules.reshuffle_mid_forming)
        # A uniform shuffle of the discard pile, made only where R3 asks for it.
        shuffled = _only_where(reshuffle, _fisher_yates, x.discard, x.discard, m, key)
    else:
        reshuffle, shuffled = jnp.bool_(False), x.discard
    j = jnp.arange(c)
    # The cards to lay, as one stack: the shuffled discard pile below, what
    # is left of the game-round pile on top (laid first).
    below = jnp.where(reshuffle, m, 0)
    stack = jnp.where(j < below, shuffled, x.deck[jnp.clip(j - below, 0, c - 1)])
    total = below + d
    laid_count = jnp.minimum(need, total)
    i = jnp.arange(need)
    laid_valid = i < laid_count
    laid = jnp.where(laid_valid, stack[jnp.clip(total - 1 - i, 0, c - 1)], 0)
    # Card i goes onto pile i % piles, in layer i // piles.
    new_piles = laid.reshape(PILE_SIZE, piles).T
    pile_size = laid_valid.reshape(PILE_SIZE, piles).sum(axis=0).astype(_I32)
    deck_size = total - laid_count
    return x.replace(
        deck=jnp.where(j < deck_size, stack, 0),
        deck_size=deck_size,
        discard=jnp.where(reshuffle, 0, x.discard),
        discard_size=jnp.where(reshuffle, 0, m),
        shuffles=x.shuffles + reshuffle.astype(_I32),
        piles=new_piles,
        pile_size=pile_size,
        pile_gone=jnp.zeros(piles, bool),
        phase=jnp.int32(TAKE_PILES),
    )


def _first_to_take(t: Tables, dealer: Array) -> Array:
    """The seat to decide first in a round: the dealer with two players (the
    dealer discards a pile first), else the seat after the dealer (R4), as
    :func:`troedler.core.rulebook.next_to_take` gives it."""
    return jnp.asarray(t.next_taker)[dealer, 0]


def init(t: Tables, key: Array, starting_dealer: int | None) -> State:
    """A new game set up from ``key`` (S1-S6), round 1's piles formed;
    observation and mask are left for the caller."""
    rules = t.game.rules
    n, v, c = t.n, t.villages, t.cards_in_play
    k_shuffle, k_dealer, k_form = jax.random.split(key, 3)
    cards = t.game.cards
    k_goods, k_piles = jax.random.split(k_shuffle)

    def shuffled_together(key: Array, *items: Array) -> tuple[Array, ...]:
        # Fisher-Yates shuffles of several arrays in one loop: the loop's
        # steps, not the cards, cost the time (see _fisher_yates).
        width = max(a.shape[0] for a in items)
        rows = jnp.stack([jnp.pad(a, (0, width - a.shape[0])) for a in items])
        sizes = jnp.asarray([a.shape[0] for a in items], _I32)
        mixed = jax.vmap(_fisher_yates)(rows, sizes, jax.random.split(key, len(items)))
        return tuple(mixed[i, : a.shape[0]] for i, a in enumerate(items))

    # S4: the 48 goods mixed and dealt onto the numbered villages in board
    # order; S5: the goods requests mixed, to choose those of the set-up pile.
    bag, requests = shuffled_together(
        k_goods,
        jnp.repeat(jnp.arange(GOODS, dtype=_I32), GOODS_PER_KIND),
        jnp.asarray(t.request_cards),
    )
    owner = np.repeat(np.arange(v), t.numbers)
    village_goods = jnp.zeros((v, GOODS), _I32).at[owner, bag].add(1)
    # S5: requests and feed for the face-up discard pile; S6: the rest face down.
    setup_pile, deck_cards = shuffled_together(
        k_piles,
        *rulebook.setup_piles(
            rules,
            cards,
            requests,
            jnp.asarray(t.route_cards),
            t.feed,
            t.extra,
            lambda card, count: jnp.full(count, card, _I32),
            lambda *piles: jnp.concatenate(piles),
        ),
    )
    if starting_dealer is None:
        dealer = jax.random.randint(k_dealer, (), 0, n, _I32)
    else:
        dealer = jnp.int32(starting_dealer)
    zero = jnp.int32(0)
    x = GameArrays(
        round=jnp.int32(1),
        dealer=dealer,
        phase=jnp.int32(TAKE_PILES),
        shuffles=jnp.int32(SETUP_SHUFFLES),
        deck=jnp.zeros(c, _I32).at[: deck_cards.shape[0]].set(deck_cards),
        deck_size=jnp.int32(deck_cards.shape[0]),
        discard=jnp.zeros(c, _I32).at[: setup_pile.shape[0]].set(setup_pile),
        discard_size=jnp.int32(setup_pile.shape[0]),
        piles=jnp.zeros((t.piles, PILE_SIZE), _I32),
        pile_size=jnp.zeros(t.piles, _I32),
        pile_gone=jnp.ones(t.piles, bool),
        village_goods=village_goods,
        cart=jnp.asarray(t.starts),
        goods=jnp.zeros((n, GOODS), _I32),
        hand=jnp.asarray(t.start_hands),
        value_pile=jnp.zeros((n, t.types), _I32),
        played=jnp.zeros(t.max_hand, _I32),
        played_size=zero,
        delivered=jnp.zeros(v, _I32),
        discards_due=zero,
        last_discard=jnp.int32(_NO_CARD),
    )
    # A new game's pile is full: the first forming never reshuffles.
    x = _form_piles(t, x, k_form, reshuffles=False)
    state = State(
        current_player=_first_to_take(t, dealer),
        observation=jnp.zeros(t.observation_size, jnp.float32),
        rewards=jnp.zeros(n, jnp.float32),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        legal_action_mask=jnp.zeros(t.num_actions, bool),
        _step_count=zero,
        _x=x,
        _game=t.game,
    )
    return state.replace(legal_action_mask=legal_mask(t, state))  # type: ignore[no-any-return]


# --- the legal mask ---------------------------------------------------------


def legal_mask(t: Tables, s: State) -> Array:
    """[num_actions] bool: the ids of the legal moves, as
    :meth:`troedler.encoding.action_ids.ActionLayout.legal_action_ids` gives them."""
    seat = jnp.maximum(s.current_player, 0)
    hand, cart, held = s._x.hand[seat], s._x.cart[seat], s._x.goods[seat]
    goods = s._x.village_goods
    here = goods[cart]
    taking = s._x.phase == TAKE_PILES
    turn = (s._x.phase == PLAY_TURNS) & (s._x.discards_due == 0)
    discarding = (s._x.phase == PLAY_TURNS) & (s._x.discards_due > 0)
    # Static: without two-player rules the dealer never discards, and no table is read.
    dealer_discards = (
        jnp.asarray(t.dealer_discards)[s._x.pile_gone.sum()]
        if t.dealer_discards.any()
        else jnp.bool_(False)
    )
    present = jnp.concatenate([~s._x.pile_gone, jnp.zeros(t.take_actions - t.piles, bool)])
    take = taking & ~dealer_discards & present
    discard_pile = taking & dealer_discards & present[: t.discard_pile_actions]

    def arrival(to: Array, take_good: Array) -> Array:
        return (take_good < 0) | (goods[to, jnp.maximum(take_good, 0)] > 0)

    kind, to = jnp.asarray(t.route_kind), jnp.asarray(t.route_to)
    adjacent = jnp.asarray(t.adjacent)
    card = jnp.asarray(t.route_card)
    route = (
        turn & (hand[card] > 0) & adjacent[kind, cart, to] & arrival(to, jnp.asarray(t.route_take))
    )
    extra = turn & (hand[t.extra] > 0) & (here > 0)
    feed = hand[t.feed]
    feed_to = jnp.asarray(t.feed_to)
    feed_move = (
        turn
        & (feed > 0)
        & adjacent[ANY_KIND, cart, feed_to]
        & arrival(feed_to, jnp.asarray(t.feed_take))
    )
    feed_extra = turn & (feed > 0) & (here > 0)
    request = jnp.asarray(t.deliver_type)
    deliver = (
        turn
        & (hand[request] > 0)
        & (here.sum() == 0)
        & (s._x.delivered[cart] == 0)
        & jnp.all(jnp.asarray(t.deliver_goods) <= held, axis=1)
        & (jnp.asarray(t.deliver_replaced) <= feed)
    )
    options = _discard_options(t, hand, s._x.discards_due, s._x.last_discard)
    discard_card = discarding & options[jnp.asarray(t.discard_type)]
    return jnp.concatenate(
        [take, discard_pile, route, extra, feed_move, feed_extra, deliver, turn[None], discard_card]
    )


# --- the step ----------------------------------------------------------------


def _rewards(t: Tables, value_pile: Array, goods: Array) -> Array:
    """Each seat's reward for a finished game: the winners share 1 (E2-E6)."""
    held = goods.sum(axis=1)
    suffered = _damage(value_pile[:, t.feed], held)
    points = _total_points(value_pile @ jnp.asarray(t.request_points), held)
    highest = suffered.max()
    # The other's damage matters only with two players: seat 1 - seat.
    lost = _totally_damaged(
        suffered,
        highest,
        (suffered == highest).sum(),
        suffered[::-1],
        t.game.rules.two_player_rules,
    )
    # Most points, then fewest goods held: no one holds more than every good.
    rank = jnp.where(lost, -(1 << 30), _standing(points, held))
    winners = (rank == rank.max()) & ~lost
    return winners.astype(jnp.float32) / winners.sum()


def step(t: Tables, s: State, action: Array, key: Array) -> State:
    """The game after the legal ``action`` of the seat to decide; chance from ``key``.

    pgx's :meth:`pgx.Env.step` calls this only for a game still running and
    handles illegal actions itself.
    """
    n, types = t.n, t.types
    rules = t.game.rules
    starts = jnp.asarray(t.section_starts)
    section = jnp.sum(action >= starts) - 1
    offset = action - starts[section]
    seat = jnp.maximum(s.current_player, 0)

    # --- taking or discarding a dealer pile (R4)
    is_take, is_discard_pile = section == _TAKE, section == _DISCARD_PILE
    pile = jnp.clip(offset, 0, t.piles - 1)
    layers = jnp.arange(PILE_SIZE)
    in_pile = layers < s._x.pile_size[pile]
    taken = _counts(s._x.piles[pile], in_pile, types)
    gone = s._x.pile_gone.at[pile].set(True)
    # Who takes after this pile goes: -1 once every player has taken one.
    gone_after = jnp.minimum(s._x.pile_gone.sum() + 1, t.piles)
    next_taker = jnp.asarray(t.next_taker)[s._x.dealer, gone_after]
    last_take = is_take & (next_taker < 0)
    to_discard_pile = jnp.where(
        is_discard_pile,
        jnp.arange(t.piles) == pile,
        last_take & ~gone,
    )
    pile_cards = s._x.piles.reshape(-1)
    pile_valid = (to_discard_pile[:, None] & (layers[None, :] < s._x.pile_size[:, None])).reshape(
        -1
    )

    # --- playing a card (T2-T5)
    is_route, is_extra, is_feed_move, is_feed_extra, is_deliver = (
        section == _ROUTE,
        section == _EXTRA,
        section == _FEED_MOVE,
        section == _FEED_EXTRA,
        section == _DELIVER,
    )
    playing = (section >= _ROUTE) & (section <= _DELIVER)
    route_i = jnp.clip(offset, 0, t.route_kind.shape[0] - 1)
    feed_i = jnp.clip(offset, 0, t.feed_to.shape[0] - 1)
    deliver_i = jnp.clip(offset, 0, t.deliver_type.shape[0] - 1)
    good_i = jnp.clip(offset, 0, GOODS - 1)
    card = jnp.select(
        [is_route, is_extra, is_deliver],
        [
            jnp.asarray(t.route_card)[route_i],
            jnp.int32(t.extra),
            jnp.asarray(t.deliver_type)[deliver_i],
        ],
        jnp.int32(t.feed),
    )
    cart = s._x.cart[seat]
    move_to = jnp.select(
        [is_route, is_feed_move],
        [jnp.asarray(t.route_to)[route_i], jnp.asarray(t.feed_to)[feed_i]],
        cart,
    )
    take_good = jnp.select(
        [is_route, is_feed_move, is_extra | is_feed_extra],
        [jnp.asarray(t.route_take)[route_i], jnp.asarray(t.feed_take)[feed_i], good_i],
        -1,
    )
    replaced = jnp.where(is_deliver, jnp.asarray(t.deliver_replaced)[deliver_i], 0)
    delivered_goods = jnp.where(is_deliver, jnp.asarray(t.deliver_goods)[deliver_i], 0)
    taking_good = playing & (take_good >= 0)
    take_row = _one_hot(take_good, GOODS) * taking_good
    spent = (_one_hot(card, types) + _one_hot(t.feed, types) * replaced) * playing
    played_items = jnp.concatenate([card[None], jnp.full(t.max_request, t.feed, _I32)])
    played_valid = playing & (jnp.arange(1 + t.max_request) < 1 + replaced)

    # --- ending the turn (T6, T7)
    is_end, is_discard_card = section == _END, section == _DISCARD_CARD
    hand_row = s._x.hand[seat] + jnp.where(is_take, taken, 0) - spent
    in_played = jnp.arange(t.max_hand) < s._x.played_size
    to_value_pile = s._x.played >= t.value_pile_from
    to_discard_played = is_end & in_played & ~to_value_pile
    to_value = _counts(s._x.played, is_end & in_played & to_value_pile, types)
    owed, overflow = _discards_owed(hand_row.sum(), hand_row[t.feed], rules.hand_limit)
    required, overflow = owed * is_end, overflow * is_end
    hand_row = hand_row - _one_hot(t.feed, types) * overflow
    value_row = s._x.value_pile[seat] + to_value + _one_hot(t.feed, types) * overflow

    # The discard pile: a dealer pile, or the routes and extra goods played.
    discard, discard_size = _append(s._x.discard, s._x.discard_size, pile_cards, pile_valid)
    discard, discard_size = _append(discard, discard_size, s._x.played, to_discard_played)

    # Discarding down to the hand limit: the chosen card, then every discard
    # that is the only one possible (actions._discard_down).
    due = jnp.where(is_discard_card, s._x.discards_due, required)
    first = jnp.where(
        is_discard_card,
        jnp.asarray(t.discard_type)[jnp.clip(offset, 0, t.discard_type.shape[0] - 1)],
        _NO_CARD,
    )

    def discard_one(i: int, carry: tuple[Array, ...]) -> tuple[Array, ...]:
        hand, due, last, active, pile, pile_size = carry
        options = _discard_options(t, hand, due, last)
        forced = (i == 0) & (first >= 0)
        chosen = jnp.where(forced, first, jnp.argmax(options))
        go = active & (due > 0) & (forced | (options.sum() == 1))
        hand = hand - _one_hot(chosen, types) * go
        pile, pile_size = _append(pile, pile_size, chosen[None], go[None])
        return hand, due - go, jnp.where(go, chosen, last), go, pile, pile_size

    hand_row, due, last, _active, discard, discard_size = jax.lax.fori_loop(
        0,
        t.max_hand + 1,
        discard_one,
        (hand_row, due, jnp.int32(_NO_CARD), is_end | is_discard_card, discard, discard_size),
    )
    turn_over = (is_end | is_discard_card) & (due == 0)
    waiting = (is_end | is_discard_card) & (due > 0)

    # --- the players, the villages, the turn
    hand = s._x.hand.at[seat].set(hand_row)
    value_pile = s._x.value_pile.at[seat].set(value_row)
    goods_row = s._x.goods[seat] + take_row - delivered_goods
    goods = s._x.goods.at[seat].set(goods_row)
    take_at = jnp.where(take_good >= 0, move_to, cart)
    village_goods = s._x.village_goods.at[take_at].add(-take_row)
    village_goods = village_goods.at[cart].add(delivered_goods)
    carts = s._x.cart.at[seat].set(move_to)
    delivered = jnp.where(
        is_deliver,
        s._x.delivered.at[cart].set(s._x.delivered.max() + 1),
        jnp.where(is_end | is_discard_card, 0, s._x.delivered),
    )
    played, played_size = _append(s._x.played, s._x.played_size, played_items, played_valid)
    clear_turn = is_end | is_discard_card
    played = jnp.where(clear_turn, 0, played)
    played_size = jnp.where(clear_turn, 0, played_size)

    # --- whose decision next, the end of the round and of the game (R4-R6, E1)
    following = (seat + 1) % n
    round_ends = turn_over & (following == s._x.dealer)
    fulfilled = jnp.where(jnp.asarray(t.is_request), value_pile, 0).sum(axis=1)
    game_over = round_ends & _ends_game(rules, fulfilled.max())
    next_round = round_ends & ~game_over
    dealer = s._x.dealer
    next_dealer = (dealer + 1) % n
    current = jnp.select(
        [
            (is_take & ~last_take) | is_discard_pile,
            is_take,
            turn_over & ~round_ends,
            game_over,
            next_round,
        ],
        [
            next_taker,
            dealer,
            following,
            0,
            _first_to_take(t, next_dealer),
        ],
        seat,
    )
    phase = jnp.select(
        [last_take, game_over], [jnp.int32(PLAY_TURNS), jnp.int32(GAME_OVER)], s._x.phase
    )
    leave_piles = last_take
    x = s._x.replace(
        phase=phase,
        discard=discard,
        discard_size=discard_size,
        piles=jnp.where(leave_piles, 0, s._x.piles),
        pile_size=jnp.where(leave_piles, 0, s._x.pile_size),
        pile_gone=jnp.where(
            leave_piles, True, jnp.where(is_take | is_discard_pile, gone, s._x.pile_gone)
        ),
        village_goods=village_goods,
        cart=carts,
        goods=goods,
        hand=hand,
        value_pile=value_pile,
        played=played,
        played_size=played_size,
        delivered=delivered,
        discards_due=jnp.where(waiting, due, 0),
        last_discard=jnp.where(waiting, last, _NO_CARD),
    )

    def next_round_of(x: GameArrays, key: Array) -> GameArrays:
        return _form_piles(t, x.replace(dealer=(x.dealer + 1) % n, round=x.round + 1), key)

    # Once a round: computed only for the games whose round ends.
    x = _only_where(next_round, next_round_of, x, x, key)
    rewards = jnp.where(game_over, _rewards(t, value_pile, goods), 0.0)
    truncated = (
        jnp.bool_(False)
        if t.game.max_rounds is None
        else ~game_over & (x.round > t.game.max_rounds)
    )
    s = s.replace(
        current_player=current, rewards=rewards, terminated=game_over, truncated=truncated, _x=x
    )
    return s.replace(legal_action_mask=legal_mask(t, s))  # type: ignore[no-any-return]


PROFILED: dict[str, Callable[[Tables, State, Array], Any]] = {
    "_form_piles": lambda t, s, key: _form_piles(t, s._x, key),
    "_fisher_yates": lambda t, s, key: _fisher_yates(s._x.discard, s._x.discard_size, key),
}
"""Parts of the step that benchmarks/jax_profile.py times on their own."""


# --- the observation tensor --------------------------------------------------


def observe(t: Tables, s: State, seat: Array) -> Array:
    """[observation size] float32: what ``seat`` knows, equal to
    :func:`troedler.encoding.tensors.state_tensor` of the same game."""
    n, v, types, piles = t.n, t.villages, t.types, t.piles
    perfect = t.game.recall == "perfect"
    seat = jnp.asarray(seat, _I32)

    def relative(other: Array) -> Array:
        return _one_hot((other - seat) % n, n)

    due = s._x.discards_due
    in_played = jnp.arange(t.max_hand) < s._x.played_size
    head = [
        _one_hot(seat, n),
        jnp.array([int(perfect)], _I32),
        s._x.round[None],
        _one_hot(s._x.phase, _PHASES),
        relative(s._x.dealer),
        relative(s.current_player) * (s._x.phase != GAME_OVER),
        due[None],
        _one_hot(s._x.last_discard, types) * ((due > 0) & (s._x.last_discard >= 0)),
        _counts(s._x.played, in_played, types),
        (s._x.delivered > 0).astype(_I32),
        s._x.village_goods.reshape(-1),
    ]
    order = (seat + jnp.arange(n)) % n
    known = (jnp.ones(n, bool) if perfect else order == seat).astype(_I32)[:, None]
    hands, values = s._x.hand[order], s._x.value_pile[order]
    feed_used = values[:, t.feed]
    rows = jnp.concatenate(
        [
            (jnp.arange(v)[None, :] == s._x.cart[order][:, None]).astype(_I32),
            s._x.goods[order],
            hands.sum(axis=1, keepdims=True),
            known,
            hands * known,
            values.sum(axis=1, keepdims=True),
            known,
            values * known,
            (values.sum(axis=1) - feed_used)[:, None] * known,
            (values @ jnp.asarray(t.request_points))[:, None] * known,
            feed_used[:, None] * known,
        ],
        axis=1,
    )
    present = (s._x.phase == TAKE_PILES) & ~s._x.pile_gone
    layers = jnp.arange(PILE_SIZE)
    if perfect:
        seen = layers[None, :] < s._x.pile_size[:, None]
        unknown_in_piles = jnp.zeros(piles, _I32)
    else:
        seen = layers[None, :] == s._x.pile_size[:, None] - 1
        unknown_in_piles = jnp.maximum(s._x.pile_size - 1, 0)
    pile_counts = jax.vmap(lambda cards, valid: _counts(cards, valid, types))(s._x.piles, seen)
    size = s._x.discard_size
    j = jnp.arange(t.cards_in_play)
    if perfect:
        hidden = _setup_pile_hidden(t.game.rules, s._x.shuffles, size)
        unknown = jnp.maximum(hidden - 1, 0)
        discard_seen = (j >= unknown) & (j < size)
    else:
        unknown = jnp.maximum(size - 1, 0)
        discard_seen = j == size - 1
    tail = [
        present.astype(_I32),
        unknown_in_piles * present,
        (pile_counts * present[:, None]).reshape(-1),
        size[None],
        unknown[None],
        _counts(s._x.discard, discard_seen, types),
        s._x.deck_size[None],
    ]
    return jnp.concatenate([*head, rows.reshape(-1), *tail]).astype(jnp.float32)
