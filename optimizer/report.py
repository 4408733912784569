"""Human-readable rendering of results and check verdicts, with the rules that explain them."""

from __future__ import annotations

from typing import Iterable

from .assignment import Assignment, Step
from .board import Board, EffectKind, ObjectId
from .check import CheckResult
from .dealing import DealingChoice, applying_effects, banding_chooser, cell_effects, deal, protection_applies
from .errors import printable
from .result import SolveResult
from .rules import Outcome, damage_steps, first_step, step_choices


def _label(board: Board, object_id: ObjectId) -> str:
    obj = board.get(object_id)
    name = getattr(obj, "name", None)
    return f"{object_id} ({printable(name)})" if name else object_id  # a line break would split the table


def why_destroyed(board: Board, outcome: Outcome, object_id: ObjectId) -> str:
    """The state-based action that removed ``object_id`` (704.5)."""
    if board.is_planeswalker(object_id):
        return "0 loyalty (704.5i)"
    if board.is_battle(object_id):
        return "0 defense (704.5v)"
    c = board.creature(object_id)
    o = outcome.creatures[object_id]
    toughness = c.toughness - o.minus_counters
    if toughness <= 0:
        return f"toughness {toughness} after {_counters(o.minus_counters)} (704.5f)"
    if o.damage >= toughness:
        return f"{o.damage} damage marked, toughness {toughness} (704.5g)"
    return "dealt damage by a deathtouch source (704.5h)"


def _counters(n: int) -> str:
    return f"{n} -1/-1 counter{'' if n == 1 else 's'}"


def why_lost(board: Board, outcome: Outcome, player_id: ObjectId) -> str:
    p = outcome.players[player_id]
    reasons = []
    if p.life <= 0:
        reasons.append(f"{p.life} life (704.5a)")
    if p.poison >= 10:
        reasons.append(f"{p.poison} poison counters (704.5c)")
    reasons += [f"{n} combat damage from commander {c} (704.6c)"
                for c, n in p.commander_damage.items() if n >= 21]
    return ", ".join(reasons)


def step_boards(board: Board, assignments: tuple[Assignment, ...], dealing: tuple[DealingChoice, ...] = ()
                ) -> list[tuple[Step, Board]]:
    """Each damage step of a legal line with the board it begins with (510.4); none after a
    first-strike step that ended the game (104.2a)."""
    out: list[tuple[Step, Board]] = []
    current: Board | None = board
    for step in damage_steps(board):
        if current is None:
            break
        out.append((step, current))
        if step is Step.FIRST_STRIKE:
            current = first_step(current, assignments, dealing)[1]
    return out


def dealt_amounts(steps: list[tuple[Step, Board]], assignments: tuple[Assignment, ...],
                  dealing: tuple[DealingChoice, ...] = ()) -> dict[tuple[Step, ObjectId, ObjectId], tuple[int, str]]:
    """Damage dealt for each assignment in each of the ``steps`` (:func:`step_boards`), with the rules
    of the effects that changed it; assumes a legal assignment."""
    out: dict[tuple[Step, ObjectId, ObjectId], tuple[int, str]] = {}
    for step, current in steps:
        mine = tuple(a for a in assignments if a.step is step)
        dealt = deal(current, mine, step_choices(dealing, step))
        out.update({(step, s, t): (n, effect_rules(current, s, t)) for (s, t), n in dealt.amounts.items()})
    return out


def dividers(steps: list[tuple[Step, Board]], assignments: tuple[Assignment, ...]
             ) -> dict[tuple[Step, ObjectId], ObjectId]:
    """Who divided each source's damage in each of the ``steps`` (:func:`step_boards`): its
    controller (510.1c-d), or the other player under banding (702.22j-k)."""
    return {(step, a.source): banding_chooser(current, current.creature(a.source))
            for step, current in steps for a in assignments if a.step is step}


def effect_rules(board: Board, source: ObjectId, target: ObjectId) -> str:
    """The rules of the effects that change ``source``'s damage to ``target`` on ``board``: protection
    (702.16e) or "prevent all" (615.1), shields (615.7), doubling and additions (614.1a; none to 0
    damage, which a shield applied first may leave, 614.7a), and the affected player's order when that
    order matters (616.1; a shield it may use up on damage prevented anyway, 616.1e)."""
    effects = cell_effects(board, source, target)
    kinds = {board.effects[i].kind for i in effects.modifiers}
    shield = any(board.effects[i].is_shield for i in effects.modifiers)
    rules = []
    if effects.prevented:
        if protection_applies(board, source, target):
            rules.append("702.16e")
        if any(e.kind is EffectKind.PREVENT and e.amount is None for _, e in applying_effects(board, source, target)):
            rules.append("615.1")
        if effects.wastable:
            rules += ["615.7", "616.1e"]
        return ", ".join(rules)
    if shield:
        rules.append("615.7")
    if kinds & {EffectKind.DOUBLE, EffectKind.ADD}:
        rules.append("614.1a")
    if shield and EffectKind.ADD in kinds:  # a shield applied first may leave no damage to add to
        rules.append("614.7a")
    if len(effects.modifiers) > 1:
        rules.append("616.1")
    return ", ".join(rules)


def assignment_lines(board: Board, assignments: Iterable[Assignment],
                     dealing: tuple[DealingChoice, ...] = ()) -> list[str]:
    """One row per assignment: source, target, amount, step and the player who divided it; the
    amount dealt, with the rules of the effects, where effects change it."""
    assignments = tuple(assignments)
    steps = step_boards(board, assignments, dealing)
    dealt = dealt_amounts(steps, assignments, dealing) if board.effects or _protection(board) else {}
    by = dividers(steps, assignments)
    rows = [(a.step.label, _label(board, a.source), _label(board, a.target), a.amount, by[(a.step, a.source)],
             *dealt.get((a.step, a.source, a.target), (a.amount, ""))) for a in assignments]
    if not rows:
        return ["  (no combat damage is assigned)"]
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    return [f"  {src:<{w1}} -> {tgt:<{w2}} {n:>3}   [{step}, by {player}]" + (f"  dealt {d} ({why})" if d != n else "")
            for step, src, tgt, n, player, d, why in rows]


def _protection(board: Board) -> bool:
    return any(getattr(o, "protection_from", None) for o in (*board.players, *board.creatures))


def dealing_lines(board: Board, dealing: tuple[DealingChoice, ...]) -> list[str]:
    """The affected players' order of effects (616.1) and shields' choices (615.7)."""
    out = []
    for d in dealing:
        names = [f"#{i} {board.effects[i].kind.value}" for i in d.order]
        text = f"  {_label(board, d.source)} -> {_label(board, d.target)} [{d.step.value}]: " + ", then ".join(names)
        if d.prevented:
            text += "; shield " + ", ".join(f"#{i} prevents {n}" for i, n in d.prevented)
        out.append(text)
    return out


def outcome_lines(board: Board, outcome: Outcome) -> list[str]:
    lines = []
    for p in board.players:
        o = outcome.players[p.id]
        text = f"  player {p.id}: life {p.life} -> {o.life}"
        if o.life_gained:  # damage and lifelink at once (510.2): say both
            lost = f"lost {o.damage_taken} to damage, " if o.damage_taken else ""
            text += f" ({lost}gained {o.life_gained} by lifelink, 702.15b)"
        if o.poison != p.poison:
            text += f", poison {p.poison} -> {o.poison}"
        for c, n in o.commander_damage.items():
            if n != p.commander_damage.get(c, 0):
                text += f", commander damage from {c} {p.commander_damage.get(c, 0)} -> {n}"
        if o.lost:
            text += f"  LOSES: {why_lost(board, outcome, p.id)}"
        lines.append(text)
    for w in board.planeswalkers:
        if outcome.planeswalkers[w.id] != w.loyalty:
            lines.append(f"  planeswalker {w.id}: loyalty {w.loyalty} -> {outcome.planeswalkers[w.id]}")
    for b in board.battles:
        if outcome.battles[b.id] != b.defense:
            lines.append(f"  battle {b.id}: defense {b.defense} -> {outcome.battles[b.id]}")
    for c in board.combatants:
        o = outcome.creatures[c.id]
        if o.damage != c.damage or o.minus_counters:
            text = f"  {_label(board, c.id)} {c.power}/{c.toughness}: {o.damage} damage"
            if o.minus_counters:
                text += f", {_counters(o.minus_counters)}"
            lines.append(text)
    if outcome.destroyed:
        lines.append("  destroyed:")
        lines += [f"    {_label(board, d)}: {why_destroyed(board, outcome, d)}" for d in outcome.destroyed]
    left: dict[ObjectId, list[ObjectId]] = {}
    for o in outcome.left_game:
        left.setdefault(board.get(o).controller, []).append(o)  # type: ignore[union-attr]
    for player, ids in left.items():
        lines.append(f"  left the game with player {player}, who lost (800.4a): "
                     + ", ".join(_label(board, o) for o in ids))
    return lines


def render_solution(board: Board, result: SolveResult) -> str:
    proof = "proven optimal" if result.status == "optimal" else "best found, NOT proven optimal (see warnings)"
    if result.method == "forced" and not any(c.is_attacking for c in board.creatures):
        proof += " (no creature attacks, so there is no combat damage step, 508.8)"
    elif result.method == "forced":
        proof += (" (the only legal assignment: in each step every creature that deals damage has one recipient and "
                  "one way to assign, and assigns all of its damage there, 510.1a-d)")
    lines = [f"{result.status}: {proof}; deciding player {result.player}",
             ("objective (in priority order): " if result.status == "optimal" else
              "objective of this line, not guaranteed: the other players' replies in it need not be their best "
              "(in priority order): ")
             + ", ".join(f"{k} {v}" for k, v in result.objective.items()),
             "", _damage_header(result), *assignment_lines(board, result.assignments, result.dealing)]
    if result.dealing:
        lines += ["", "order of effects chosen by the affected player (616.1, 615.7):",
                  *dealing_lines(board, result.dealing)]
    lines += ["", "after combat damage and state-based actions:", *outcome_lines(board, result.outcome)]
    if result.warnings:
        lines += ["", "warnings:", *(f"  {w}" for w in result.warnings)]
    return "\n".join(lines)


def _damage_header(result: SolveResult) -> str:
    """What the rows of a solution are: the deciding player's choices and the others' (510.1: each
    announces in turn, seeing what was announced before)."""
    head = "combat damage (510.1), each row divided by the player named"
    if result.method == "forced":
        return head + ":"
    others = f"worst for {result.player}" if result.status == "optimal" else "in this line"
    return f"{head}: {result.player}'s choices, and the other players' {others}:"


def render_check(board: Board, verdict: CheckResult, default_order: bool = False) -> str:
    """The verdict as text; ``default_order``: no dealing choices were given on a board with damage
    effects, so the checker applied them in board order (said after the outcome)."""
    if not verdict.legal:
        n = len(verdict.violations)
        two_steps = any(v.step is Step.FIRST_STRIKE for v in verdict.violations) or \
            Step.FIRST_STRIKE in damage_steps(board)
        return "\n".join([f"illegal: {n} violation{'s' if n > 1 else ''}",
                          *(f"  {v}" + (f"   [{v.step.label} step]" if two_steps else "")
                            for v in verdict.violations)])
    assert verdict.outcome is not None
    lines = ["legal", "", "after combat damage and state-based actions:", *outcome_lines(board, verdict.outcome)]
    if default_order:
        lines += ["", "effects were applied in board order, each shield preventing all it can: no dealing choices "
                  "were given (the affected player orders the effects on each damage, 616.1, and chooses which "
                  "damage a shield prevents, 615.7; give them as \"dealing\")"]
    return "\n".join(lines)
