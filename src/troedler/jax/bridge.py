"""Between the JAX engine and the core: one game of a batch as a
:class:`~troedler.GameState`, and a core state as a JAX one.

:func:`to_state` lets every tool of the core look at a game of the JAX
engine (pictures, text, records, :func:`~troedler.check_invariants`); the
tests use it to compare the two engines step by step.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs
import jax
import jax.numpy as jnp
import numpy as np

from troedler.core.cards import Card, sort_hand
from troedler.core.errors import ConfigurationError, quote
from troedler.core.goods import Goods
from troedler.core.invariants import problems
from troedler.core.limits import check_seed
from troedler.core.pile import Pile
from troedler.core.rulebook import PILE_SIZE
from troedler.core.state import GameState, Phase, PlayerState, Turn
from troedler.jax import engine
from troedler.jax.engine import GameArrays, State
from troedler.jax.tables import Game, Tables, tables

__all__ = ["from_state", "to_state", "to_states"]

_PHASES = tuple(Phase)


def _game_of(state: object) -> Game:
    game = getattr(state, "_game", None)
    if not isinstance(state, State) or not isinstance(game, Game):
        raise ConfigurationError(f"expected a troedler.jax State, got {quote(state)}")
    return game


def to_state(
    state: State, index: int | None = None, *, seed: int = 0, explicit: bool = False
) -> GameState:
    """Game ``index`` of the batch ``state`` (or the one game of an unbatched
    state) as a core :class:`~troedler.GameState`.

    The JAX engine draws its chance from keys, not from a seed: ``seed`` is
    the seed the core state carries, which decides only how a core game
    continued from it would reshuffle. With ``explicit=True`` the state is
    one of a game with explicit chance (:mod:`troedler.core.chance`): the same,
    with the game-round pile in hand order, as such a game keeps it.
    """
    game = _game_of(state)
    t = tables(game)
    check_seed(seed)
    batched = np.ndim(state.current_player) == 1
    if batched != (index is not None):
        raise ConfigurationError(
            "index: give the game's index for a batch of games, and none for one game"
        )
    if batched:
        size = int(np.shape(state.current_player)[0])
        if type(index) is not int or not 0 <= index < size:
            raise ConfigurationError(f"index must be 0 to {size - 1}, not {quote(index)}")
    fields = _fields(state)
    one = {name: value if index is None else value[index] for name, value in fields.items()}
    return _core_state(t, one, seed, explicit)


def to_states(state: State, *, seed: int = 0, explicit: bool = False) -> list[GameState]:
    """Every game of the batch ``state`` as a core state (see :func:`to_state`):
    the arrays are copied from the device once for the whole batch."""
    game = _game_of(state)
    check_seed(seed)
    if np.ndim(state.current_player) != 1:
        raise ConfigurationError("to_states needs a batch of games; use to_state for one")
    fields = _fields(state)
    t = tables(game)
    return [
        _core_state(t, {name: value[i] for name, value in fields.items()}, seed, explicit)
        for i in range(int(np.shape(state.current_player)[0]))
    ]


_GAME_FIELDS = (
    "current_player", "round", "dealer", "phase", "shuffles", "deck", "deck_size", "discard",
    "discard_size", "piles", "pile_size", "pile_gone", "village_goods", "cart", "goods", "hand",
    "value_pile", "played", "played_size", "delivered", "discards_due", "last_discard",
)  # fmt: skip


def _fields(state: State) -> dict[str, Any]:
    """The game's arrays as nested Python lists: far faster to read one by one."""
    parts = {"current_player": state.current_player} | {
        name: getattr(state._x, name) for name in _GAME_FIELDS[1:]
    }
    arrays = jax.device_get(tuple(parts[name] for name in _GAME_FIELDS))
    return {name: np.asarray(a).tolist() for name, a in zip(_GAME_FIELDS, arrays, strict=True)}


def _core_state(t: Tables, s: dict[str, Any], seed: int, explicit: bool) -> GameState:
    game = t.game
    board, kinds = game.board, t.card_list
    names = [village.name for village in board.villages]

    def stack(cards: list[int], size: int) -> tuple[Card, ...]:
        return tuple([kinds[k] for k in cards[:size]])

    def counted(counts: list[int]) -> tuple[Card, ...]:
        # Card types are numbered in hand order: counting out gives a sorted hand.
        return tuple([kinds[k] for k, number in enumerate(counts) for _ in range(number)])

    phase = _PHASES[s["phase"]]
    current = s["current_player"]
    deck = stack(s["deck"], s["deck_size"])
    rules = attrs.evolve(game.rules, explicit_chance=True) if explicit else game.rules
    if phase is Phase.TAKE_PILES:
        dealer_piles: tuple[tuple[Card, ...] | None, ...] = tuple(
            None if gone else stack(cards, size)
            for cards, size, gone in zip(s["piles"], s["pile_size"], s["pile_gone"], strict=True)
        )
    else:
        dealer_piles = ()
    players = tuple(
        PlayerState(
            cart=names[cart],
            hand=counted(hand),
            goods=Goods.of_counts(goods),
            value_pile=counted(value_pile),
        )
        for cart, hand, goods, value_pile in zip(
            s["cart"], s["hand"], s["goods"], s["value_pile"], strict=True
        )
    )
    order = sorted((k, v) for v, k in enumerate(s["delivered"]) if k > 0)
    due = s["discards_due"]
    last = s["last_discard"]
    return GameState(
        rules=rules,
        board=board,
        cards=game.cards,
        seed=seed,
        shuffles=s["shuffles"],
        round=s["round"],
        dealer=s["dealer"],
        phase=phase,
        current_player=None if phase is Phase.GAME_OVER else current,
        game_round_pile=sort_hand(deck) if explicit else deck,
        dealer_piles=dealer_piles,
        discard_pile=Pile.of(stack(s["discard"], s["discard_size"])),
        village_goods=tuple([Goods.of_counts(row) for row in s["village_goods"]]),
        players=players,
        turn=Turn(
            played=stack(s["played"], s["played_size"]),
            delivered_to=tuple([names[v] for _k, v in order]),
            discards_due=due,
            last_discard=kinds[last] if due and last >= 0 else None,
        ),
    )


def from_state(state: GameState, *, recall: str = "table", max_rounds: int | None = 100) -> State:
    """The JAX state of the core ``state``: one game, unbatched.

    ``recall`` and ``max_rounds`` are those of the environment that is to go
    on with it (see :func:`troedler.jax.make`). A state of a game with
    explicit chance is taken as its seeded twin; a state waiting for chance
    (set-up, forming) has no JAX twin: the JAX engine never stops there.
    :class:`~troedler.ConfigurationError` for those and for states no game
    can reach.
    """
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {quote(state)}")
    found = problems(state)
    if found:
        raise ConfigurationError(f"not a state a game can reach: {found[0]}")
    if state.phase.is_chance:
        raise ConfigurationError(
            f"the JAX engine draws chance inside its step; a state in the "
            f"{state.phase.value} phase has no JAX twin"
        )
    rules = attrs.evolve(state.rules, explicit_chance=False)
    t = tables(Game(rules, state.board, state.cards, recall, max_rounds))
    kind = {card.sort_key: i for i, card in enumerate(t.card_list)}

    def stack(cards: tuple[Card, ...], size: int) -> np.ndarray[Any, Any]:
        array = np.zeros(size, np.int32)
        array[: len(cards)] = [kind[card.sort_key] for card in cards]
        return array

    def counts(cards: tuple[Card, ...]) -> np.ndarray[Any, Any]:
        array = np.zeros(t.types, np.int32)
        for card in cards:
            array[kind[card.sort_key]] += 1
        return array

    taking = state.phase is Phase.TAKE_PILES
    piles = np.zeros((t.piles, PILE_SIZE), np.int32)
    pile_size = np.zeros(t.piles, np.int32)
    pile_gone = np.ones(t.piles, bool)
    if taking:
        for j, pile in enumerate(state.dealer_piles):
            if pile is not None:
                piles[j] = stack(pile, PILE_SIZE)
                pile_size[j] = len(pile)
                pile_gone[j] = False
    delivered = np.zeros(t.villages, np.int32)
    for k, village in enumerate(state.turn.delivered_to):
        delivered[state.board.index(village)] = k + 1
    turn = state.turn
    over = state.phase is Phase.GAME_OVER
    i32 = jnp.int32
    s = State(
        current_player=i32(state.current_player or 0),
        observation=jnp.zeros(t.observation_size, jnp.float32),
        rewards=jnp.zeros(t.n, jnp.float32),
        terminated=jnp.bool_(over),
        truncated=jnp.bool_(not over and max_rounds is not None and state.round > max_rounds),
        legal_action_mask=jnp.zeros(t.num_actions, bool),
        _step_count=i32(0),
        _x=GameArrays(
            round=i32(state.round),
            dealer=i32(state.dealer),
            phase=i32(_PHASES.index(state.phase)),
            shuffles=i32(state.shuffles),
            deck=jnp.asarray(stack(state.game_round_pile, t.cards_in_play)),
            deck_size=i32(len(state.game_round_pile)),
            discard=jnp.asarray(stack(state.discard_pile.cards, t.cards_in_play)),
            discard_size=i32(len(state.discard_pile)),
            piles=jnp.asarray(piles),
            pile_size=jnp.asarray(pile_size),
            pile_gone=jnp.asarray(pile_gone),
            village_goods=jnp.asarray([g.counts for g in state.village_goods], jnp.int32),
            cart=jnp.asarray([state.board.index(p.cart) for p in state.players], jnp.int32),
            goods=jnp.asarray([p.goods.counts for p in state.players], jnp.int32),
            hand=jnp.asarray(np.stack([counts(p.hand) for p in state.players])),
            value_pile=jnp.asarray(np.stack([counts(p.value_pile) for p in state.players])),
            played=jnp.asarray(stack(turn.played, t.max_hand)),
            played_size=i32(len(turn.played)),
            delivered=jnp.asarray(delivered),
            discards_due=i32(turn.discards_due),
            last_discard=i32(-1 if turn.last_discard is None else kind[turn.last_discard.sort_key]),
        ),
        _game=t.game,
    )
    return _finished(t)(s, jnp.int32(state.current_player or 0))  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=16)
def _finished(t: Tables) -> Any:
    """A compiled function that fills in a state's mask and observation."""

    def finish(s: State, seat: jax.Array) -> State:
        mask = engine.legal_mask(t, s)
        # pgx's convention for a finished game: every action "legal".
        mask = jnp.where(s._x.phase == engine.GAME_OVER, True, mask)
        return s.replace(  # type: ignore[no-any-return]
            legal_action_mask=mask, observation=engine.observe(t, s, seat)
        )

    return jax.jit(finish)
