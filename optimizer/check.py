"""Independent legality checker for a player's (or everyone's) combat damage assignment.

It judges the whole assignment together (510.1e) against 510.1a-d and 702.19b-f, reports each
violation with its rule and the numbers involved, and, if legal, deals the damage (510.2) and
performs state-based actions. It shares no code with the CP-SAT encoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Iterable

from .assignment import Assignment, Step, parse_assignments
from .board import Board, Creature, Keyword, ObjectId
from .dealing import DealingChoice, banding_chooser, parse_dealing
from .errors import InputError, InvalidAssignmentError, InvalidBoardError
from .rules import (Outcome, Route, assignment_modes, assigns_in, damage_amount, damage_steps, first_step,
                    is_present, lethal_needed, recipients, resolve_combat, tramples)


@dataclass(frozen=True)
class Violation:
    """One broken rule: ``rule`` is the Comprehensive Rules number, ``source`` the creature at fault."""

    rule: str
    source: ObjectId
    message: str
    step: Step = Step.REGULAR

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "source": self.source, "message": self.message, "step": self.step.value}


@dataclass(frozen=True)
class CheckResult:
    """``legal`` is True iff there are no violations; ``outcome`` is set only when legal."""

    legal: bool
    violations: tuple[Violation, ...]
    outcome: Outcome | None

    def to_dict(self) -> dict[str, Any]:
        return {"legal": self.legal, "violations": [v.to_dict() for v in self.violations],
                "outcome": self.outcome.to_dict() if self.outcome else None}


def check(board: Board, assignments: Iterable[Assignment] | dict[str, Any] | list[Any],
          dealing: Iterable[DealingChoice] = ()) -> CheckResult:
    """Check a complete combat damage assignment (every creature that deals damage) on ``board``.

    ``dealing`` gives the affected players' choices for effects applied to the damage (616.1, 615.7),
    each for damage the assignment holds; without one (or None), a damage's effects apply in board
    order and shields prevent all they can.
    """
    if not isinstance(board, Board):
        raise InvalidBoardError("board", f"expected a Board (optimizer.load_board reads one), got "
                                f"{type(board).__name__}")
    dealing = _dealing_list(() if dealing is None else dealing)
    if isinstance(assignments, dict) and "dealing" in assignments:
        if dealing:
            raise InvalidAssignmentError("dealing", "given twice: in the assignment and as an argument")
        dealing = _dealing_list(() if assignments["dealing"] is None else assignments["dealing"])
    if isinstance(assignments, (dict, list)):
        parsed = parse_assignments(assignments, board)
    else:
        iterable = isinstance(assignments, Iterable) and not isinstance(assignments, (str, bytes))
        records = list(assignments) if iterable else []
        if not iterable or not all(isinstance(a, Assignment) for a in records):
            raise InvalidAssignmentError("assignments", "expected Assignment records, a list of {source, "
                                         "target, amount} or {\"assignments\": [...]}")
        parsed = parse_assignments(records, board)  # checked and added up as JSON entries are
    dealing = parse_dealing(dealing, board)
    assigned = {(a.step, a.source, a.target) for a in parsed}
    for i, choice in enumerate(dealing):
        if (choice.step, choice.source, choice.target) not in assigned:
            raise InvalidAssignmentError(f"dealing[{i}]", f"{choice.source} assigns no "
                                         f"{choice.step.label}-step damage to {choice.target}: "
                                         "a dealing choice orders the effects on damage assigned (616.1)")
    played: list[Any] = []
    try:
        found = violations(board, parsed, dealing, played)
        outcome = None if found else resolve_combat(board, parsed, dealing, played[0] if played else None)
    except ValueError as exc:  # a dealing choice that does not fit the damage (616.1, 615.7)
        if isinstance(exc, InputError):
            raise
        raise InvalidAssignmentError("dealing", str(exc)) from None
    return CheckResult(not found, tuple(found), outcome)


def _dealing_list(dealing: Any) -> list[Any]:
    """The dealing choices given as a list (a JSON array, or any iterable of records)."""
    if isinstance(dealing, (str, bytes, dict)) or not isinstance(dealing, Iterable):
        raise InvalidAssignmentError("dealing", "expected a list of dealing choices")
    return list(dealing)


def violations(board: Board, assignments: tuple[Assignment, ...],
               dealing: tuple[DealingChoice, ...] = (), played: list[Any] | None = None) -> list[Violation]:
    """Every rule the (normalized) assignment breaks, step by step (510.4); empty if it is legal.

    The regular step is judged on the board the first-strike step leaves behind, so a first-strike
    step that is illegal leaves the regular step unjudged. ``played`` receives that step's result.
    """
    first = tuple(a for a in assignments if a.step is Step.FIRST_STRIKE)
    regular = tuple(a for a in assignments if a.step is Step.REGULAR)
    if damage_steps(board) == (Step.REGULAR,):
        out = [Violation("510.4", a.source, f"{a.source} assigns damage in the first-strike step, but no "
                         "creature in combat has first strike or double strike, so there is only one "
                         "combat damage step", Step.FIRST_STRIKE) for a in first]
        return out + step_violations(board, Step.REGULAR, regular)
    out = step_violations(board, Step.FIRST_STRIKE, first)
    if out:
        return out
    outcome, later = first_step(board, assignments, dealing)
    if played is not None:
        played.append((outcome, later))
    if later is None:
        loser, rule = _game_over(outcome)
        return [Violation(rule, a.source, f"{a.source} assigns damage in the regular step, but {loser} lost in "
                          f"the first-strike step ({rule}), which ended the game (104.2a): there is no regular step")
                for a in regular]
    return step_violations(later, Step.REGULAR, regular)


def _game_over(outcome: Outcome) -> tuple[ObjectId, str]:
    """A player who lost in the first-strike step, ending the game, and the state-based action by
    which: 0 or less life (704.5a), 10 or more poison counters (704.5c), 21 combat damage from one
    commander (704.6c)."""
    pid, p = next((pid, p) for pid, p in outcome.players.items() if p.lost)  # the step ended the game
    return pid, "704.5a" if p.life <= 0 else "704.5c" if p.poison >= 10 else "704.6c"


def step_violations(board: Board, step: Step, assignments: tuple[Assignment, ...],
                    sources: Collection[ObjectId] | None = None) -> list[Violation]:
    """Violations of one damage step's assignment on the board as that step begins (with
    ``sources``: only those creatures' own violations, judged against the whole assignment)."""
    def violation(rule: str, source: ObjectId, message: str) -> Violation:
        return Violation(rule, source, message, step)

    out: list[Violation] = []
    by_source: dict[ObjectId, dict[ObjectId, int]] = {}
    for a in assignments:
        if not board.is_creature(a.source):
            out.append(violation("510.4", a.source, f"{a.source} left the battlefield in the first-strike "
                                 "step, so it assigns no damage in the regular step"))
            continue
        by_source.setdefault(a.source, {})[a.target] = a.amount
    for source_id in by_source:
        if sources is not None and source_id not in sources:
            continue
        source = board.creature(source_id)
        if not source.in_combat:
            out.append(violation("510.1", source_id, f"{source_id} is neither attacking nor blocking, "
                                 "so it assigns no combat damage"))
        elif not assigns_in(board, source, step):
            why = ("has neither first strike nor double strike" if step is Step.FIRST_STRIKE
                   else "has first strike without double strike and already dealt its damage")
            out.append(violation("510.4", source_id, f"{source_id} {why}, so it assigns no combat damage "
                                 f"in the {step.label} step"))

    incoming: dict[ObjectId, int] = {}
    deathtouch_in: dict[ObjectId, bool] = {}
    for a in assignments:
        if not board.is_creature(a.source):
            continue
        incoming[a.target] = incoming.get(a.target, 0) + a.amount
        if board.creature(a.source).has(Keyword.DEATHTOUCH):
            deathtouch_in[a.target] = True

    for creature in board.combatants:
        if (sources is not None and creature.id not in sources) or not assigns_in(board, creature, step):
            continue
        given = by_source.get(creature.id, {})
        found = [_creature_violations(board, step, creature, given, incoming, deathtouch_in, mode)
                 for mode in assignment_modes(board, creature)]
        if all(found):  # no mode makes it legal: report the normal mode's violations
            out += [Violation(rule, creature.id, message, step) for rule, message in found[0]]
    return out


def _creature_violations(board: Board, step: Step, creature: Creature, given: dict[ObjectId, int],
                         incoming: dict[ObjectId, int], deathtouch_in: dict[ObjectId, bool],
                         as_though_unblocked: bool) -> list[tuple[str, str]]:
    """(rule, message) for each way ``creature``'s assignment ``given`` breaks the rules in one mode."""
    out: list[tuple[str, str]] = []
    legal = recipients(board, creature, step, as_though_unblocked)
    amount = damage_amount(creature)
    what = "toughness" if creature.assigns_damage_by_toughness else "power"
    total = sum(given.values())
    for target in given:
        if target not in legal:
            out.append((_recipient_rule(board, creature, target),
                        f"{creature.id} cannot assign combat damage to {target}"
                        f"{_recipient_reason(board, creature, target)}"))
    expected = amount if legal else 0
    if total != expected:
        if not legal and amount <= 0:
            out.append(("510.1a", f"{creature.id} assigns {total} damage, but its {what} is {amount} (510.1a), "
                        "so it assigns none"))
        elif not legal:
            rule = _nothing_to_damage_rule(board, creature)
            out.append((rule, f"{creature.id} assigns {total} damage, but it has nothing to assign damage to "
                        f"({rule}), so it assigns none"))
        elif not given:  # a line of one side only, say: check judges the whole combat
            unnamed = ('; an entry without a step is regular-step damage' if step is Step.FIRST_STRIKE
                       else "")
            out.append(("510.1a", f"{creature.id} assigns combat damage equal to its {what} {amount} and "
                        f"must assign all of it, but the assignment gives none of its damage (every creature "
                        f"that deals damage needs its assignment, {creature.controller}'s as well{unnamed})"))
        else:
            out.append(("510.1a", f"{creature.id} assigns combat damage equal to its {what} {amount} and "
                        f"must assign all of it, but assigns {total}"))
    past = {t: n for t, n in given.items() if legal.get(t) in (Route.ATTACKED, Route.CONTROLLER)}
    if creature.is_attacking and not as_though_unblocked and tramples(creature) and any(past.values()):
        for blocker_id in board.blockers_of(creature.id):
            blocker = board.creature(blocker_id)
            need = lethal_needed(blocker, incoming.get(blocker_id, 0), deathtouch_in.get(blocker_id, False))
            if need > 0:
                have = incoming.get(blocker_id, 0)
                full = blocker.toughness - blocker.damage
                why = (f"toughness {blocker.toughness}, {blocker.damage} already marked; all creatures' assigned "
                       "damage counted")
                if creature.has(Keyword.DEATHTOUCH):  # any nonzero damage from it is lethal (702.2c)
                    message = (f"{blocker_id} is assigned no lethal damage: 1 damage from {creature.id} would be "
                               f"lethal ({creature.id} has deathtouch, 702.2c), and {blocker_id} has {have} of the "
                               f"{full} it needs otherwise ({why})")
                else:
                    message = f"{blocker_id} has {have} of the {full} lethal damage it needs ({why})"
                out.append(("702.19b", f"{creature.id} assigns {sum(past.values())} damage past its blockers, but "
                            + message))
    controller_damage = sum(n for t, n in given.items() if legal.get(t) is Route.CONTROLLER)
    target = creature.attacking
    if controller_damage and target is not None and is_present(board, target):
        loyalty = board.get(target).loyalty  # type: ignore[union-attr]
        have = incoming.get(target, 0)
        if have < loyalty:
            out.append(("702.19c", (
                f"{creature.id} assigns {controller_damage} damage to {board.controller_of(target)} past "
                f"planeswalker {target}, but {target} is assigned {have} of its {loyalty} loyalty")))
    return out


def _nothing_to_damage_rule(board: Board, creature: Creature) -> str:
    """Why a creature with damage to assign has no recipient: the creatures it blocks are gone
    (510.1d), its blockers are gone and a creature with banding gave the defending player its division
    (702.22j) or it has no trample (510.1c), what it attacks left combat (506.4c) or left the game
    with its controller (800.4a)."""
    if creature.is_blocking:
        return "510.1d"
    if banding_chooser(board, creature) != creature.controller:
        return "702.22j"  # the defending player divides it among its blockers, all gone
    if creature.blocked and not tramples(creature):
        return "510.1c"
    attacked = creature.attacking
    if attacked is not None and board.get(attacked) is not None \
            and not board.player(board.controller_of(attacked)).in_game:
        return "800.4a"
    return "506.4c"


def _recipient_rule(board: Board, creature: Any, target: ObjectId) -> str:
    if damage_amount(creature) <= 0:  # it assigns no combat damage at all
        return "510.1a"
    if creature.is_blocking:
        return "510.1d"
    if banding_chooser(board, creature) != creature.controller:
        return "702.22j"
    if creature.attacking is not None and board.is_player(target) and board.is_planeswalker(creature.attacking) \
            and board.controller_of(creature.attacking) == target:
        return "702.19f"
    if creature.blocked:
        return "510.1c"
    return "510.1b"


def _recipient_reason(board: Board, creature: Any, target: ObjectId) -> str:
    if damage_amount(creature) <= 0:
        return f": it assigns no combat damage ({damage_amount(creature)}, 510.1a)"
    if board.get(target) is None:  # only on the board the first-strike step leaves
        return (f": {target} is gone after the first-strike step (destroyed, or with a player who left the "
                "game; 510.4, 704.5, 800.4a)")
    if creature.is_blocking:
        return f": it blocks only {', '.join(creature.blocking)}"
    if banding_chooser(board, creature) != creature.controller:
        among = (": it is blocked by a creature with banding, so the defending player divides its damage "
                 f"among its blockers {', '.join(board.blockers_of(creature.id))}")
        if len(assignment_modes(board, creature)) > 1:
            among += (f", or, as though it weren't blocked, assigns all of it to {creature.attacking} and none "
                      "to its blockers, never a split")
        return among
    attacked = creature.attacking
    if target == attacked and not is_present(board, attacked):
        if board.is_player(attacked):
            return f": {attacked} has left the game (800.4a)"
        keeper = board.controller_of(attacked)
        if not board.player(keeper).in_game:
            return f": {attacked} left the game with its controller {keeper} (800.4a)"
        return f": {attacked} has left combat (506.4c)"
    if board.is_planeswalker(attacked) and board.is_player(target) and board.controller_of(attacked) == target:
        return f": it attacks planeswalker {attacked} and lacks trample over planeswalkers"
    if creature.blocked and target == attacked:
        if len(assignment_modes(board, creature)) > 1:
            return (f": it is blocked and has no trample; as though it weren't blocked it assigns all of its "
                    f"damage to {attacked} and none to its blockers, never a split")
        return ": it is blocked and has no trample"
    blockers = board.blockers_of(creature.id)
    return f": it {'is blocked by ' + ', '.join(blockers) if blockers else 'attacks ' + str(attacked)}"
