"""Loading and validating boards from JSON (pydantic for types, explicit checks for the rules).

Every problem raises :class:`~optimizer.errors.InvalidBoardError` naming the field, for example
``creatures[2].blocking: 'a9' is not an attacking creature (509.1a)``.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from .board import (COLORS, PROTECTION_QUALITIES, Battle, Board, Creature, Effect, EffectKind, Keyword,
                    Planeswalker, Player, Selector)
from .errors import InvalidBoardError, key_path, shown
from .keyword_text import read_keywords

MAX_NUMBER = 1_000_000
"""Bound on every number in a board (power, toughness, damage, life, loyalty, defense, value, ...)."""
MAX_CREATURES = 1_000
"""Bound on the number of creatures in a board."""

Number = Annotated[StrictInt, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
Count = Annotated[StrictInt, Field(ge=0, le=MAX_NUMBER)]
Id = Annotated[StrictStr, Field(min_length=1, max_length=200)]

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _PlayerIn(_Strict):
    id: Id
    life: Number = 20
    poison: Count = 0
    commander_damage: dict[Id, Count] = Field(default_factory=dict)
    protection_from: list[StrictStr] = Field(default_factory=list)


class _PlaneswalkerIn(_Strict):
    id: Id
    controller: Id
    loyalty: Number
    removed_from_combat: StrictBool = False


class _BattleIn(_Strict):
    id: Id
    controller: Id
    protector: Id
    defense: Number
    removed_from_combat: StrictBool = False


class _CreatureIn(_Strict):
    id: Id
    controller: Id
    power: Number
    toughness: Number
    name: StrictStr | None = None
    damage: Number = 0
    keywords: list[StrictStr] = Field(default_factory=list)
    toxic: Count = 0
    value: Number = 1
    attacking: Id | None = None
    blocked: StrictBool | None = None
    blocking: list[Id] = Field(default_factory=list)
    commander: StrictBool = False
    assigns_damage_by_toughness: StrictBool = False
    may_assign_as_though_unblocked: StrictBool = False
    colors: list[StrictStr] = Field(default_factory=list)
    protection_from: list[StrictStr] = Field(default_factory=list)


class _ControllerIn(_Strict):
    controller: Id


Selection = Union[Literal["all"], list[Id], _ControllerIn]


class _EffectIn(_Strict):
    kind: StrictStr
    amount: Count | None = None
    sources: Selection = "all"
    recipients: Selection = "all"


class _BoardIn(_Strict):
    description: StrictStr | None = None
    active_player: Id | None = None
    players: list[_PlayerIn] = Field(min_length=1)
    planeswalkers: list[_PlaneswalkerIn] = Field(default_factory=list)
    battles: list[_BattleIn] = Field(default_factory=list)
    creatures: list[_CreatureIn] = Field(default_factory=list, max_length=MAX_CREATURES)
    effects: list[_EffectIn] = Field(default_factory=list, max_length=MAX_CREATURES)


def _location(loc: tuple[Any, ...]) -> str:
    """``('creatures', 2, 'power')`` -> ``creatures[2].power``; odd keys are quoted."""
    out = ""
    for part in loc:
        out = f"{out}[{part}]" if isinstance(part, int) else key_path(out, part)
    return out or "board"


def _message(msg: str) -> str:
    return re.sub(r" or instance of _\w+", "", msg)


def read_json(source: str | Path | Any, what: str = "board") -> Any:
    """Parse JSON text from a path or ``-`` (stdin); already-parsed objects pass through."""
    if isinstance(source, (str, Path)):
        if not str(source):
            raise InvalidBoardError(what, "an empty path; give a file name, or - for standard input")
        if "\0" in str(source):
            raise InvalidBoardError(what, f"{str(source)!r}: a path cannot hold a NUL character")
        try:  # bytes, decoded here: standard input as strictly as a file, whatever its locale
            data = _read_stdin() if str(source) == "-" else Path(source).read_bytes()
            text = (data if isinstance(data, str) else data.decode("utf-8")).removeprefix("\ufeff")  # a BOM
        except OSError as exc:
            raise InvalidBoardError(what, f"cannot read {str(source)!r}: {exc.strerror}") from None
        except UnicodeEncodeError as exc:  # a lone surrogate, say: no file system name holds it
            raise InvalidBoardError(what, f"{str(source)!r} is not a file name (character {exc.start + 1} "
                                    "has no UTF-8 form)") from None
        except UnicodeDecodeError as exc:
            where = "standard input" if str(source) == "-" else repr(str(source))
            raise InvalidBoardError(what, f"{where} is not UTF-8 text (byte {exc.start + 1})") from None
        try:
            return json.loads(text, object_pairs_hook=unique_keys)
        except json.JSONDecodeError as exc:
            raise InvalidBoardError(
                what, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
        except RecursionError:
            raise InvalidBoardError(what, "JSON nested too deeply") from None
        except ValueError as exc:  # a duplicate key, or an integer with more digits than Python converts
            raise InvalidBoardError(what, f"malformed JSON: {json_value_problem(exc)}") from None
    return source


def _read_stdin() -> bytes | str:
    """Standard input's bytes (its text if it is a text stream without bytes, as a test's may be)."""
    raw = getattr(sys.stdin, "buffer", None)
    return raw.read() if raw is not None else sys.stdin.read()


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (which JSON parsers would silently resolve)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {json.dumps(key)} appears twice in one object")
        out[key] = value
    return out


def json_value_problem(exc: ValueError) -> str:
    """A parser's ValueError in the caller's terms."""
    text = str(exc)
    if "integer string conversion" in text:
        return "an integer with more than 4300 digits"
    return text


def json_type(value: Any) -> str:
    """How JSON names the kind of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else f"a Python {type(value).__name__}, not parsed JSON"


def load_board(source: str | Path | dict[str, Any]) -> Board:
    """Load and validate a board from a path, ``-`` (stdin), or an already-parsed dict."""
    data = read_json(source)
    if not isinstance(data, dict):
        raise InvalidBoardError("board", f"expected a JSON object, got {json_type(data)}")
    return _read(data)


def _read(data: dict[str, Any], lost: frozenset[str] | None = None) -> Board:
    """The board ``data`` describes, validated; ``lost``: read as a board between the damage steps
    (510.4) on which those players have lost (see :func:`_build`)."""
    try:
        parsed = _BoardIn.model_validate(data)
    except ValidationError as exc:
        raise _board_error(exc.errors()) from None
    board = _build(parsed, lost)
    object.__setattr__(board, "loaded", True)
    return board


def checked_board(board: Board) -> Board:
    """``board`` if :func:`load_board` made it; a board built in Python is written out in the input
    format and read back, so that it meets every check a board read from JSON meets (the error names
    the field as in :meth:`Board.to_dict`), and the copy read back is what is solved. The rules
    layer's boards between the damage steps (:func:`~optimizer.rules.first_step`) are checked if the
    board they come from is; another board with ``first_strike_step_done`` is checked the same way,
    with what that step may leave behind that the input format does not hold: players who lost
    (800.4a), planeswalkers and battles at 0 that left combat (704.5i, 704.5v, 506.4c), effects
    naming objects that are gone (any id not on the board is taken for one) and used-up shields
    (615.7); its warnings are kept as they are."""
    if not isinstance(board, Board):
        raise InvalidBoardError("board", f"expected a Board (optimizer.load_board reads one), got "
                                f"{type(board).__name__}")
    if board.loaded:
        return board
    if not isinstance(board.first_strike_step_done, bool):
        raise InvalidBoardError("first_strike_step_done", f"expected True or False, got "
                                f"{shown(board.first_strike_step_done, 300)}")
    between = board.first_strike_step_done
    for i, p in enumerate(board.players):
        if not between and getattr(p, "in_game", True) is not True:
            raise InvalidBoardError(f"players[{i}].in_game", "a player who left the game takes no part in its "
                                    "combats (800.4a): leave the player out of the board")
    try:
        data = board.to_dict()
    except Exception as exc:  # noqa: BLE001 - fields of the wrong Python types
        raise InvalidBoardError("board", f"not a well-formed Board: {type(exc).__name__}: {exc}"[:300]) from None
    for i, effect in enumerate(board.effects or ()):
        for end in ("sources", "recipients"):
            ids = getattr(getattr(effect, end), "ids", None)
            if ids is not None and not isinstance(ids, (frozenset, set)):  # a string would read as its letters
                raise InvalidBoardError(f"effects[{i}].{end}", f"expected a frozenset of ids, got {shown(ids, 300)}")
    if not between:
        return load_board(data)
    return _between_steps(board, data)


def _between_steps(board: Board, data: dict[str, Any]) -> Board:
    """The read-back copy of a board between the damage steps (510.4) built in Python: ``data`` (its
    :meth:`Board.to_dict`) read with the allowances of :func:`_build` for that step's leftovers."""
    if not (isinstance(board.warnings, tuple) and all(isinstance(w, str) for w in board.warnings)):
        raise InvalidBoardError("warnings", f"expected a tuple of strings, got {shown(board.warnings, 300)}")
    for i, p in enumerate(board.players):
        if not isinstance(p.in_game, bool):
            raise InvalidBoardError(f"players[{i}].in_game", f"expected True or False, got {shown(p.in_game, 300)}")
    lost = frozenset(p.id for p in board.players if not p.in_game and isinstance(p.id, str))
    if len(board.players) - len(lost) < 2:
        raise InvalidBoardError("players", "at most one player is left in the game: the game is over "
                                "(104.2a) and there is no regular combat damage step")
    for group in ("creatures", "planeswalkers", "battles"):
        for i, entry in enumerate(data[group]):
            owner = entry["controller"]
            if not isinstance(owner, str) or owner not in lost:
                continue
            if group == "creatures":
                raise InvalidBoardError(f"creatures[{i}].controller", f"{owner!r} has left the game, and the "
                                        "objects they control left with them (800.4a)")
            if entry.get("removed_from_combat") is not True:
                raise InvalidBoardError(f"{group}[{i}].removed_from_combat", f"false, but its controller "
                                        f"{owner!r} has left the game (800.4a)")
    later = replace(_read(data, lost), warnings=board.warnings,  # the warnings of the first step's board
                    first_strike_step_done=True)
    object.__setattr__(later, "loaded", True)
    return later


_UNION_TAGS = {"literal['all']": str, "list[constrained-str]": list, "_ControllerIn": dict}
"""The branches of a selection (``Selection``) as pydantic names them in an error's location."""


def _board_error(errors: list[Any]) -> InvalidBoardError:
    """The first validation error, named by its field; for a selection, the error of the form the
    input has (a list of ids, or ``{"controller": ...}``), else what forms a selection takes."""
    err = errors[0]
    loc = tuple(err["loc"])
    tags = [i for i, part in enumerate(loc) if part in _UNION_TAGS]
    if tags:
        field = loc[:tags[0]]
        given = type(err["input"])
        for other in errors:
            at = tuple(other["loc"])
            if at[:len(field)] == field and len(at) > len(field) and _UNION_TAGS.get(at[len(field)]) is given \
                    and given is not str:
                return InvalidBoardError(_location(field + at[len(field) + 1:]), _message(other["msg"]))
        return InvalidBoardError(_location(field), "expected \"all\", a list of ids, or {\"controller\": a player id}")
    if loc and loc[-1] == "[key]":  # a key of an object, not its value
        return InvalidBoardError(_location(loc[:-1]), "key: " + _message(err["msg"]))
    return InvalidBoardError(_location(loc), _message(err["msg"]))


def _build(raw: _BoardIn, lost: frozenset[str] | None = None) -> Board:
    """The board of validated input. With ``lost`` (a board between the damage steps, 510.4), what
    the first-strike step may leave is allowed: those players have lost (800.4a), planeswalkers and
    battles out of combat may be at 0 (704.5i, 704.5v, 506.4c), shields may be used up (615.7), and
    effects may name objects that are gone (any id not on the board is taken for one)."""
    between = lost is not None
    lost = lost or frozenset()
    warnings: list[str] = []
    seen: dict[str, str] = {}
    groups = (("players", raw.players), ("planeswalkers", raw.planeswalkers),
              ("battles", raw.battles), ("creatures", raw.creatures))
    for group, items in groups:
        for i, item in enumerate(items):
            where = f"{group}[{i}].id"
            if item.id in seen:
                raise InvalidBoardError(where, f"duplicate id {item.id!r} (also {seen[item.id]})")
            seen[item.id] = where
    player_ids = [p.id for p in raw.players]
    creature_by_id = {c.id: c for c in raw.creatures}

    def require_player(where: str, pid: str) -> None:
        if pid not in player_ids:
            raise InvalidBoardError(where, f"unknown player {pid!r}")

    players = []
    for i, p in enumerate(raw.players):
        if p.id in lost:
            pass  # lost in the first step, by any of these (704.5a, 704.5c, 704.6c)
        elif p.life <= 0:
            raise InvalidBoardError(f"players[{i}].life",
                                    f"{p.life}: a player at 0 or less life has already lost (704.5a)")
        elif p.poison >= 10:
            raise InvalidBoardError(f"players[{i}].poison",
                                    f"{p.poison}: a player with 10 or more poison counters has already lost (704.5c)")
        commander_damage = dict(sorted(p.commander_damage.items()))  # by id: a JSON object's key order means nothing
        for key, amount in commander_damage.items():
            where = key_path(f"players[{i}].commander_damage", key)
            if amount >= 21 and p.id not in lost:
                raise InvalidBoardError(where, f"{amount}: 21 or more commander damage has already lost the game (704.6c)")
            if key in creature_by_id and not creature_by_id[key].commander:
                raise InvalidBoardError(where, f"{key!r} is a creature without \"commander\": true")
            if key in seen and key not in creature_by_id:
                raise InvalidBoardError(where, f"{key!r} is not a creature (903.10a: commander damage "
                                        "comes from commanders)")
            if key not in creature_by_id:
                alike = [c for c in creature_by_id if "".join(c.split()).casefold() == "".join(key.split()).casefold()]
                if alike:  # ids are exact: it would count as another commander
                    raise InvalidBoardError(where, f"{key!r} is no creature's id; did you mean {alike[0]!r}? (ids are "
                                            "case-sensitive; a commander not on the battlefield needs an id of its own)")
                warnings.append(f"players[{i}].commander_damage: {key!r} is not on the battlefield; "
                                "its damage so far cannot grow in this combat")
        players.append(Player(p.id, p.life, p.poison, MappingProxyType(commander_damage),
                              in_game=p.id not in lost,
                              protection_from=_qualities(f"players[{i}].protection_from", p.protection_from)))

    planeswalkers = []
    for i, w in enumerate(raw.planeswalkers):
        require_player(f"planeswalkers[{i}].controller", w.controller)
        if w.loyalty < 0 or w.loyalty == 0 and not (between and w.removed_from_combat):
            raise InvalidBoardError(f"planeswalkers[{i}].loyalty",
                                    f"{w.loyalty}: a planeswalker with 0 loyalty is already in the graveyard (704.5i)")
        planeswalkers.append(Planeswalker(w.id, w.controller, w.loyalty, w.removed_from_combat))

    battles = []
    for i, b in enumerate(raw.battles):
        require_player(f"battles[{i}].controller", b.controller)
        require_player(f"battles[{i}].protector", b.protector)
        if b.protector == b.controller:
            raise InvalidBoardError(f"battles[{i}].protector", f"{b.protector!r} controls the battle; "
                                    "a Siege is protected by an opponent of its controller (310.11a), and every "
                                    "battle so far is a Siege (310.11)")
        if b.defense < 0 or b.defense == 0 and not (between and b.removed_from_combat):
            raise InvalidBoardError(f"battles[{i}].defense",
                                    f"{b.defense}: a battle with 0 defense is already in the graveyard (704.5v)")
        battles.append(Battle(b.id, b.controller, b.protector, b.defense, b.removed_from_combat))
    pw_by_id = {w.id: w for w in planeswalkers}
    battle_by_id = {b.id: b for b in battles}

    # active player: given, or the controller of the attacking creatures
    attacker_controllers = sorted({c.controller for c in raw.creatures if c.attacking is not None})
    if raw.active_player is not None:
        require_player("active_player", raw.active_player)
        active = raw.active_player
    elif len(attacker_controllers) > 1:
        raise InvalidBoardError("creatures", "attacking creatures have different controllers "
                                f"{attacker_controllers}: only the active player attacks (506.2)")
    else:
        active = attacker_controllers[0] if attacker_controllers else player_ids[0]

    blockers_of: dict[str, list[str]] = {}
    for d in raw.creatures:
        for attacker_id in dict.fromkeys(d.blocking):
            blockers_of.setdefault(attacker_id, []).append(d.id)
    creatures = []
    for i, c in enumerate(raw.creatures):
        at = f"creatures[{i}]"
        require_player(f"{at}.controller", c.controller)
        if c.toughness <= 0:
            raise InvalidBoardError(f"{at}.toughness", f"{c.toughness}: a creature with toughness 0 or "
                                    "less is already in the graveyard (704.5f)")
        if c.damage < 0:
            raise InvalidBoardError(f"{at}.damage", f"{c.damage}: marked damage cannot be negative")
        read = read_keywords(at, c.id, c.keywords, c.attacking is not None or bool(c.blocking), MAX_NUMBER)
        keywords = read.keywords
        toxic = c.toxic + read.toxic
        warnings.extend(read.warnings)
        if toxic > MAX_NUMBER:
            raise InvalidBoardError(f"{at}.toxic", f"total toxic {toxic} is beyond {MAX_NUMBER}")
        if c.damage >= c.toughness and Keyword.INDESTRUCTIBLE not in keywords:
            raise InvalidBoardError(f"{at}.damage", f"{c.damage} damage marked on toughness {c.toughness}: "
                                    "it would already have been destroyed (704.5g)")
        if c.attacking is not None and c.blocking:
            raise InvalidBoardError(f"{at}.blocking", "a creature cannot be both attacking and blocking")
        if c.blocked is not None and c.attacking is None:
            raise InvalidBoardError(f"{at}.blocked", "only an attacking creature can be blocked")
        if c.attacking is not None:
            _check_attack(at, c, active, player_ids, pw_by_id, battle_by_id, seen)
        blocked_by = blockers_of.get(c.id, [])
        if c.blocked is False and blocked_by:
            raise InvalidBoardError(f"{at}.blocked", f"false, but {blocked_by[0]!r} blocks it (509.1h)")
        for j, attacker_id in enumerate(c.blocking):
            where = f"{at}.blocking[{j}]"
            if attacker_id in c.blocking[:j]:
                raise InvalidBoardError(where, f"{attacker_id!r} is listed twice")
            attacker = creature_by_id.get(attacker_id)
            if attacker is None:
                raise InvalidBoardError(where, f"unknown creature {attacker_id!r}" if attacker_id not in seen
                                        else f"{attacker_id!r} is not a creature")
            if attacker.attacking is None:
                raise InvalidBoardError(where, f"{attacker_id!r} is not attacking (509.1a)")
            defender = _defending_player(attacker.attacking, pw_by_id, battle_by_id)
            if c.controller != defender:
                raise InvalidBoardError(where, f"{c.id!r} is controlled by {c.controller!r}, but {attacker_id!r} "
                                        f"attacks {attacker.attacking!r}, defended by {defender!r} (509.1a)")
        creatures.append(Creature(
            id=c.id, controller=c.controller, power=c.power, toughness=c.toughness, name=c.name,
            damage=c.damage, keywords=keywords, other_keywords=read.ignored, toxic=toxic,
            value=c.value, attacking=c.attacking, blocked=bool(c.blocked) or bool(blocked_by),
            blocking=tuple(c.blocking), commander=c.commander,
            assigns_damage_by_toughness=c.assigns_damage_by_toughness,
            may_assign_as_though_unblocked=c.may_assign_as_though_unblocked,
            colors=_colors(f"{at}.colors", c.colors),
            protection_from=_qualities(f"{at}.protection_from", c.protection_from) | read.protection_from,
        ))
    effects = tuple(_effect(f"effects[{i}]", e, seen, player_ids, creature_by_id, between)
                    for i, e in enumerate(raw.effects))
    return Board(active_player=active, players=tuple(players), creatures=tuple(creatures),
                 planeswalkers=tuple(planeswalkers), battles=tuple(battles), warnings=tuple(warnings),
                 effects=effects)


def _colors(where: str, names: list[str]) -> frozenset[str]:
    out = set()
    for k, name in enumerate(names):
        color = name.strip().lower()
        if color not in COLORS:
            raise InvalidBoardError(f"{where}[{k}]", f"{name!r} is not a color; colors are {', '.join(COLORS)} (105.1)")
        out.add(color)
    return frozenset(out)


def _qualities(where: str, names: list[str]) -> frozenset[str]:
    out = set()
    for k, name in enumerate(names):
        quality = name.strip().lower()
        if quality not in PROTECTION_QUALITIES:
            raise InvalidBoardError(f"{where}[{k}]", f"{name!r}: protection from a color, \"creatures\" or "
                                    f"\"everything\" ({', '.join(PROTECTION_QUALITIES)}) (702.16a)")
        out.add(quality)
    return frozenset(out)


_EFFECT_KINDS = {k.value: k for k in EffectKind}


def _effect(where: str, raw: _EffectIn, seen: dict[str, str], player_ids: list[str],
            creature_by_id: dict[str, _CreatureIn], between: bool = False) -> Effect:
    kind = _EFFECT_KINDS.get(raw.kind.strip().lower())
    if kind is None:
        raise InvalidBoardError(f"{where}.kind", f"unknown effect {shown(raw.kind)}; "
                                f"kinds are {', '.join(_EFFECT_KINDS)}")
    sources = _selector(f"{where}.sources", raw.sources, seen, player_ids, creature_by_id, True, between)
    recipients = _selector(f"{where}.recipients", raw.recipients, seen, player_ids, creature_by_id, False, between)
    if kind is EffectKind.ADD:
        if raw.amount is None or raw.amount < 1:
            raise InvalidBoardError(f"{where}.amount", "an \"add\" effect needs an amount of at least 1")
    elif kind is EffectKind.PREVENT:
        if raw.amount is not None:
            if raw.amount < 1 and not (between and raw.amount == 0):  # used up in the first step (615.7)
                raise InvalidBoardError(f"{where}.amount", f"{raw.amount}: a shield prevents at least 1 damage "
                                        "(use null to prevent all)")
            if recipients.ids is None or len(recipients.ids) != 1:
                raise InvalidBoardError(f"{where}.recipients", "a shield (\"prevent the next N damage\", "
                                        "615.7) needs exactly one recipient id")
    elif raw.amount is not None:
        raise InvalidBoardError(f"{where}.amount", f"a {kind.value!r} effect takes no amount")
    return Effect(kind, raw.amount, sources, recipients)


def _selector(where: str, raw: Any, seen: dict[str, str], player_ids: list[str],
              creature_by_id: dict[str, _CreatureIn], sources: bool, between: bool = False) -> Selector:
    """``between``: an id not on the board names an object the first-strike step took away."""
    if raw == "all":
        return Selector()
    if isinstance(raw, _ControllerIn):
        if raw.controller not in player_ids:
            raise InvalidBoardError(f"{where}.controller", f"unknown player {raw.controller!r}")
        return Selector(controller=raw.controller)
    for k, object_id in enumerate(raw):
        if object_id not in seen:
            if between:
                continue
            raise InvalidBoardError(f"{where}[{k}]", f"unknown id {object_id!r}")
        if sources and object_id not in creature_by_id:
            raise InvalidBoardError(f"{where}[{k}]", f"{object_id!r} is not a creature; combat damage comes "
                                    "from creatures (510.1a)")
    if not raw:
        raise InvalidBoardError(where, "an empty list selects nothing; leave the field out to select all")
    return Selector(ids=frozenset(raw))

def _defending_player(target: str, pw_by_id: dict[str, Planeswalker], battle_by_id: dict[str, Battle]) -> str:
    if target in pw_by_id:
        return pw_by_id[target].controller
    if target in battle_by_id:
        return battle_by_id[target].protector
    return target


def _check_attack(at: str, c: _CreatureIn, active: str, player_ids: list[str],
                  pw_by_id: dict[str, Planeswalker], battle_by_id: dict[str, Battle],
                  seen: dict[str, str]) -> None:
    where = f"{at}.attacking"
    target = c.attacking
    assert target is not None
    if c.controller != active:
        raise InvalidBoardError(where, f"{c.id!r} is controlled by {c.controller!r}, but only the active "
                                f"player {active!r} attacks (506.2)")
    if target in player_ids:
        if target == c.controller:
            raise InvalidBoardError(where, f"{c.id!r} cannot attack its own controller (506.2)")
    elif target in pw_by_id:
        if pw_by_id[target].controller == c.controller:
            raise InvalidBoardError(where, f"{c.id!r} cannot attack a planeswalker its controller controls (506.2)")
    elif target in battle_by_id:
        if battle_by_id[target].protector == c.controller:
            raise InvalidBoardError(where, f"{c.id!r} cannot attack a battle its controller protects (310.8b)")
    elif target in seen:
        raise InvalidBoardError(where, f"{target!r} is not a player, planeswalker or battle (506.3)")
    else:
        raise InvalidBoardError(where, f"unknown id {target!r}")
