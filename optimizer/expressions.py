"""Linear expressions and exact indicators for the encoding, with constants folded: an expression
that the board decides is an int, and an indicator that its operands' domains decide is 0 or 1,
not a variable."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Union

from .cp_sat import cp_model

from .board import ObjectId

if TYPE_CHECKING:
    from .analysis import Cell
    from .encode import CombatModel

Expr = Union[cp_model.LinearExprT, int]


def is_const(e: Expr) -> bool:
    return isinstance(e, int)


@dataclass
class Term:
    """A linear objective term: ``sum(coef * expr)``."""

    parts: list[tuple[int, Expr]] = field(default_factory=list)

    def add(self, coef: int, expr: Expr) -> None:
        if coef and not (is_const(expr) and expr == 0):
            self.parts.append((coef, expr))

    def expr(self) -> Expr:
        return linear(self.parts)


def linear(pairs: Iterable[tuple[int, Expr]]) -> Expr:
    """``sum(coef * expr)`` as one flat expression (an int when every ``expr`` is one)."""
    const = 0
    coefs: list[int] = []
    exprs: list[Expr] = []
    for coef, e in pairs:
        if isinstance(e, int):
            const += coef * e
        elif coef:
            coefs.append(coef)
            exprs.append(e)
    if not exprs:
        return const
    if len(exprs) == 1 and coefs[0] == 1 and not const:
        return exprs[0]  # a one-term sum is the term itself
    if const:
        coefs.append(1)
        exprs.append(const)
    return cp_model.LinearExpr.weighted_sum(exprs, coefs)


# --- indicators, exact in both directions ---------------------------------------------------------

def at_least(cm: CombatModel, expr: Expr, bound: int) -> Expr:
    """An indicator equal to ``expr >= bound``."""
    if isinstance(expr, int):
        return int(expr >= bound)
    known = cm.bounds(expr)
    if known is not None and (known[0] >= bound or known[1] < bound):
        return int(known[0] >= bound)  # decided by the domains alone
    v = cm.new_bool("ge")
    cm.model.add(expr >= bound).only_enforce_if(v)
    cm.model.add(expr <= bound - 1).only_enforce_if(v.Not())
    return v


def equals(cm: CombatModel, expr: Expr, value: int) -> Expr:
    if is_const(expr):
        return int(expr == value)
    return all_of(cm, [at_least(cm, expr, value), negated(at_least(cm, expr, value + 1))])


def negated(x: Expr) -> Expr:
    return 1 - x if is_const(x) else x.Not()


def all_of(cm: CombatModel, items: list[Expr]) -> Expr:
    return _fold(cm, items, absorbing=0)


def any_of(cm: CombatModel, items: list[Expr]) -> Expr:
    return _fold(cm, items, absorbing=1)


def _fold(cm: CombatModel, items: list[Expr], absorbing: int) -> Expr:
    """AND (``absorbing`` 0: the minimum) or OR (1: the maximum) of indicators, folding constants."""
    live = []
    for i in items:
        if isinstance(i, int):
            if i == absorbing:
                return absorbing
        else:
            live.append(i)
    if not live:
        return 1 - absorbing
    if len(live) == 1:
        return live[0]
    v = cm.new_bool("or" if absorbing else "and")
    (cm.model.add_max_equality if absorbing else cm.model.add_min_equality)(v, live)
    return v


class Indexed(dict):
    """Cells that are no longer changed, indexed by recipient (sums over a recipient are frequent)."""

    def __init__(self, cells: Mapping[Cell, Expr]) -> None:
        super().__init__(cells)
        self.to: dict[ObjectId, list[tuple[ObjectId, Expr]]] = {}
        for (s, t), v in cells.items():
            self.to.setdefault(t, []).append((s, v))


def sum_to(cells: Mapping[Cell, Expr], target: ObjectId, only: frozenset[ObjectId] | None = None) -> Expr:
    """The damage in ``cells`` to ``target`` (only from the sources in ``only``, if given; none, with
    no such sources on the board)."""
    if only is not None and not only:
        return 0
    if isinstance(cells, Indexed):
        pairs = cells.to.get(target)
        if not pairs:
            return 0
    else:
        pairs = [(s, v) for (s, t), v in cells.items() if t == target]
    values = [v for _, v in pairs] if only is None else [v for s, v in pairs if s in only]
    if len(values) == 1:
        return values[0]
    return linear((1, v) for v in values)
