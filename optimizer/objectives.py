"""What the deciding player wants: objective names, their definitions, and their values on an outcome.

All objectives are maximized for the deciding player and compared lexicographically in the order
given. Values are computed from an :class:`~optimizer.rules.Outcome`, independently of the solver.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .board import Board, ObjectId
from .errors import InvalidRequestError, shown
from .rules import Outcome

OBJECTIVES: dict[str, str] = {
    "kills": "opponents' creatures in combat that leave the battlefield after combat damage (destroyed, "
             "or with their controller who lost a multiplayer game)",
    "survivors": "the deciding player's creatures in combat still on the battlefield afterwards",
    "value": "value of opponents' creatures in combat that leave minus value of the deciding player's that leave",
    "player_damage": "combat damage dealt to opponents by sources without infect (the life they lose)",
    "poison": "poison counters opponents get (infect damage and toxic)",
    "loyalty": "loyalty counters removed from opponents' planeswalkers (at most what they had)",
    "defense": "defense counters removed from battles opponents protect (at most what they had)",
    "life_gained": "life the deciding player gains (lifelink)",
    "lethal": "opponents who lose the game (0 or less life, 10 poison, 21 commander damage)",
    "alive": "1 if the deciding player is still in the game after combat damage, 0 if it lost (only a "
             "defending player can lose in combat)",
}

DEFAULT_OBJECTIVE: tuple[str, ...] = (
    "alive", "lethal", "value", "player_damage", "poison", "loyalty", "defense", "life_gained",
)
"""Do not lose (for a defending player), win, then trade creatures by value, then damage: opponents'
life, poison, planeswalkers, battles."""


def parse_objective(objective: str | Sequence[str] | None) -> tuple[str, ...]:
    """Objective names from a list or a comma-separated string; None gives :data:`DEFAULT_OBJECTIVE`."""
    if objective is None:
        return DEFAULT_OBJECTIVE
    if isinstance(objective, str):
        names = [n.strip() for n in objective.split(",")]
    elif isinstance(objective, (list, tuple)):
        names = list(objective)
    else:
        raise InvalidRequestError("objective", "expected a list of objective names or a comma-separated "
                                  f"string, got {type(objective).__name__}")
    if not names or any(not isinstance(n, str) or not n for n in names):
        raise InvalidRequestError("objective", "expected a non-empty list of objective names")
    for name in names:
        if name not in OBJECTIVES:
            raise InvalidRequestError("objective", f"unknown objective {shown(name)}; "
                                      f"choose from {', '.join(OBJECTIVES)}")
    if len(set(names)) != len(names):
        raise InvalidRequestError("objective", "an objective is listed twice")
    return tuple(names)


def varying(names: Sequence[str], board: Board, decider: ObjectId) -> tuple[str, ...]:
    """``names`` without those that cannot vary because the active player is dealt no combat damage
    (510.1b-d): ``alive`` when it decides (always 1), ``lethal`` when it is the decider's only opponent
    (always 0). For shorter lists of objectives that still say something."""
    active = decider == board.active_player
    kept = tuple(n for n in names if not (n == "alive" and active)
                 and not (n == "lethal" and not active and len(board.players) == 2))
    return kept or tuple(names)


def shorter_objectives(names: Sequence[str], board: Board, decider: ObjectId) -> tuple[str, ...]:
    """The list of objectives a refusal for too wide ranges suggests: the first two that can vary, or
    the first alone if there are at most two."""
    kept = varying(names, board, decider)
    return kept[:2] if len(kept) > 2 else kept[:1]


def parse_player(board: Board, player: str | None) -> ObjectId:
    """The deciding player: ``player`` if it is on the board, else the active player."""
    if player is None:
        return board.active_player
    if not isinstance(player, str) or not board.is_player(player):
        raise InvalidRequestError("player", f"unknown player {shown(player)}; players are "
                                  f"{', '.join(p.id for p in board.players)}")
    return player


def objective_values(board: Board, outcome: Outcome, player: ObjectId,
                     objective: Iterable[str]) -> dict[str, int]:
    """The value of each named objective for ``player`` on ``outcome``."""
    return {name: _VALUE[name](board, outcome, player) for name in objective}


def left_battlefield(board: Board, outcome: Outcome, creature_id: ObjectId) -> bool:
    """Destroyed (704.5), or gone with its controller, who lost a game that goes on (800.4a: with three
    or more players; a two-player game simply ends)."""
    c = board.creature(creature_id)
    return outcome.creatures[c.id].destroyed or (len(board.players) >= 3 and outcome.players[c.controller].lost)


def _kills(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum(1 for c in board.combatants if c.controller != player and left_battlefield(board, outcome, c.id))


def _survivors(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum(1 for c in board.combatants if c.controller == player and not left_battlefield(board, outcome, c.id))


def _value(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum((c.value if c.controller != player else -c.value)
               for c in board.combatants if left_battlefield(board, outcome, c.id))


def _player_damage(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum(p.damage_taken for pid, p in outcome.players.items() if pid != player)


def _poison(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum(outcome.players[p.id].poison - p.poison for p in board.players if p.id != player)


def _loyalty(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum(w.loyalty - outcome.planeswalkers[w.id] for w in board.planeswalkers if w.controller != player)


def _defense(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return sum(b.defense - outcome.battles[b.id] for b in board.battles if b.protector != player)


def _life_gained(board: Board, outcome: Outcome, player: ObjectId) -> int:
    return outcome.players[player].life_gained


def _lethal(board: Board, outcome: Outcome, player: ObjectId) -> int:
    """Opponents who lost (704.5a, 704.5c, 704.6c)."""
    return sum(1 for pid, p in outcome.players.items() if pid != player and p.lost)


def _alive(board: Board, outcome: Outcome, player: ObjectId) -> int:
    """1 unless the deciding player lost (704.5a, 704.5c, 704.6c); the active player is dealt no
    combat damage (510.1b-d), so only a defending player can lose."""
    return 0 if outcome.players[player].lost else 1


_VALUE = {
    "kills": _kills, "survivors": _survivors, "value": _value, "player_damage": _player_damage,
    "poison": _poison, "loyalty": _loyalty, "defense": _defense, "life_gained": _life_gained,
    "lethal": _lethal, "alive": _alive,
}
assert set(_VALUE) == set(OBJECTIVES)
