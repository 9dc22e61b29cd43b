"""Differential walks: the JAX engine checked against the core, step by step.

:func:`walk` runs a batch of games of the JAX engine with random legal
actions and, at every step of every game, compares it with the core:

- ``to_state`` of the game is a valid core state (:func:`~troedler.check_invariants`);
- the legal mask equals :meth:`~troedler.encoding.action_ids.ActionLayout.legal_action_ids`
  of that state;
- the observation tensor of every seat, with table view and perfect recall,
  equals :func:`~troedler.encoding.tensors.state_tensor`;
- after the step, the game equals the core's :func:`~troedler.apply_move`
  of the same move. Chance is mirrored, not trusted: the core state is
  taken with explicit chance (:mod:`troedler.core.chance`), and where the core
  then waits for chance to form the next round's piles, it is given the
  cards the JAX step laid, one by one, with :func:`~troedler.core.chance.apply_chance`.
  The core decides where each card goes, when the discard pile is
  reshuffled (R3), and when forming stops; a card the game-round pile
  cannot hold is refused. Where no reshuffle happened, the seeded core
  state is compared too, with the order of the game-round pile;
- at the end, the rewards equal :func:`~troedler.adapters.pettingzoo.rewards_for`
  of :func:`~troedler.outcome`, and truncation comes at ``max_rounds``.

The JAX engine's set-up is mirrored the same way: a new game's goods,
set-up pile and first piles are dealt into :func:`~troedler.new_explicit_game`
as chance outcomes, so the core checks them against S4-S6 and R2.

Needs numpy and the PettingZoo extra's gymnasium (``troedler[rl]``) besides jax.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

import attrs
import jax
import jax.numpy as jnp
import numpy as np

from troedler.adapters.pettingzoo import rewards_for
from troedler.core.cards import sort_hand
from troedler.core.chance import apply_chance, new_explicit_game
from troedler.core.errors import TroedlerError
from troedler.core.goods import Good
from troedler.core.invariants import check_invariants
from troedler.core.legal import apply_move
from troedler.core.rulebook import PILE_SIZE, Rules
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Phase
from troedler.encoding.action_ids import action_layout
from troedler.encoding.tensors import state_tensor
from troedler.jax import engine
from troedler.jax.bridge import to_states
from troedler.jax.engine import State
from troedler.jax.env import TroedlerEnv, make
from troedler.jax.tables import Game, Tables

__all__ = ["Report", "walk"]


@attrs.frozen
class Report:
    """What a walk compared and what differed."""

    steps: int
    """Steps compared (one game, one action)."""
    games_started: int
    games_finished: int
    games_truncated: int
    mismatches: int
    kinds: dict[str, int]
    """Mismatches by what differed: ``state``, ``mask``, ``observation`` ..."""
    phases: dict[str, int]
    """Steps compared per phase of the game before the step."""
    events: dict[str, int]
    """Steps compared per kind of move, reshuffles and round ends."""
    first: str | None
    """The first mismatch, described."""


@functools.lru_cache(maxsize=16)
def _programs(
    players: int,
    recall: str,
    max_rounds: int | None,
    rules: Rules | None,
    changed: Callable[[Tables], Tables] | None,
) -> tuple[TroedlerEnv, Any, Any, Any]:
    """The environment and its compiled batch programs, kept across walks: the
    compilation takes far longer than a short walk."""
    env = make(players, recall=recall, max_rounds=max_rounds, rules=rules)
    if changed is not None:
        env.tables = changed(env.tables)
    # The walks run small batches, where the host's checks take the time:
    # compile for a short compilation rather than for the fastest code.
    fast = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}
    init = jax.jit(jax.vmap(env.init), compiler_options=fast)
    step = jax.jit(jax.vmap(env.step), compiler_options=fast)
    t = env.tables
    other = attrs.evolve(
        t, game=attrs.evolve(t.game, recall="perfect" if t.game.recall == "table" else "table")
    )

    def views(state: State) -> jax.Array:
        seats = jnp.arange(t.n)
        mine = jax.vmap(lambda seat: engine.observe(t, state, seat))(seats)
        theirs = jax.vmap(lambda seat: engine.observe(other, state, seat))(seats)
        return jnp.stack([mine, theirs])

    return env, init, step, jax.jit(jax.vmap(views), compiler_options=fast)


def _reset(state: State, fresh: State, done: np.ndarray[Any, Any]) -> State:
    flags = jnp.asarray(done)
    return jax.tree_util.tree_map(  # type: ignore[no-any-return]
        lambda new, old: jnp.where(flags.reshape((-1,) + (1,) * (old.ndim - 1)), new, old),
        fresh,
        state,
    )


def _twins(cores: list[GameState]) -> list[GameState]:
    """The states of ``cores`` as games with explicit chance keep them: the
    game-round pile in hand order (see :func:`troedler.jax.to_state`)."""
    if not cores:
        return []
    rules = attrs.evolve(cores[0].rules, explicit_chance=True)
    return [
        attrs.evolve(core, rules=rules, game_round_pile=sort_hand(core.game_round_pile))
        for core in cores
    ]


def _laid(state: GameState) -> list[Any]:
    """The cards of the dealer piles in the order they were laid (R2)."""
    piles = [pile or () for pile in state.dealer_piles]
    return [
        piles[j][layer]
        for layer in range(PILE_SIZE)
        for j in range(len(piles))
        if layer < len(piles[j])
    ]


def _mirror_setup(jax_state: GameState) -> GameState:
    """The core's explicit-chance set-up, dealt what the JAX engine dealt."""
    core = new_explicit_game(
        jax_state.num_players,
        starting_dealer=jax_state.dealer,
        board=jax_state.board,
        cards=jax_state.cards,
        rules=attrs.evolve(jax_state.rules, explicit_chance=True),
    )
    for goods in jax_state.village_goods:
        for good in Good:
            for _ in range(goods.counts[good]):
                core = apply_chance(core, good)
    for card in jax_state.discard_pile.cards:
        core = apply_chance(core, card)
    return _mirror_forming(core, jax_state)


def _mirror_forming(core: GameState, jax_state: GameState) -> GameState:
    if core.phase is Phase.FORM_PILES:
        for card in _laid(jax_state):
            core = apply_chance(core, card)
    return core


def walk(
    players: int,
    *,
    games: int = 16,
    steps: int = 200,
    seed: int = 0,
    recall: str = "table",
    max_rounds: int | None = 100,
    rules: Rules | None = None,
    changed: Callable[[Tables], Tables] | None = None,
    eager: bool = False,
) -> Report:
    """Random masked walks of ``games`` JAX games at once, ``steps`` steps each,
    every step compared with the core (see the module docstring).

    A finished or truncated game is replaced by a new one. With ``eager``,
    a seat fulfils a goods request whenever it can (and otherwise moves at
    random): random play then reaches the end of the game many times sooner.
    ``changed``, for a negative control, changes the JAX engine's tables (a
    module-level function of :class:`~troedler.jax.tables.Tables`, so that
    the compiled programs are kept for it): an engine with a rule broken
    that way must make the walk report mismatches.
    """
    env, init, step, views = _programs(players, recall, max_rounds, rules, changed)
    layout = action_layout(env.game.board, env.game.cards)
    deliver = layout.section("deliver")
    rng = np.random.default_rng(seed)
    key = jax.random.PRNGKey(seed)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, games))
    kinds: Counter[str] = Counter()
    phases: Counter[str] = Counter()
    events: Counter[str] = Counter()
    first: list[str] = []
    started, finished, truncations, compared = games, 0, 0, 0
    other_recall = "perfect" if recall == "table" else "table"

    def mismatch(kind: str, game: int, what: str) -> None:
        kinds[kind] += 1
        if not first:
            first.append(f"{kind} differs in game {game}: {what}")

    # The core sees the games under the true rules, whatever the JAX engine
    # was told (a broken engine's states carry its broken rules).
    true_game = Game(
        Rules.for_players(players) if rules is None else rules,
        env.game.board,
        env.game.cards,
        recall,
        max_rounds,
    )

    def core_states(batch: State) -> list[GameState]:
        return to_states(batch.replace(_game=true_game))

    def set_up(index: int, core: GameState, twin: GameState) -> None:
        try:
            dealt = _mirror_setup(core)
        except TroedlerError as error:
            mismatch("set-up", index, str(error))
        else:
            if dealt != twin:
                mismatch("set-up", index, "the set-up differs from the core's")

    cores = core_states(state)
    for i, (core, twin) in enumerate(zip(cores, _twins(cores), strict=True)):
        set_up(i, core, twin)
    for _ in range(steps):
        mask = np.asarray(state.legal_action_mask)
        seen = np.asarray(views(state))
        explicit = _twins(cores)
        actions = np.zeros(games, np.int32)
        for i, core in enumerate(cores):
            phases["discard to the hand limit" if core.turn.discards_due else core.phase.value] += 1
            try:
                check_invariants(core)
            except TroedlerError as error:
                mismatch("invariants", i, str(error))
            legal = layout.legal_action_ids(core)
            if tuple(int(a) for a in np.flatnonzero(mask[i])) != legal:
                mismatch("mask", i, f"{np.flatnonzero(mask[i])[:8]} vs {legal[:8]}")
            for seat in range(players):
                for r, name in ((0, recall), (1, other_recall)):
                    tensor = state_tensor(core, seat, name)  # type: ignore[arg-type]
                    if not np.array_equal(seen[i, r, seat], tensor):
                        mismatch("observation", i, f"seat {seat}, recall {name}")
            # The core's choice where the two disagree, so that the walk goes on.
            choices: tuple[int, ...] = legal or tuple(int(a) for a in np.flatnonzero(mask[i]))
            if eager:
                choices = tuple(a for a in choices if a in deliver) or choices
            actions[i] = choices[int(rng.integers(len(choices)))] if choices else 0
        key, sub = jax.random.split(key)
        after = step(state, jnp.asarray(actions), jax.random.split(sub, games))
        next_cores = core_states(after)
        next_explicit = _twins(next_cores)
        terminated = np.asarray(after.terminated)
        truncated = np.asarray(after.truncated)
        rewards = np.asarray(after.rewards)
        for i, core in enumerate(cores):
            compared += 1
            move = layout.move(int(actions[i]))
            events[type(move).__name__] += 1
            if next_cores[i].shuffles > core.shuffles:
                events["reshuffle (R3)"] += 1
            if next_cores[i].round > core.round:
                events["round end"] += 1
            try:
                expected = _mirror_forming(apply_move(explicit[i], move), next_cores[i])
            except TroedlerError as error:
                mismatch("step", i, f"{move}: {error}")
            else:
                if expected != next_explicit[i]:
                    mismatch("state", i, f"after {move}")
            if next_cores[i].shuffles == core.shuffles:
                # No reshuffle: the seeded core forms the piles from the same
                # game-round pile, in its order.
                try:
                    seeded = apply_move(core, move)
                except TroedlerError as error:
                    mismatch("step", i, f"{move}: {error}")
                else:
                    if seeded != next_cores[i]:
                        mismatch("state", i, f"after {move}, the seeded game")
            over = next_cores[i].is_over
            if bool(terminated[i]) != over:
                mismatch("end", i, f"terminated {terminated[i]}, core over {over}")
            if over:
                want = np.asarray(rewards_for(outcome(next_cores[i])), np.float32)
                if not np.array_equal(rewards[i], want):
                    mismatch("rewards", i, f"{rewards[i]} vs {want}")
            elif np.any(rewards[i]):
                mismatch("rewards", i, f"{rewards[i]} before the end")
            late = not over and max_rounds is not None and next_cores[i].round > max_rounds
            if bool(truncated[i]) != late:
                mismatch("truncation", i, f"round {next_cores[i].round}")
        done = terminated | truncated
        finished += int(terminated.sum())
        truncations += int(truncated.sum())
        if done.any():
            key, sub = jax.random.split(key)
            after = _reset(after, init(jax.random.split(sub, games)), done)
            started += int(done.sum())
            next_cores = core_states(after)
            twins = _twins(next_cores)
            for fresh in np.flatnonzero(done).tolist():
                set_up(fresh, next_cores[fresh], twins[fresh])
        state, cores = after, next_cores
    return Report(
        steps=compared,
        games_started=started,
        games_finished=finished,
        games_truncated=truncations,
        mismatches=sum(kinds.values()),
        kinds=dict(kinds),
        phases=dict(phases),
        events=dict(events),
        first=first[0] if first else None,
    )
