"""The rules configuration: every number the dungeon spec marks *(config)*, in one frozen object.

A match, a server or a simulation may override any of them; match logs store the whole object
(``to_dict``) so a replay rebuilds exactly the same rules (``from_dict``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DEFAULT_RULES", "MAX_SWITCHES", "TRAP_POLICIES", "RulesConfig", "parse_overrides"]

TrapPolicy = Literal["raw", "satisfiable"]
TRAP_POLICIES: tuple[TrapPolicy, ...] = ("raw", "satisfiable")
#: The most switches a problem may have: the 8 n (n - 1) (n - 2) distinct traps over n switches
#: must be fewer than a 64-bit word's values (dungeon.traps draws each trap from one word).
MAX_SWITCHES = 1 << 20


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Every overridable number of the dungeon rules (spec dungeon.md), with the spec's defaults."""

    #: Points drawn uniformly in the unit square; node id = index.
    nodes: int = 1000
    #: Corridor between every pair of nodes strictly closer than this.
    radius: float = 0.06
    #: NPC odds per node (starts excluded): far from both shrines, near one, close to one.
    npc_odds: float = 1 / 20
    npc_near_odds: float = 1 / 10
    npc_near_radius: float = 0.2
    npc_close_odds: float = 1 / 4
    npc_close_radius: float = 0.1
    #: Trap problem size: switches (variables) and traps (3-literal clauses).
    switches: int = 20
    traps: int = 85
    #: "raw": problems as drawn; "satisfiable": unsatisfiable problems are redrawn.
    trap_policy: TrapPolicy = "raw"
    #: Chance to get past one active trap; an agent survives k active traps with survival**k.
    survival: float = 7 / 8
    #: Seconds a new socket has to send its `start`.
    start_timeout: float = 10.0
    #: The error that closes a socket (counting every error since its first line).
    error_limit: int = 100
    #: Longest line (bytes, newline excluded) either side may send.
    max_line: int = 1 << 20
    #: Draw limits: wall time on a server, logical steps in a simulation.
    draw_seconds: float = 600.0
    draw_steps: int = 2000
    #: Hard time limit of one optimum check (seconds) before it is logged as unknown.
    optimum_timeout: float = 20.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            expected = _FIELD_TYPES[field.name]
            if expected is str:
                ok = isinstance(value, str)
            elif expected is int:
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, int | float) and not isinstance(value, bool)
                ok = ok and math.isfinite(value)
            if not ok:
                raise ValueError(f"{field.name}: expected {expected.__name__}, got {value!r}")
        if self.trap_policy not in TRAP_POLICIES:
            raise ValueError(f"trap_policy: {self.trap_policy!r} is not one of {TRAP_POLICIES}")
        _require(self.nodes >= 4, "nodes", "at least 4 (two starts and two shrines)")
        _require(self.radius > 0, "radius", "positive")
        for name in ("npc_odds", "npc_near_odds", "npc_close_odds", "survival"):
            _require(0 <= getattr(self, name) <= 1, name, "a probability in [0, 1]")
        _require(self.npc_near_radius >= 0, "npc_near_radius", "non-negative")
        _require(self.npc_close_radius >= 0, "npc_close_radius", "non-negative")
        _require(self.switches >= 3, "switches", "at least 3 (a trap uses 3 distinct switches)")
        _require(
            self.switches <= MAX_SWITCHES,
            "switches",
            f"at most {MAX_SWITCHES} (each trap is drawn from one 64-bit word)",
        )
        _require(self.traps >= 0, "traps", "non-negative")
        _require(self.start_timeout > 0, "start_timeout", "positive")
        _require(self.error_limit >= 1, "error_limit", "at least 1")
        _require(self.max_line >= 1, "max_line", "at least 1")
        _require(self.draw_seconds > 0, "draw_seconds", "positive")
        _require(self.draw_steps >= 1, "draw_steps", "at least 1")
        _require(self.optimum_timeout > 0, "optimum_timeout", "positive")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: every field by name."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RulesConfig:
        """Rebuild from ``to_dict()`` output; missing keys take the defaults.

        Raises ValueError naming any unknown key or any value of the wrong type.
        """
        unknown = sorted(set(data) - set(_FIELD_TYPES))
        if unknown:
            raise ValueError(
                f"RulesConfig: unknown key(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(_FIELD_TYPES)}"
            )
        values = dict(data)
        for name, value in values.items():
            # JSON writes 10.0 as 10.0, but a hand-written config may say 10: accept it.
            if (
                _FIELD_TYPES[name] is float
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                values[name] = float(value)
        return cls(**values)

    def replace(self, **changes: Any) -> RulesConfig:
        """A copy with some fields changed (validated like a new object)."""
        return self.from_dict({**self.to_dict(), **changes})


def _require(condition: bool, name: str, what: str) -> None:
    if not condition:
        raise ValueError(f"{name}: must be {what}")


def parse_overrides(items: Iterable[str]) -> dict[str, Any]:
    """Turn command-line ``KEY=VALUE`` strings into typed ``RulesConfig`` fields.

    Raises ValueError naming the offending item.
    """
    result: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"{item!r}: expected KEY=VALUE")
        if key not in _FIELD_TYPES:
            raise ValueError(f"{item!r}: unknown key {key!r}; known: {', '.join(_FIELD_TYPES)}")
        kind = _FIELD_TYPES[key]
        try:
            result[key] = kind(text) if kind is not str else text
        except ValueError:
            raise ValueError(f"{item!r}: {text!r} is not a valid {kind.__name__}") from None
    return result


# Each field's type, read from its annotation (a string, under `from __future__ import
# annotations`): "int" and "float" as such, anything else ("TrapPolicy", a Literal of names) str.
_FIELD_TYPES: dict[str, type] = {
    field.name: {"int": int, "float": float}.get(str(field.type), str)
    for field in dataclasses.fields(RulesConfig)
}

#: The spec's defaults.
DEFAULT_RULES = RulesConfig()
