"""Damage assignments: who assigns how much combat damage to whom, in which damage step."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable

from .board import Board, ObjectId
from .errors import InvalidAssignmentError, key_path, shown


class Step(str, Enum):
    """Combat damage steps (510.4): the first-strike step exists only if a combatant has first or double strike."""

    FIRST_STRIKE = "first_strike"
    REGULAR = "regular"

    @property
    def label(self) -> str:
        """The step's name in text: "first-strike" or "regular"."""
        return self.value.replace("_", "-")


@dataclass(frozen=True, order=True)
class Assignment:
    """``source`` assigns ``amount`` combat damage to ``target`` in ``step`` (510.1)."""

    step: Step
    source: ObjectId
    target: ObjectId
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step.value, "source": self.source, "target": self.target, "amount": self.amount}


MAX_AMOUNT = 10**9
"""Bound on an amount of assigned damage (a board's powers and toughnesses are at most 10**6)."""

RESULT_FIELDS = frozenset({"status", "player", "objective", "outcome", "method", "warnings"})
"""Fields of a solve result besides ``assignments`` and ``dealing``: a result may be checked as it is."""


def parse_assignments(data: Any, board: Board) -> tuple[Assignment, ...]:
    """Read ``{"assignments": [...]}`` (or a bare list, or a whole solve result, whose ``dealing`` the
    checker reads too); raise InvalidAssignmentError naming the field.

    Unknown ids and malformed amounts are input errors; whether the assignment is legal is for the
    checker to say. Entries with the same step, source and target are added together.
    """
    items = data.get("assignments") if isinstance(data, dict) else data
    if isinstance(data, dict):
        if "assignments" not in data:
            raise InvalidAssignmentError("assignments", "missing; expected {\"assignments\": [...]}")
        extra = set(data) - {"assignments", "dealing"} - RESULT_FIELDS
        if extra:
            raise InvalidAssignmentError(key_path("", sorted(extra)[0]), "unknown field; expected assignments and "
                                         "dealing (or a solve result as it is)")
    if not isinstance(items, list):
        raise InvalidAssignmentError("assignments", "expected a list of {source, target, amount}")
    totals: dict[tuple[Step, str, str], int] = {}
    for i, item in enumerate(items):
        where = f"assignments[{i}]"
        if isinstance(item, Assignment):  # the API's records get the same checks as JSON entries
            item = {"step": item.step, "source": item.source, "target": item.target, "amount": item.amount}
        if not isinstance(item, dict):
            raise InvalidAssignmentError(where, "expected an object {\"source\", \"target\", \"amount\"}")
        extra = set(item) - {"step", "source", "target", "amount"}
        if extra:
            raise InvalidAssignmentError(key_path(where, sorted(extra)[0]), "unknown field")
        step, source, target = read_cell(item, where, board, "amount")
        amount = item["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise InvalidAssignmentError(f"{where}.amount", f"expected an integer, got {shown(amount)}")
        if amount < 0:
            raise InvalidAssignmentError(f"{where}.amount", "damage assigned cannot be negative")
        key = (step, source, target)
        totals[key] = totals.get(key, 0) + amount
        if totals[key] > MAX_AMOUNT:  # no creature assigns that much (and so large a number is not printed)
            earlier = f" with the earlier entries for {source} to {target}" if amount <= MAX_AMOUNT else ""
            raise InvalidAssignmentError(f"{where}.amount", f"beyond {MAX_AMOUNT:,}{earlier}: no creature "
                                         "assigns that much damage")
    return normalize(Assignment(s, src, tgt, n) for (s, src, tgt), n in totals.items())


def read_cell(item: dict[str, Any], where: str, board: Board, *required: str) -> tuple[Step, ObjectId, ObjectId]:
    """The step (default regular), source and target of one entry at ``where``, after checking that
    ``source``, ``target`` and the ``required`` fields are there; InvalidAssignmentError otherwise."""
    for key in ("source", "target", *required):
        if key not in item:
            raise InvalidAssignmentError(f"{where}.{key}", "field required")
    step_text = item.get("step", Step.REGULAR.value)
    try:
        step = Step(step_text)
    except (ValueError, TypeError):
        raise InvalidAssignmentError(f"{where}.step", f"{shown(step_text)} is not one of "
                                     f"{[s.value for s in Step]}") from None
    source, target = item["source"], item["target"]
    if not isinstance(source, str) or not board.is_creature(source):
        raise InvalidAssignmentError(f"{where}.source", f"{shown(source)} is not a creature on the board")
    if not isinstance(target, str) or board.get(target) is None:
        raise InvalidAssignmentError(f"{where}.target", f"unknown id {shown(target)}")
    return step, source, target


def normalize(assignments: Iterable[Assignment]) -> tuple[Assignment, ...]:
    """Drop zero amounts and sort by step, source, target: one canonical form for comparison."""
    order = {Step.FIRST_STRIKE: 0, Step.REGULAR: 1}
    return tuple(sorted((a for a in assignments if a.amount > 0),
                        key=lambda a: (order[a.step], a.source, a.target)))
