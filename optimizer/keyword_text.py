"""Reading a creature's keyword texts: the abilities the rules layer models, toxic, protection written
as a keyword, and the rest, which are ignored with a warning that says why.

A text that names no modeled keyword is never silently taken to be harmless: keywords known to act
only before or after combat damage are ignored as such, a near miss of a modeled keyword is an error
(a typo would otherwise change the answer), so is a text on a creature in combat that names a modeled
keyword among other words, and anything else is ignored with a warning that the answer assumes it
does not change combat damage.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .board import COLORS, Keyword, normalize_keyword, parse_keyword
from .errors import InvalidBoardError, NotSupportedError, shown

NO_COMBAT_DAMAGE: tuple[str, ...] = (
    # who can block or be blocked (509.1b-c), over before combat damage
    "flying", "reach", "menace", "defender", "fear", "intimidate", "skulk", "shadow", "horsemanship",
    "landwalk", "islandwalk", "swampwalk", "forestwalk", "mountainwalk", "plainswalk", "desertwalk",
    "can't block", "can't be blocked",
    # triggered or static abilities that resolve before the combat damage step (the board's power and
    # toughness already include them) or after it
    "flanking", "bushido", "rampage", "exalted", "battle cry", "afflict", "annihilator", "myriad", "melee",
    "dethrone", "provoke", "prowess", "mentor", "training", "enlist", "backup", "persist", "undying",
    "decayed",
    # abilities that do not act in combat
    "vigilance", "haste", "flash", "hexproof", "shroud", "ward", "changeling", "cycling",
    "ninjutsu", "crew", "kicker", "evolve", "extort", "riot", "unleash", "dash", "evoke", "echo",
    "morph", "megamorph", "disguise", "partner",
)
"""Keywords that do not change how combat damage is assigned, dealt or survived (with their parameter,
as in "Ward {2}" or "Bushido 1")."""

_SHOWN = 120
"""At most this many characters of a keyword text in a message (reminder text included)."""
_TOXIC = re.compile(r"^toxic ([0-9]+)$")
_REMINDER = re.compile(r"\([^)]*\)|\([^)\n;]*")
"""Reminder text, as in Oracle text: "Toxic 1 (Players dealt combat damage by this creature ...)"; one
left open runs to the end of its line (or to a ";")."""
_SEPARATOR = re.compile(r"[;\n]|,(?!\s*(?:and\s+)?(?:from|white|blue|black|red|green|all colors|creatures|"
                        r"everything)\b)")
"""Between keywords written in one (lower-cased) text ("flying, first strike"); not the commas of
"protection from white, from blue" or "protection from white, blue"."""
_AND = re.compile(r"\s*\band\b(?!\s*/|\s+from\b)\s*")
"""Between the last two keywords of a list ("Flying, first strike and trample"; "first strike &
lifelink"); not after "protection from", whose qualities it joins ("protection from white and blue"),
nor in "and from" ("hexproof from white and from blue") or "and/or" ("kicker {r} and/or {w}")."""
_MODELED_NAMES = sorted([kw.value for kw in Keyword] + ["toxic", "protection"], key=len, reverse=True)
"""Names that a text must not hold among other words unread (the modeled keywords, toxic, protection)."""
_SIGNED = re.compile(r"toxic(?:[\s_-]*[\u2212+]|[\s_-]*[\s_]-|--)")
"""A sign before toxic's number ("toxic -1", "toxic_-1", "toxic--1", "toxic +1"), which normalizing
would turn into "toxic 1" (a single hyphen, "Toxic-1", is a separator like a space)."""
_PARAMETER = re.compile(r"^(?:\s+(?:\d+|x|\{.*|from .*|with .*|\S*—.*)|\s*—.*)?$")
"""What may follow a keyword's name: a number, a cost, "from ...", "with ...", or an em dash and a cost."""
_PROTECTION = re.compile(r"^protection from (.+)$")
_QUALITY_SEPARATOR = re.compile(r"\s*(?:,\s*and from|,\s*from|and from|,\s*and|,|\band\b)\s*")


@dataclass(frozen=True)
class KeywordsRead:
    """What a creature's ``keywords`` list says: modeled keywords, added toxic value, protection
    qualities, the texts ignored, and one warning per ignored text."""

    keywords: frozenset[Keyword]
    toxic: int
    protection_from: frozenset[str]
    ignored: tuple[str, ...]
    warnings: tuple[str, ...]


def read_keywords(at: str, creature_id: str, texts: Sequence[str], in_combat: bool, max_number: int) -> KeywordsRead:
    """Read the keyword texts of the creature at ``at`` (``in_combat``: attacking or blocking;
    ``max_number``: the bound on a toxic value)."""
    keywords: set[Keyword] = set()
    toxic = 0
    protection: set[str] = set()
    ignored: list[str] = []
    warnings: list[str] = []

    def ignore(text: str, why: str) -> None:
        ignored.append(text)
        warnings.append(f"{at}.keywords: {shown(text, _SHOWN)} on {creature_id!r} {why}")

    out_of_combat = "is not modeled; ignored, as the creature is not in combat"
    for k, text, norm in _parts(texts):
        where = f"{at}.keywords[{k}]"
        kw = parse_keyword(norm)
        if kw is not None:
            keywords.add(kw)
            continue
        toxic_match = _TOXIC.match(norm)
        protection_match = _PROTECTION.match(norm)
        if toxic_match and (_SIGNED.search(texts[k].lower()) or not toxic_match.group(1).strip("0")):
            raise InvalidBoardError(where, f"{shown(texts[k], _SHOWN)}: toxic takes one positive whole number "
                                    "(\"Toxic 2\", 702.164a)")
        elif toxic_match:
            digits = toxic_match.group(1).lstrip("0")  # a positive number (checked above)
            if len(digits) > len(str(max_number)) or int(digits) > max_number:
                raise InvalidBoardError(where, f"toxic beyond {max_number}")
            toxic += int(digits)
        elif norm == "toxic":
            raise InvalidBoardError(where, "toxic needs a number (\"Toxic 2\") or the toxic field")
        elif norm.startswith("toxic ") and (not in_combat or _modeled_name_in(norm[len("toxic"):]) is None):
            raise InvalidBoardError(where, f"{shown(text, _SHOWN)}: toxic takes one positive whole number "
                                    "(\"Toxic 2\", 702.164a)")
        elif not norm:
            raise InvalidBoardError(where, "empty keyword")
        elif protection_match:
            qualities = _protection_qualities(where, text, protection_match.group(1), in_combat)
            if qualities is None:
                ignore(text, out_of_combat)
            else:
                protection |= qualities
        elif norm.startswith("bands with other"):
            if in_combat:
                raise NotSupportedError(where, f"{shown(text, _SHOWN)} is not modeled: who divides combat damage "
                                        "depends on the band's shared quality (702.22j-k); if the creatures it bands "
                                        "with share that quality, give each of them the keyword 'banding'")
            ignore(text, out_of_combat)
        elif _known_harmless(norm):
            ignore(text, "does not change combat damage; ignored")
        else:
            near = difflib.get_close_matches(norm, [kw.value for kw in Keyword], n=1, cutoff=0.85)
            if near:
                raise InvalidBoardError(where, f"{shown(text, _SHOWN)} is not a keyword; did you mean {near[0]!r}?")
            named = _modeled_name_in(norm)
            if named is not None and in_combat:  # ignoring it would drop a keyword that changes the answer
                example = {"protection": "protection from red", "toxic": "toxic 1"}.get(named, named)
                raise InvalidBoardError(where, f"{shown(text, _SHOWN)} is not one keyword the optimizer reads, "
                                        f"but it names {named!r}: give each keyword the creature has now as a text "
                                        f"of its own ([\"{example}\", ...])")
            if named is not None:
                ignore(text, out_of_combat)
                continue
            ignore(text, "is not a keyword the optimizer knows; ignored, so the answer assumes it does not "
                   "change combat damage")
    return KeywordsRead(frozenset(keywords), toxic, frozenset(protection), tuple(ignored), tuple(warnings))


def _parts(texts: Sequence[str]) -> list[tuple[int, str, str]]:
    """Each keyword of each text (index, text, normalized keyword), reminder text left out; a text
    that is only whitespace stays one (empty) part."""
    out = []
    for k, text in enumerate(texts):
        kept = _pieces(text)
        out += [(k, text if len(kept) == 1 else piece, piece) for piece in kept]
    return out


@functools.lru_cache(maxsize=4096)
def _pieces(text: str) -> tuple[str, ...]:
    """The normalized keywords of one text (boards repeat a few texts: each is read once)."""
    lowered = _REMINDER.sub(" ", text).replace("&", " and ").lower()
    pieces = [q for p in _SEPARATOR.split(lowered) for q in _and_parts(normalize_keyword(p))]
    return tuple(p.rstrip(". ") for p in pieces if p.rstrip(". ")) or ("",)  # "Deathtouch." as Oracle text ends


def _and_parts(norm: str) -> list[str]:
    """``norm`` split at "and" ("deathtouch and lifelink"), but for a protection that ends the list,
    kept whole ("deathtouch and protection from black and green")."""
    head, protection, qualities = norm.partition("protection from")
    if not protection:
        return _AND.split(norm)
    if head.strip() and not re.search(r"\band\s*$", head):
        return [norm]  # "protection from" inside another text: not the creature's own protection
    return _AND.split(head) + [protection + qualities]


def _modeled_name_in(norm: str) -> str | None:
    """The name of a modeled keyword that ``norm`` holds as whole words ("deathtouch lifelink",
    "first strike as long as it's your turn"), if any."""
    for name in _MODELED_NAMES:
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", norm):
            return name
    return None


def _known_harmless(norm: str) -> bool:
    """Whether ``norm`` is one of :data:`NO_COMBAT_DAMAGE`, with or without a parameter ("ward {2}",
    "ward—pay 3 life", "bushido 1"), one that names no modeled keyword ("ward {2} lifelink" is two)."""
    return any(norm.startswith(name) and _PARAMETER.match(norm[len(name):])
               and _modeled_name_in(norm[len(name):]) is None for name in NO_COMBAT_DAMAGE)


def _protection_qualities(where: str, text: str, rest: str, in_combat: bool) -> frozenset[str] | None:
    """The qualities of "protection from ..." (702.16a): colors, "all colors", creatures, everything;
    None for another quality on a creature not in combat (it changes nothing then)."""
    out: set[str] = set()
    for quality in (q.strip() for q in _QUALITY_SEPARATOR.split(rest)):
        if not quality:
            continue
        if quality in COLORS:
            out.add(quality)
        elif quality == "all colors":  # 105.2: each of the five colors
            out.update(COLORS)
        elif quality in ("creatures", "everything"):  # 702.16a: creatures; 702.16j: everything
            out.add(quality)
        elif not in_combat:
            return None
        else:
            raise NotSupportedError(where, f"{shown(text, _SHOWN)}: protection from {quality} is not modeled, "
                                    "only from a color, all colors, creatures or everything (702.16a)")
    return frozenset(out)
