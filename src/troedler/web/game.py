"""One game in the browser: the person's seat, the bots in the others, the
record saved after every move, and what the page of that seat may be sent.

Nothing here knows about HTTP: :mod:`troedler.web.server` calls
:meth:`BrowserGame.view`, :meth:`~BrowserGame.move`,
:meth:`~BrowserGame.click` and :meth:`~BrowserGame.step`, each of which
answers a JSON-ready dictionary. What the page is sent is made from the
seat's :class:`~troedler.Observation` alone (and, once the game is over,
the final scoring), so another seat's hidden cards never leave the server.
"""

from __future__ import annotations

import os
import shlex
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from troedler.bots import Bot
from troedler.bots.base import bot_rng, check_players, limit_move_times, tell_game_over
from troedler.bots.failure import BotFailure, ask_bot, failure_message
from troedler.core.cards import Card, ExtraGoodCard, RequestCard, RouteCard, SpecialFeedCard
from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError, FormatError, IllegalMoveError, TroedlerError
from troedler.core.goods import Good
from troedler.core.legal import apply_move, legal_moves, verify_move
from troedler.core.moves import (
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
)
from troedler.core.rulebook import Rules
from troedler.core.scoring import outcome
from troedler.core.state import GameState, Phase
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord, replay
from troedler.seat import Observation, Recall, observe
from troedler.simulation.lineup import bot_from_text
from troedler.svg import board_picture
from troedler.svg.html import scoring_html
from troedler.svg.panel_html import card_html, panel_html

__all__ = ["BrowserGame", "Refused"]

MAX_SAVE_BYTES = 10_000_000
"""The largest record file :meth:`BrowserGame.resume` reads."""

_GROUPS = (
    ("take a dealer pile", (TakePile,)),
    ("discard a dealer pile", (DiscardPile,)),
    ("move along a route", (PlayRoute,)),
    ("move with special feed (costs damage)", (PlayFeedMove,)),
    ("take an extra good", (PlayExtraGood, PlayFeedExtraGood)),
    ("deliver a request", (PlayRequest,)),
    ("discard to the hand limit (T7)", (DiscardCard,)),
    ("end the turn", (EndTurn,)),
)


FEED_WARNING = "special feed costs 1 damage a card (E2)"
"""What the page says before a move that plays special feed is made."""


class Refused(TroedlerError):
    """A request the game refuses, and changes nothing for: stale, malformed or illegal.

    ``status`` is the HTTP status the server answers with; ``rule`` the
    rule id when the rules forbid the move; ``failure`` the description of
    a bot's failure (see :meth:`BrowserGame.step`) when that is why.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 400,
        rule: str | None = None,
        failure: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.rule = rule
        self.failure = failure


def _seated(texts: Sequence[str | None], players: int) -> list[Bot | None]:
    """The bots ``texts`` name (None: the person's seat), each refused now if
    it cannot play games of ``players``, not at its first move."""
    seated = [None if text is None else bot_from_text(text) for text in texts]
    for bot in seated:
        if bot is not None:
            check_players(bot, players)
    return seated


def _refusal(state: GameState, move: Move) -> str:
    """Why the rules refuse ``move`` in ``state``, in the engine's own words."""
    try:
        verify_move(state, move)
    except IllegalMoveError as error:
        return str(error)
    return ""


def _card_of(move: Move) -> Card | None:
    """The card a move plays or discards, to match a click on a card."""
    if isinstance(move, PlayRoute):
        return RouteCard(move.kind)
    if isinstance(move, PlayFeedMove | PlayFeedExtraGood):
        return SpecialFeedCard()
    if isinstance(move, PlayExtraGood):
        return ExtraGoodCard()
    if isinstance(move, PlayRequest):
        return move.request
    if isinstance(move, DiscardCard):
        return move.card
    return None


def _village_of(move: Move) -> str | None:
    return move.to if isinstance(move, PlayRoute | PlayFeedMove) else None


def _pile_of(move: Move) -> int | None:
    return move.pile if isinstance(move, TakePile | DiscardPile) else None


def _pile_cards(seen: Observation, move: Move) -> str:
    """The cards of the dealer pile ``move`` takes or discards, as faces to
    show on its button, so the choice is made where the piles are seen (R4)."""
    pile = _pile_of(move)
    if pile is None:
        return ""
    return "".join(card_html(card) for card in seen.dealer_piles[pile] or ())


def _feed_of(move: Move) -> int:
    """The special feed ``move`` plays: each costs a point of damage (E2)."""
    if isinstance(move, PlayFeedMove | PlayFeedExtraGood):
        return 1
    if isinstance(move, PlayRequest):
        return move.feed_cost
    return 0


def _head(move: Move) -> str:
    """The move without its choice of goods: one button of the page's list."""
    if isinstance(move, PlayRoute):
        return str(PlayRoute(move.kind, move.to))
    if isinstance(move, PlayFeedMove):
        return str(PlayFeedMove(move.to))
    if isinstance(move, PlayRequest):
        return f"deliver {move.request}"
    return str(move)


def _choice(move: Move, head: str | None = None) -> dict[str, Any]:
    """A move offered as a choice: its text, a label and the feed it plays.

    Among choices of one ``head`` the label is what tells them apart.
    """
    text = str(move)
    label = text
    if head is not None:
        if isinstance(move, PlayRoute | PlayFeedMove):
            label = "take no good" if move.take is None else f"take {move.take.name.lower()}"
        elif isinstance(move, PlayRequest):
            label = (
                "the goods it shows"
                if move.feed_cost == 0
                else f"with {move.delivered} ({move.feed_cost} feed)"
            )
    return {"text": text, "label": label, "feed": _feed_of(move)}


def _seat_texts(bots: Sequence[str], seat: int, players: int) -> list[str | None]:
    """Each seat's bot text (None at the person's seat): ``bots`` repeated in seat order."""
    texts: list[str | None] = []
    for s in range(players):
        texts.append(None if s == seat else bots[(s - (s > seat)) % len(bots)])
    return texts


class BrowserGame:
    """A game between a person at ``seat`` and ``bots`` (None at the person's seat).

    ``moves`` are those already made (a resumed game); the record is written
    to ``save`` after every move; ``texts`` are the bots as the command line
    names them (default: their names), for the way on after a bot fails. A
    bot that takes longer than ``move_time_limit`` seconds for a move fails.
    Its methods may be called from several threads: one lock keeps them in
    order.
    """

    def __init__(
        self,
        first: GameState,
        *,
        seat: int,
        bots: Sequence[Bot | None],
        names: Sequence[str],
        recall: Recall = "perfect",
        save: Path,
        moves: Sequence[Move] = (),
        texts: Sequence[str | None] | None = None,
        move_time_limit: float | None = None,
    ) -> None:
        self.first = first
        self.seat = seat
        self.bots = tuple(bots)
        self.names = tuple(names)
        self.texts = (
            tuple(texts)
            if texts is not None
            else tuple(None if bot is None else bot.name for bot in self.bots)
        )
        """How each seat's bot was named (``greedy``, ``exec:...``), to resume with."""
        self.failure: dict[str, Any] | None = None
        """The bot failure that stopped the game, once one has."""
        self.move_time_limit = move_time_limit
        if move_time_limit is not None:
            limit_move_times([bot for bot in self.bots if bot is not None], move_time_limit)
        self.recall: Recall = recall
        self.save_path = save
        self.moves: list[Move] = []
        self.log: list[tuple[int, int, str]] = []
        """(round, seat, move) of every move made."""
        self.states: list[GameState] = [first]
        self.rngs = [bot_rng(first.seed, s) for s in range(first.num_players)]
        self._lock = threading.Lock()
        for move in moves:
            self._apply(move)

    @classmethod
    def new(
        cls,
        players: int,
        seed: int,
        bots: Sequence[str],
        seat: int,
        *,
        recall: Recall = "perfect",
        name: str = "you",
        save: Path,
        move_time_limit: float | None = None,
    ) -> BrowserGame:
        """A new game; ``bots`` name the other seats' bots, repeated as needed."""
        Rules.for_players(players)  # S1: 2, 3 or 4 players, else ConfigurationError
        if not 0 <= seat < players:
            raise ConfigurationError(f"seat must be 0 to {players - 1}, not {seat}")
        if not bots:
            raise ConfigurationError("name at least one bot for the other seats")
        if save.exists():
            raise ConfigurationError(
                f"{save} exists already: resume that game, or choose another file to save to"
            )
        texts = _seat_texts(bots, seat, players)
        seated = _seated(texts, players)
        names = [name if bot is None else f"{bot.name} {s}" for s, bot in enumerate(seated)]
        game = cls(
            new_game(players, seed=seed),
            seat=seat,
            bots=seated,
            names=names,
            recall=recall,
            save=save,
            texts=texts,
            move_time_limit=move_time_limit,
        )
        game.save()
        return game

    @classmethod
    def resume(
        cls,
        path: Path,
        bots: Sequence[str],
        seat: int,
        *,
        recall: Recall = "perfect",
        move_time_limit: float | None = None,
    ) -> BrowserGame:
        """Go on with the unfinished game saved in ``path``, saving to it again.

        ``bots`` need not be those the game began with: a seat whose bot
        failed goes on with another.
        """
        try:
            size = path.stat().st_size
            if size > MAX_SAVE_BYTES:
                raise FormatError(str(path), "", f"{size} bytes, more than a saved game holds")
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigurationError(f"cannot read {path}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise FormatError(str(path), "", "not UTF-8 text, so not a saved game") from None
        record = GameRecord.from_json(text)
        states = replay(record)
        if states[-1].is_over:
            raise ConfigurationError(
                f"the game in {path} is over; watch it with: troedler replay {path}"
            )
        players = states[0].num_players
        if not 0 <= seat < players:
            raise ConfigurationError(f"seat must be 0 to {players - 1}, not {seat}")
        if not bots:
            raise ConfigurationError("name at least one bot for the other seats")
        texts = _seat_texts(bots, seat, players)
        seated = _seated(texts, players)
        moves = [parse_move(text, state) for text, state in zip(record.moves, states, strict=False)]
        game = cls(
            states[0],
            seat=seat,
            bots=seated,
            names=record.seats,
            recall=recall,
            save=path,
            moves=moves,
            texts=texts,
            move_time_limit=move_time_limit,
        )
        # The bots choose their recorded moves again, so that their chance (and
        # anything they keep) is where it was, as in the terminal game; what a
        # bot does wrong here is passed over: its moves are the record's.
        for number, state in enumerate(states[:-1]):
            mover = state.current_player
            bot = seated[mover] if mover is not None else None
            if bot is not None and mover is not None:
                ask_bot(bot, observe(state, mover), game.rngs[mover], move=number)
        return game

    @property
    def state(self) -> GameState:
        """The game as it stands."""
        return self.states[-1]

    @property
    def sequence(self) -> int:
        """How many moves have been made: each request names it, so a stale one is refused."""
        return len(self.moves)

    def _apply(self, move: Move) -> None:
        state = self.state
        mover = state.current_player
        assert mover is not None  # a game that is not over has a player to move
        self.states.append(apply_move(state, move))
        self.moves.append(move)
        self.log.append((state.round, mover, str(move)))

    def save(self) -> None:
        """Write the record of the game so far to the save file, whole or not at all."""
        record = GameRecord.of_game(self.first, self.moves, seats=self.names)
        part = self.save_path.with_name(self.save_path.name + ".part")
        part.write_text(record.to_json(), encoding="utf-8")
        os.replace(part, self.save_path)

    def _check(self, sequence: object) -> None:
        if not isinstance(sequence, int) or isinstance(sequence, bool):
            raise Refused("the request must give the move number it was made at, as 'seq'")
        if sequence != self.sequence:
            raise Refused(
                f"this request was made at move {sequence}, but the game is at move "
                f"{self.sequence}: nothing was changed; reload the page",
                status=409,
            )

    def _yours(self) -> Observation:
        seen = observe(self.state, self.seat, recall=self.recall)
        if self.state.is_over:
            raise Refused("the game is over", status=409)
        if self.state.current_player != self.seat:
            raise Refused(
                f"it is {self.names[self.state.current_player or 0]}'s turn, not yours", status=409
            )
        return seen

    def move(self, sequence: object, text: object) -> dict[str, Any]:
        """Make the person's move written ``text`` in notation."""
        with self._lock:
            self._check(sequence)
            seen = self._yours()
            if not isinstance(text, str) or not 0 < len(text) <= 200:
                raise Refused("the move must be text in notation, 1 to 200 characters")
            try:
                move = parse_move(text, self.state)
            except TroedlerError as error:
                raise Refused(f"that is not a move: {error}") from None
            if move not in legal_moves(seen):
                self._refuse(move)
            self._apply(move)
            self.save()
            return self._view()

    def _refuse(self, move: Move) -> None:
        try:
            apply_move(self.state, move)
        except IllegalMoveError as error:
            raise Refused(str(error), status=422, rule=error.rule) from None
        raise Refused(f"{move} is not allowed now", status=422)  # pragma: no cover

    def click(
        self, sequence: object, *, village: object = None, card: object = None, pile: object = None
    ) -> dict[str, Any]:
        """A click on a village, a card of the hand or a dealer pile.

        One legal move fits: it is made, unless it plays special feed, which
        costs damage. Several fit, or one that plays feed: they are answered
        as ``choices`` (with a ``warning`` where all play feed). None fits:
        refused with the rule that forbids it.
        """
        with self._lock:
            self._check(sequence)
            seen = self._yours()
            legal = legal_moves(seen)
            if isinstance(village, str) and village in {v.name for v in self.state.board.villages}:
                fits = [m for m in legal if _village_of(m) == village]
                tries = self._village_tries(village) if not fits else []
                what = village
            elif isinstance(card, str) and len(card) <= 40:
                hand = self.state.players[self.seat].hand
                held = [c for c in hand if str(c) == card]
                if not held:
                    raise Refused(f"you hold no card {card!r}", status=422)
                fits = [m for m in legal if str(_card_of(m)) == card]
                tries = self._card_tries(held[0])
                what = card
            elif isinstance(pile, int) and not isinstance(pile, bool) and 0 <= pile < 10:
                fits = [m for m in legal if _pile_of(m) == pile]
                tries = [TakePile(pile)]
                what = f"dealer pile {pile}"
            else:
                raise Refused("a click names a village, a card of your hand or a dealer pile")
            if len(fits) == 1 and not _feed_of(fits[0]):
                self._apply(fits[0])
                self.save()
                return self._view()
            if fits:
                heads = {_head(m) for m in fits}
                head = heads.pop() if len(heads) == 1 else None
                answer: dict[str, Any] = {
                    "choices": [_choice(m, head) for m in fits],
                    "about": head or what,
                }
                if all(_feed_of(m) for m in fits):
                    # Never played at once: the person may not have meant to spend feed.
                    answer["warning"] = FEED_WARNING
                return answer
            for attempt in tries:
                try:
                    apply_move(self.state, attempt)
                except IllegalMoveError as error:
                    raise Refused(str(error), status=422, rule=error.rule) from None
                except TroedlerError:
                    continue
            raise Refused(f"no move with {what} is allowed now", status=422)

    def _village_tries(self, village: str) -> list[Move]:
        """Moves to ``village`` to ask the rules about when none is legal.

        Refused at once when no route leads there: no card could take the cart.
        """
        state = self.state
        here = state.players[self.seat].cart
        kinds = [r.kind for r in state.board.routes if set(r.ends) == {here, village}]
        tries: list[Move] = [PlayRoute(kind, village) for kind in dict.fromkeys(kinds)]
        if state.phase is Phase.PLAY_TURNS and not state.turn.discards_due:
            if village == here:
                raise Refused(f"T2: your cart is in {village} already", status=422, rule="T2")
            if not kinds:
                raise Refused(f"T2: no route leads from {here} to {village}", status=422, rule="T2")
        return [*tries, PlayFeedMove(village)]

    def _card_tries(self, card: Card) -> list[Move]:
        """Moves with ``card`` to ask the rules about when none is legal."""
        if self.state.turn.discards_due:
            return [DiscardCard(card)]
        here = self.state.players[self.seat].cart
        neighbours = [
            b if a == here else a
            for a, b in (r.ends for r in self.state.board.routes)
            if here in (a, b)
        ] or [here]
        if isinstance(card, RouteCard):
            return [PlayRoute(card.kind, there) for there in neighbours]
        if isinstance(card, SpecialFeedCard):
            return [PlayFeedMove(there) for there in neighbours]
        if isinstance(card, RequestCard):
            return [PlayRequest.exact(card)]
        held = self.state.goods_in(here)
        return [PlayExtraGood(good) for good in list(held)[:1] or list(Good)[:1]]

    def step(self, sequence: object) -> dict[str, Any]:
        """One bot's move, when a bot is to move.

        A bot that fails (raises, answers a move that is not legal, or, a
        program bot, hangs or crashes) stops the game: refused with status
        502 and a ``failure``, whose ``line`` names the seat, the bot and
        what it did, and whose ``resume`` is the command that goes on with
        another bot in that seat. The save holds every move made before.
        """
        with self._lock:
            self._check(sequence)
            state = self.state
            mover = state.current_player
            if state.is_over or mover is None:
                raise Refused("the game is over", status=409)
            bot = self.bots[mover]
            if bot is None:
                raise Refused("it is your turn: no bot is to move", status=409)
            if self.failure is not None:
                raise Refused(self.failure["line"], status=502, failure=self.failure)
            seen = observe(state, mover)
            limit = self.move_time_limit
            answer = ask_bot(
                bot,
                seen,
                self.rngs[mover],
                move=self.sequence,
                move_time_limit=limit,
                stop_waiting=True,
            )
            if isinstance(answer, BotFailure):
                self.failure = self._failure(answer)
                raise Refused(self.failure["line"], status=502, failure=self.failure)
            self._apply(answer)
            self.save()
            return self._view()

    def _failure(self, failure: BotFailure) -> dict[str, Any]:
        """How a bot failed, the game saved so far, and the way on: the same
        words as the terminal game's, the command the browser's."""
        others = [
            "greedy" if s == failure.seat else text or "greedy"
            for s, text in enumerate(self.texts)
            if s != self.seat
        ]
        resume = shlex.join(
            [
                "troedler",
                "play",
                "--browser",
                "--resume",
                self.save_path.name,
                "--seat",
                str(self.seat),
                "--bots",
                ",".join(others),
            ]
        )
        made = "the 1 move" if self.sequence == 1 else f"all {self.sequence} moves"
        return {
            "seat": failure.seat,
            "bot": failure.bot,
            "kind": failure.kind,
            "move": failure.move,
            "round": failure.round,
            "detail": failure.detail,
            "line": failure_message(failure),
            "saved": f"The game is saved in {self.save_path.name} with {made} made before it; "
            f"to go on with another bot in seat {failure.seat}:",
            "resume": resume,
        }

    def close(self) -> None:
        """Tell the bots the game is over (a program bot's program ends)."""
        state = self.state
        if state.is_over:
            tell_game_over(self._seated_bots(), outcome(state), "finished")
        else:
            tell_game_over(self._seated_bots(), None, "stopped")

    def _seated_bots(self) -> list[Bot]:
        """The bots of the game's seats."""
        return [bot for bot in self.bots if bot is not None]

    def view(self) -> dict[str, Any]:
        """What the page shows now."""
        with self._lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        state = self.state
        seen = observe(state, self.seat, recall=self.recall)
        before = (
            observe(self.states[-2], self.seat, recall=self.recall)
            if len(self.states) > 1
            else None
        )
        last = self.moves[-1] if self.moves else None
        names = self.names
        picture = board_picture(seen, names=names, last_move=last, before=before, panel=False)
        mover = state.current_player
        caption = None
        if last is not None:
            caption = f"Last move: {names[self.log[-1][1]]}: {last}"
        yours = not seen.is_over and mover == self.seat
        # During the game the panel shows what the seat knows: the others'
        # hands with perfect recall, their sizes only from the table. After
        # it nothing is hidden any more.
        if state.is_over:
            panel = panel_html(state, names, caption=caption, hands=True)
        else:
            panel = panel_html(seen, names, caption=caption, hands=True, own_hand=False)
        view: dict[str, Any] = {
            "seq": self.sequence,
            "seat": self.seat,
            "board": picture.svg(),
            "boardWidth": picture.width,
            "panel": "".join(panel),
            "hand": self._hand(seen, yours),
            "yours": yours,
            "waiting": not seen.is_over and not yours and self.failure is None,
            "failure": self.failure,
            "mover": None if mover is None else names[mover],
            "groups": self._groups(seen) if yours else [],
            "discard": self._discard_note(seen) if yours else "",
            "log": [{"round": r, "seat": s, "who": names[s], "move": m} for r, s, m in self.log],
            "over": seen.is_over,
            "result": self._result() if seen.is_over else "",
            "seed": state.seed if seen.is_over else None,
            "save": self.save_path.name,  # the folder is the server's business, not the page's
        }
        return view

    def _hand(self, seen: Observation, yours: bool) -> list[dict[str, Any]]:
        hand = seen.players[self.seat].hand
        discarding = yours and seen.turn.discards_due > 0
        may_go = (
            {str(m.card) for m in legal_moves(seen) if isinstance(m, DiscardCard)}
            if discarding
            else set()
        )
        usable = {str(_card_of(m)) for m in legal_moves(seen)} if yours else set()
        cards = []
        said: set[str] = set()  # each reason once, under the first card it holds for
        for card in hand:
            name = str(card)
            why = ""
            if discarding and name not in may_go:
                why = _refusal(self.state, DiscardCard(card))
                why, said = ("" if why in said else why), said | {why}
            cards.append(
                {
                    "card": name,
                    "html": card_html(card),
                    "usable": name in usable,
                    "mayGo": name in may_go,
                    "why": why,
                }
            )
        return cards

    def _discard_note(self, seen: Observation) -> str:
        due = seen.turn.discards_due
        if not due:
            return ""
        more = "1 more card" if due == 1 else f"{due} more cards"
        note = (
            f"Hand limit (T7): discard {more}. Cards go in hand order, left to right: "
            "after a discard, only that card and those after it may go."
        )
        if seen.turn.last_discard is not None:
            note += f" You last discarded {seen.turn.last_discard}."
        return note

    def _groups(self, seen: Observation) -> list[dict[str, Any]]:
        groups = []
        for label, kinds in _GROUPS:
            members = [m for m in legal_moves(seen) if isinstance(m, kinds)]
            if members:
                heads: dict[str, list[Move]] = {}
                for m in members:
                    heads.setdefault(_head(m), []).append(m)
                groups.append(
                    {
                        "label": label,
                        "options": [
                            {
                                "label": head,
                                "choices": [_choice(m, head) for m in variants],
                                "feed": min(_feed_of(m) for m in variants),
                                "cards": _pile_cards(seen, variants[0]),
                            }
                            for head, variants in heads.items()
                        ],
                        "moves": [
                            {
                                "text": str(m),
                                "village": _village_of(m),
                                "card": None if _card_of(m) is None else str(_card_of(m)),
                                "pile": _pile_of(m),
                            }
                            for m in members
                        ],
                    }
                )
        return groups

    def _result(self) -> str:
        return scoring_html(self.names, self.state)
