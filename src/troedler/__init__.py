"""troedler: a rules engine for *Die Trödler aus den Highlands*.

Immutable game states, pure actions, a legal-move generator and scoring.

>>> import troedler
>>> state = troedler.new_game(3, seed=42)
>>> move = troedler.legal_moves(state)[0]
>>> state = troedler.apply_move(state, move)
>>> state.current_player
2
"""

from troedler.core import actions as _actions
from troedler.core.board import Board, Route, RouteKind, Village, default_board, load_board
from troedler.core.cards import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    UNKNOWN,
    Card,
    CardCatalogue,
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
    StartingSet,
    default_cards,
    load_cards,
    parse_card,
)
from troedler.core.chance import (
    ChanceOutcome,
    apply_chance,
    chance_outcomes,
    chance_probabilities,
    form_piles,
    is_chance_node,
    new_explicit_game,
    new_game,
)
from troedler.core.errors import (
    ConfigurationError,
    FormatError,
    IllegalMoveError,
    NotationError,
    TroedlerError,
)
from troedler.core.goods import Good, Goods
from troedler.core.invariants import check_invariants
from troedler.core.legal import apply_move, is_legal, legal_moves, verify_move
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
from troedler.core.scoring import Outcome, Tally, outcome, score, tally
from troedler.core.state import GameState, Phase, PlayerState, Position, Recall, Turn
from troedler.io.notation import parse_move
from troedler.io.position_text import from_position_text, position_text
from troedler.io.records import GameRecord, replay
from troedler.io.state_json import state_from_json, state_to_json
from troedler.seat import Observation, determinize, observe

__version__ = "0.4.0"


def __getattr__(name: str) -> object:
    # The action functions of 0.3 (take_pile ...), for one release: apply_move makes a move.
    if name in _actions.DEPRECATED_ACTIONS:
        return _actions.deprecated_action(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXTRA_GOOD",
    "SPECIAL_FEED",
    "UNKNOWN",
    "Board",
    "Card",
    "CardCatalogue",
    "ChanceOutcome",
    "ConfigurationError",
    "DiscardCard",
    "DiscardPile",
    "EndTurn",
    "ExtraGoodCard",
    "FormatError",
    "GameRecord",
    "GameState",
    "Good",
    "Goods",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Observation",
    "Outcome",
    "Phase",
    "PlayExtraGood",
    "PlayFeedExtraGood",
    "PlayFeedMove",
    "PlayRequest",
    "PlayRoute",
    "PlayerState",
    "Position",
    "Recall",
    "RequestCard",
    "Route",
    "RouteCard",
    "RouteKind",
    "Rules",
    "SpecialFeedCard",
    "StartingSet",
    "TakePile",
    "Tally",
    "TroedlerError",
    "Turn",
    "Village",
    "apply_chance",
    "apply_move",
    "chance_outcomes",
    "chance_probabilities",
    "check_invariants",
    "default_board",
    "default_cards",
    "determinize",
    "form_piles",
    "from_position_text",
    "is_chance_node",
    "is_legal",
    "legal_moves",
    "load_board",
    "load_cards",
    "new_explicit_game",
    "new_game",
    "observe",
    "outcome",
    "parse_card",
    "parse_move",
    "position_text",
    "replay",
    "score",
    "state_from_json",
    "state_to_json",
    "tally",
    "verify_move",
]
