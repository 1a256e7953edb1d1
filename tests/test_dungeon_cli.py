"""`arena dungeon`: the summary, the exact --json keys, the picture, and bad usage."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from arena.dungeon import main
from dungeon.config import RulesConfig
from dungeon.generation import generate


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_exactly_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints one object: nodes, edges, start, shrine, npcs (sorted), attempts."""
    code, out, _ = run(capsys, "--seed", "7", "--json")
    data = json.loads(out)
    dungeon = generate(np.random.Generator(np.random.PCG64(7)))
    assert code == 0
    assert set(data) == {"nodes", "edges", "start", "shrine", "npcs", "attempts"}
    assert data["nodes"] == dungeon.positions.tolist()
    assert data["edges"] == dungeon.edges.tolist()
    assert all(u < v for u, v in data["edges"])
    assert data["start"] == list(dungeon.start)
    assert data["shrine"] == list(dungeon.shrine)
    assert data["npcs"] == sorted(dungeon.npcs)
    assert data["attempts"] == dungeon.attempts


def test_config_overrides_change_the_dungeon(capsys: pytest.CaptureFixture[str]) -> None:
    """--config KEY=VALUE generates with those rules."""
    _, out, _ = run(capsys, "--seed", "3", "--json", "--config", "nodes=150", "radius=0.15")
    data = json.loads(out)
    expected = generate(
        np.random.Generator(np.random.PCG64(3)), RulesConfig(nodes=150, radius=0.15)
    )
    assert len(data["nodes"]) == 150
    assert data["edges"] == expected.edges.tolist()


def test_summary_reports_counts_and_start_to_shrine_hops(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The summary gives nodes, edges, mean degree, NPCs, attempts and both teams' hop counts."""
    code, out, _ = run(capsys, "--seed", "11")
    dungeon = generate(np.random.Generator(np.random.PCG64(11)))
    graph = dungeon.graph()
    assert code == 0
    assert f"nodes       {dungeon.node_count}" in out
    assert f"edges       {len(dungeon.edges)}" in out
    assert f"mean degree {2 * len(dungeon.edges) / dungeon.node_count:.2f}" in out
    assert f"npcs        {len(dungeon.npcs)}" in out
    assert f"attempts    {dungeon.attempts}" in out
    for team in (0, 1):
        legal = graph.copy()
        legal.remove_nodes_from([dungeon.start[1 - team], dungeon.shrine[1 - team]])
        hops = nx.shortest_path_length(legal, dungeon.start[team], dungeon.shrine[team])
        assert f"start {dungeon.start[team]} " in out
        assert f"start to shrine: {hops} hops" in out.splitlines()[6 + team]


def test_png_draws_a_picture(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--png writes a PNG image of the dungeon."""
    target = tmp_path / "dungeon.png"
    code, _, _ = run(
        capsys, "--seed", "5", "--png", str(target), "--config", "nodes=200", "radius=0.13"
    )
    assert code == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert target.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        ([], "--seed"),
        (["--seed", "x"], "argument --seed: 'x' is not a seed"),
        (["--seed", "-1"], "argument --seed: '-1': a seed is a whole number from 0"),
        (["--seed", "1", "--config", "nodes=many"], "'nodes=many'"),
        (["--seed", "1", "--config", "colour=red"], "unknown key 'colour'"),
        (["--seed", "1", "--config", "nodes=4", "radius=1e-9"], "no playable dungeon"),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], complaint: str
) -> None:
    """Bad arguments or an impossible configuration: exit status 2 and the reason on stderr."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code  # type: ignore[assignment]
    _, err = capsys.readouterr()
    assert code == 2
    assert complaint in err


def test_a_png_that_cannot_be_written_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A --png path in a missing directory is a clear error, not a traceback."""
    code, _, err = run(capsys, "--seed", "1", "--png", str(tmp_path / "no" / "such.png"))
    assert code == 2
    assert "cannot write" in err
