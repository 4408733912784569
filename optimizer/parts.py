"""Independent parts of a combat: groups of creatures whose damage never meets, solved one by one.

Two creatures are linked when one blocks the other (509.1, 510.1c-d) or when both attack the same
planeswalker or battle (its loyalty or defense is shared, 702.19c, 120.3c-d). Players link nothing
when no player can lose in this combat: then nothing one group does changes another's legal
assignments, the state after the first-strike step, or the other's outcome (with a loss, the game
would end, 104.3a, or a player's creatures leave, 800.4a), and every objective is a sum over
creatures, players, planeswalkers and battles. A max-min game whose payoff is a sum of independent
parts has the sum of the parts' values as its value, so each part is solved on its own: the decisive
saving when several parts each give the other side first-step replies (their count multiplies).

A "prevent the next N damage" shield on a player links every creature that may damage that player
(615.7: one amount for all of it): such boards are not split. (A shield on a creature or a
planeswalker stays within the part that damages it.)
"""

from __future__ import annotations

from dataclasses import replace

from .board import Board, Creature, EffectKind, Keyword, ObjectId
from .rules import damage_amount, forced_line

LOSS_LIFE = 0
"""704.5a: a player at this life or less loses."""
LOSS_POISON = 10
"""704.5c: a player with this many poison counters or more loses."""
LOSS_COMMANDER = 21
"""704.6c: a player dealt this much combat damage by one commander loses."""


def independent_parts(board: Board) -> list[Board] | None:
    """The board split into parts (each with every player, planeswalker, battle and effect, and
    one group's creatures), or None when it does not pay or is not sound: fewer than two parts in
    which some player has a choice, a shield on a player, or a player who could lose."""
    if (len(board.combatants) < 4 or could_lose(board)
            or any(e.is_shield and any(board.is_player(i) for i in e.recipients.ids or ()) for e in board.effects)):
        return None
    groups = _groups(board)
    if len(groups) < 2:
        return None
    parts = [replace(board, creatures=tuple(c for c in board.creatures if c.id in group)) for group in groups]
    if sum(1 for part in parts if forced_line(part) is None) < 2:
        return None  # one model of the whole board costs no more
    return parts


def could_lose(board: Board) -> bool:
    """Whether some player might lose in this combat (704.5a, 704.5c, 704.6c): a bound on what every
    attacker of another player could deal it, each combat damage step it deals damage in, as if all of
    it reached that player with every damage effect on the board applied in the order that deals the
    most (616.1: each addition before each doubling)."""
    added = sum(e.amount or 0 for e in board.effects if e.kind is EffectKind.ADD)
    doubling = 2 ** sum(1 for e in board.effects if e.kind is EffectKind.DOUBLE)
    for p in board.players:
        life = poison = 0
        commander: dict[ObjectId, int] = {}
        for c in board.attackers:
            if c.controller == p.id:
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
