"""CP-SAT parameters of every solve: one worker and a fixed seed (reproducible answers), and what
changes with a model's size and a board's amounts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .board import Board

if TYPE_CHECKING:  # settings are made without loading ortools
    from .cp_sat import cp_model

DETERMINISTIC_LIMIT = 60.0
"""CP-SAT deterministic time budget per solve when no time limit is given (reproducible)."""


@dataclass(frozen=True)
class SolverSettings:
    """CP-SAT parameters: one worker and a fixed seed make every answer reproducible.

    Presolve runs on models with at least ``presolve_from`` variables (below that it costs more than it
    saves) whose objective values stay within ``presolve_max_scale`` in magnitude: with lexicographic
    weights around 10^12 CP-SAT 9.15's presolve has returned a wrong "optimal" value and called
    feasible models infeasible (both seen on large benchmark boards; a model called infeasible is
    solved again without presolve).

    Symmetry detection, probing and SAT inprocessing are off: on the benchmark boards' models they
    cost about a third of each solve's time and found nothing the search did not. Max-min models (the
    refinement's, one variable bounded by sums) of at least ``maxmin_linearization_from`` variables
    get the linear relaxation (level 1): a 486-variable one took 6.4 s without it and 0.015 s with it;
    on small ones it costs more than it saves. Presolve makes one pass (``presolve_iterations``; CP-SAT's
    default is 3): on the verification models of large boards, 1,000-5,700 variables, that took 25-45%
    less time per solve.

    Boards with large amounts (a power, toughness, marked damage, loyalty, defense or effect amount of
    at least ``big_amount_linearization_from``) get the full linear relaxation (level 2) in their models
    of fewer than ``big_amount_linearization_below`` variables: without it CP-SAT's search can move
    damage bounds a step at a time, so its time grows with the amounts (a 3-player board with amounts
    of 100,000 took 16 s, 0.07 s with it; a typical benchmark board scaled by 10,000 did not finish in
    20 s, 0.07 s with it; the benchmark boards scaled by 1,000 took 12-15% less in all, same values). With
    smaller amounts (the benchmark boards scaled by 10 or 100) it saved nothing and made one medium
    board 3x slower; in larger models (master models of 4,000-9,000 variables) it cost 4x a solve.

    CP-SAT's own SIGINT handler is off: it would end only the search running (reported as a search
    stopped at its limit, the program going on), and it is not safe to run inside an allocation.
    Ctrl-C raises KeyboardInterrupt once the search returns; the command line stops the search at
    once (:mod:`optimizer.interrupt`).
    """

    workers: int = 1
    seed: int = 0
    presolve: bool = True
    presolve_from: int = 200
    presolve_max_scale: int = 2**36
    presolve_iterations: int = 1
    linearization_level: int = 0
    maxmin_linearization_from: int = 200
    big_amount_linearization_from: int = 1000
    big_amount_linearization_below: int = 200
    symmetry_level: int = 0
    probing_level: int = 0
    sat_inprocessing: bool = False

    def apply(self, solver: cp_model.CpSolver, time_limit: float | None, size: int = 0, scale: int = 1,
              bounded: bool = False, amount: int = 0) -> None:
        """Set ``solver``'s parameters for a model of ``size`` variables whose objective values reach
        ``scale``; ``bounded``: a max-min model; ``amount``: the board's :func:`largest_amount`."""
        p = solver.parameters
        p.num_workers = self.workers
        p.random_seed = self.seed
        p.cp_model_presolve = self.presolve and size >= self.presolve_from and scale <= self.presolve_max_scale
        p.max_presolve_iterations = self.presolve_iterations
        p.linearization_level = self.linearization_level
        if bounded and size >= self.maxmin_linearization_from:
            p.linearization_level = max(p.linearization_level, 1)
        if amount >= self.big_amount_linearization_from and size < self.big_amount_linearization_below:
            p.linearization_level = max(p.linearization_level, 2)
        p.symmetry_level = self.symmetry_level
        p.cp_model_probing_level = self.probing_level
        p.use_sat_inprocessing = self.sat_inprocessing
        p.max_deterministic_time = DETERMINISTIC_LIMIT
        p.catch_sigint_signal = False  # Ctrl-C interrupts the program, not just one search (see the docstring)
        if time_limit is not None:
            p.max_time_in_seconds = max(time_limit, 0.001)


def largest_amount(board: Board) -> int:
    """The largest damage amount or damage threshold on the board: a creature's power, toughness or
    marked damage, a planeswalker's loyalty, a battle's defense (see :class:`SolverSettings`)."""
    amounts = [abs(n) for c in board.creatures for n in (c.power, c.toughness, c.damage)]
    amounts += [pw.loyalty for pw in board.planeswalkers] + [b.defense for b in board.battles]
    amounts += [e.amount for e in board.effects if e.amount is not None]  # "prevent the next N", "+N"
    return max(amounts, default=0)
