"""Independent parts of a combat: groups of creatures whose damage never meets, solved one by one.

Two creatures are linked when one blocks the other (509.1, 510.1c-d) or when both attack the same
planeswalker or battle (its loyalty or defense is shared, 702.19c, 120.3c, 120.3h). Players link
nothing when no player can lose in this combat: then nothing one group does changes another's legal
assignments, the state after the first-strike step, or the other's outcome (with a loss, the game
would end, 104.2a, or a player's creatures leave, 800.4a), and every objective is a sum over
creatures, players, planeswalkers and battles (but ``alive``, which is then 1 in every part). A
max-min game whose payoff is a sum of independent parts has the sum of the parts' values as its
value, so each part may be solved on its own. That pays when two or more parts give the other side
first-strike replies: on the whole board their count multiplies, and so do the refinement's rounds.
Otherwise one model of the whole board costs less (each part solved costs about a model's set-up),
and the board is not split.

A "prevent the next N damage" shield on a player links every creature that may damage that player
(615.7: one amount for all of it): such boards are not split. (A shield on a creature or a
planeswalker stays within the part that damages it.)
"""

from __future__ import annotations

from dataclasses import replace

from .assignment import Step
from .board import Board, Creature, EffectKind, Keyword, ObjectId
from .dealing import banding_chooser
from .rules import damage_amount, possible_recipients, tramples

LOSS_LIFE = 0
"""704.5a: a player at this life or less loses."""
LOSS_POISON = 10
"""704.5c: a player with this many poison counters or more loses."""
LOSS_COMMANDER = 21
"""704.6c: a player dealt this much combat damage by one commander loses."""


def independent_parts(board: Board) -> list[Board] | None:
    """The board split into parts (each with every player, planeswalker, battle and effect, and
    one group's creatures), or None when it is not sound (a player who could lose, a shield on a
    player) or does not pay (fewer than two parts with first-strike replies)."""
    if len(board.combatants) < 4 or not board.first_striker_in_combat:
        return None
    repliers = _first_step_repliers(board)
    if len(repliers) < 2:
        return None  # fewer than two parts can have replies: checked first, as it costs least
    if could_lose(board) or any(e.is_shield and any(board.is_player(i) for i in e.recipients.ids or ())
                                for e in board.effects):
        return None
    groups = _groups(board)
    if sum(1 for group in groups if group & repliers) < 2:
        return None  # the replies do not multiply: one model of the whole board costs less
    return [replace(board, creatures=tuple(c for c in board.creatures if c.id in group)) for group in groups]


def _first_step_repliers(board: Board) -> set[ObjectId]:
    """The creatures in combat whose first-strike damage a player other than the active one divides
    among more than one recipient (510.1, 510.4, 702.22j): such replies multiply across parts, and
    so do the refinement's rounds on the whole board. A part holds every object its creatures may
    damage, so a creature's recipients are the same in its part as on the whole board."""
    return {c.id for c in board.combatants
            if banding_chooser(board, c) != board.active_player
            and len(possible_recipients(board, c, Step.FIRST_STRIKE)) > 1}


def could_lose(board: Board) -> bool:
    """Whether some player might lose in this combat (704.5a, 704.5c, 704.6c): a bound on what every
    attacker that can reach a player could deal it, each combat damage step it deals damage in, as if
    all of it reached that player with every damage effect on the board applied in the order that
    deals the most (616.1: each addition before each doubling). Blockers damage no player (510.1d)."""
    added = sum(e.amount or 0 for e in board.effects if e.kind is EffectKind.ADD)
    doubling = 2 ** sum(1 for e in board.effects if e.kind is EffectKind.DOUBLE)
    for p in board.players:
        life = poison = 0
        commander: dict[ObjectId, int] = {}
        for c in board.attackers:
            if p.id not in _players_reachable(board, c):
                continue
            dealt = _steps(c) * (max(damage_amount(c), 0) + added) * doubling
            if c.has(Keyword.INFECT):
                poison += dealt
            else:
                life += dealt
            poison += _steps(c) * c.toxic
            if c.commander:
                commander[c.id] = dealt
        if (p.life - life <= LOSS_LIFE or p.poison + poison >= LOSS_POISON
                or any(p.commander_damage.get(k, 0) + n >= LOSS_COMMANDER for k, n in commander.items())):
            return True
    return False


def _players_reachable(board: Board, c: Creature) -> set[ObjectId]:
    """The players attacker ``c`` could deal combat damage to in either step: the player it attacks,
    unless it is blocked without trample and without Thorn-style assignment (510.1c; with its blockers
    gone it deals none, unlike a trampler, 702.19d), and the controller of the planeswalker it attacks
    with trample over planeswalkers (702.19c, 702.19e; plain trample never reaches a player that way,
    702.19f)."""
    if damage_amount(c) <= 0:
        return set()
    if c.blocked and not tramples(c) and not c.may_assign_as_though_unblocked:
        return set()
    target = c.attacking
    if target is not None and board.is_player(target):
        return {target}
    if target is not None and board.is_planeswalker(target) and c.has(Keyword.TRAMPLE_OVER_PLANESWALKERS):
        return {board.controller_of(target)}
    return set()


def _steps(c: Creature) -> int:
    return 2 if c.has(Keyword.DOUBLE_STRIKE) else 1


def _groups(board: Board) -> list[set[ObjectId]]:
    """The creatures in combat in linked groups (connected components), in board order."""
    parent: dict[object, object] = {}

    def find(x: object) -> object:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def link(a: object, b: object) -> None:
        parent[find(a)] = find(b)

    shared = {w.id for w in board.planeswalkers} | {b.id for b in board.battles}
    for c in board.combatants:
        find(c.id)
        for attacker in c.blocking:
            link(c.id, attacker)
        if c.attacking is not None and c.attacking in shared:
            link(c.id, ("attacked", c.attacking))  # a node of its own (ids are strings)
    groups: dict[object, set[ObjectId]] = {}
    for c in board.combatants:
        groups.setdefault(find(c.id), set()).add(c.id)
    return list(groups.values())
