"""The rules configuration: defaults from the spec, validation, and the log round trip."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dungeon.config import MAX_SWITCHES, RulesConfig, parse_overrides


def test_defaults_are_the_spec_numbers() -> None:
    """Every default is the number the spec marks (config)."""
    config = RulesConfig()
    assert (config.nodes, config.radius, config.switches, config.traps) == (1000, 0.06, 20, 85)
    assert (config.npc_odds, config.npc_near_odds, config.npc_close_odds) == (1 / 20, 0.1, 0.25)
    assert (config.npc_near_radius, config.npc_close_radius) == (0.2, 0.1)
    assert (config.trap_policy, config.survival) == ("raw", 7 / 8)
    assert (config.start_timeout, config.error_limit, config.max_line) == (10.0, 100, 1 << 20)
    assert (config.draw_seconds, config.draw_steps) == (600.0, 2000)


def test_to_dict_and_from_dict_round_trip_through_json() -> None:
    """A config written to a log as JSON reads back equal."""
    config = RulesConfig(nodes=300, radius=0.1, trap_policy="satisfiable", draw_steps=50)
    assert RulesConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


def test_from_dict_rejects_unknown_keys_by_name() -> None:
    """A key RulesConfig does not know is an error naming it."""
    with pytest.raises(ValueError, match="'radios'"):
        RulesConfig.from_dict({"radios": 0.1})


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"nodes": "1000"}, "nodes"),
        ({"nodes": 3}, "nodes"),
        ({"nodes": True}, "nodes"),
        ({"radius": 0}, "radius"),
        ({"radius": float("nan")}, "radius"),
        ({"survival": 1.5}, "survival"),
        ({"switches": 2}, "switches"),
        ({"switches": MAX_SWITCHES + 1}, "switches"),
        ({"trap_policy": "kind"}, "trap_policy"),
        ({"error_limit": 0}, "error_limit"),
    ],
)
def test_bad_values_are_refused_naming_the_field(fields: dict[str, Any], named: str) -> None:
    """A value of the wrong type or out of range is a ValueError naming its field."""
    with pytest.raises(ValueError, match=f"^{named}: "):
        RulesConfig.from_dict(fields)


def test_an_int_is_accepted_for_a_float_field() -> None:
    """A hand-written config may say 10 for 10.0."""
    assert RulesConfig.from_dict({"start_timeout": 5}).start_timeout == 5.0


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["nodes=200"], {"nodes": 200}),
        (["radius=0.1", "trap_policy=satisfiable"], {"radius": 0.1, "trap_policy": "satisfiable"}),
    ],
)
def test_parse_overrides_types_each_value(items: list[str], expected: dict[str, Any]) -> None:
    """KEY=VALUE strings become typed fields."""
    assert parse_overrides(items) == expected


@pytest.mark.parametrize(
    ("item", "message"),
    [("nodes", "KEY=VALUE"), ("nodes=many", "not a valid int"), ("size=3", "unknown key")],
)
def test_parse_overrides_names_the_bad_item(item: str, message: str) -> None:
    """A malformed override is an error naming the item and why."""
    with pytest.raises(ValueError, match=message):
        parse_overrides([item])
