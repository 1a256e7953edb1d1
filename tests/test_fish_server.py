"""The Fish server: sign-up periods, whole tournaments, and every misbehaviour's verdict.

Over memory streams on trio's virtual clock (autojump), so 30-second sign-up periods and 3-second
call limits take no real time; one test runs a whole tournament over real loopback sockets.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog.testing
import trio

from client.fish import names_for, play
from fish.gamelog import read_jsonl
from fish.misbehave import KINDS
from server.fish.server import ServerConfig, serve
from tests.fish_kit import Player, tournament

FAST = ServerConfig(call_timeout=1.0, name_timeout=2.0, wait=10.0)


def good(count: int) -> list[Player]:
    return [Player(name) for name in names_for(count)]


async def test_ten_players_start_at_once_and_finish(autojump_clock: object, tmp_path: Path) -> None:
    """With 10 names the tournament starts without waiting; every client learns its end."""
    run = await tournament(good(10), FAST, tmp_path)
    assert run.standing is not None
    assert run.started_at() < 1.0
    assert run.standing.failed == run.standing.cheaters == []
    assert run.standing.summary() == [len(run.standing.winners), 0]
    won = sorted(name for name, r in run.results.items() if r.outcome == "won")
    assert won == sorted(run.standing.winners)
    assert all(r.outcome in ("won", "lost") for r in run.results.values())
    rounds = [e["games"] for e in run.tournament_log() if e["event"] == "round"]
    assert [len(game) for game in rounds[0]] == [4, 4, 2]  # type: ignore[union-attr]


async def test_six_players_start_after_the_first_period(
    autojump_clock: object, tmp_path: Path
) -> None:
    """Fewer than 10 but at least 5: the tournament starts when the first period ends."""
    run = await tournament(good(6), FAST, tmp_path)
    assert run.standing is not None
    assert 10.0 <= run.started_at() < 11.0


async def test_a_fifth_player_in_the_second_period_starts_it_at_its_end(
    autojump_clock: object, tmp_path: Path
) -> None:
    """Four after the first period is too few; a fifth arriving later starts the tournament
    when the second period ends."""
    players = [*good(4), Player("late", arrives=15.0)]
    run = await tournament(players, FAST, tmp_path)
    assert run.standing is not None
    assert 20.0 <= run.started_at() < 21.0
    assert "late" in [e.get("name") for e in run.tournament_log() if e["event"] == "signup"]


async def test_too_few_players_end_without_a_tournament(
    autojump_clock: object, tmp_path: Path
) -> None:
    """Fewer than 5 after the last period: no tournament; the clients see the end of the stream."""
    run = await tournament(good(4), FAST, tmp_path)
    assert run.standing is None
    assert {r.outcome for r in run.results.values()} == {"no-tournament"}
    assert trio.current_time() >= 20.0


async def test_a_silent_connection_holds_up_no_one(autojump_clock: object, tmp_path: Path) -> None:
    """A client that never sends its name does not delay ten others: they start at once."""
    run = await tournament([Player("mute", "no-name"), *good(10)], FAST, tmp_path)
    assert run.standing is not None
    assert run.started_at() < 1.0


async def test_a_late_name_misses_a_full_tournament(autojump_clock: object, tmp_path: Path) -> None:
    """An eleventh client is refused once ten have signed up."""
    run = await tournament([*good(10), Player("eleventh", arrives=0.5)], FAST, tmp_path)
    assert run.standing is not None
    assert run.results["eleventh"].outcome == "no-tournament"


MISBEHAVING = sorted(KINDS)


@pytest.mark.parametrize("kind", MISBEHAVING)
async def test_each_misbehaviour_gets_its_verdict_and_the_tournament_finishes(
    kind: str, autojump_clock: object, tmp_path: Path
) -> None:
    """One misbehaving client among four good ones: it fails, cheats, is refused or (for an
    allowed quirk) plays, as the spec says; the tournament finishes for everyone else."""
    config = ServerConfig(
        call_timeout=1.0, name_timeout=2.0, wait=10.0, min_players=4, holes=4, seed=3,
        max_value=4096,
    )  # fmt: skip
    name = "fisha" if kind == "duplicate-name" else "rogue"
    players = [Player(name, kind), *good(4)]
    run = await tournament(players, config, tmp_path)
    standing = run.standing
    assert standing is not None, "the tournament did not take place"
    verdict = KINDS[kind].verdict
    signed_up = [e["name"] for e in run.tournament_log() if e["event"] == "signup"]
    if verdict == "refused":
        assert name not in signed_up
    elif verdict == "plays":
        assert signed_up.count(name) == 2
        assert standing.failed == standing.cheaters == []
    else:
        assert (standing.failed if verdict == "failed" else standing.cheaters) == [name]
        other = standing.cheaters if verdict == "failed" else standing.failed
        assert other == []
    assert standing.winners
    for player in players[1:]:
        assert run.results[player.name].outcome in ("won", "lost")


async def test_the_bad_name_is_welcome_in_lenient_mode(
    autojump_clock: object, tmp_path: Path
) -> None:
    """--names lenient accepts 1-12 printable ASCII characters, such as OCaml-AI-3."""
    config = ServerConfig(call_timeout=1.0, name_timeout=2.0, wait=10.0, names="lenient")
    run = await tournament([Player("ocaml", "bad-name"), *good(4)], config, tmp_path)
    assert run.standing is not None
    signed_up = [e["name"] for e in run.tournament_log() if e["event"] == "signup"]
    assert "OCaml-AI-3" in signed_up


async def test_game_logs_record_every_call_reply_and_verdict(
    autojump_clock: object, tmp_path: Path
) -> None:
    """Each game's log has its board, a call per reply or failure, a verdict each, a result."""
    run = await tournament([Player("rogue", "move-off"), *good(4)], FAST, tmp_path)
    assert run.standing is not None
    games = sorted(tmp_path.glob("game-*.jsonl.gz"))
    assert [p.name for p in games][:2] == ["game-r1-g1.jsonl.gz", "game-r1-g2.jsonl.gz"]
    events = read_jsonl(games[0])
    assert events[0]["log"] == "fish-game"
    kinds = [e["event"] for e in events]
    assert kinds.count("call") == kinds.count("reply") + kinds.count("failure")
    assert kinds.count("call") == kinds.count("verdict")
    assert kinds[-1] == "result"
    cheats = [e for e in events if e["event"] == "verdict" and e["kind"] == "cheated"]
    assert len(cheats) == 1
    assert "off the board" in str(cheats[0]["reason"])


async def test_a_whole_tournament_of_ten_clients_over_loopback(tmp_path: Path) -> None:
    """The real thing: `serve` on a free port of 127.0.0.1, ten clients over TCP."""
    config = ServerConfig(wait=30.0)
    results = []
    async with trio.open_nursery() as nursery:
        standing_box = []

        async def server(task_status: trio.TaskStatus[int]) -> None:
            standing_box.append(await serve(config, log_dir=tmp_path, task_status=task_status))

        port = await nursery.start(server)
        for index, name in enumerate(names_for(10)):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            nursery.start_soon(lambda s=stream, n=name, i=index: _collect(results, s, n, i))
    (standing,) = standing_box
    assert standing is not None
    assert standing.summary() == [len(standing.winners), 0]
    assert sorted(r.name for r in results if r.outcome == "won") == sorted(standing.winners)
    assert len(results) == 10


async def _collect(results: list[object], stream: trio.SocketStream, name: str, seed: int) -> None:
    results.append(await play(stream, name, "greedy", seed))


async def test_a_removal_is_logged_with_its_verdict(autojump_clock: object, tmp_path: Path) -> None:
    """The server's own log names the removed player, the verdict and the reason."""
    with structlog.testing.capture_logs() as logs:
        run = await tournament([Player("rogue", "place-off"), *good(4)], FAST, tmp_path)
    assert run.standing is not None
    removed = [entry for entry in logs if entry["event"] == "fish_player_removed"]
    assert [(e["name"], e["kind"]) for e in removed] == [("rogue", "cheated")]
    assert "off the board" in removed[0]["reason"]


async def test_connections_beyond_the_cap_are_closed(
    autojump_clock: object, tmp_path: Path
) -> None:
    """The network layer's connection cap (max_connections) closes the extra connection at once;
    the others play."""
    config = ServerConfig(
        call_timeout=1.0, name_timeout=2.0, wait=10.0, max_players=5, max_connections=5
    )
    run = await tournament(good(6), config, tmp_path)
    assert run.standing is not None
    refused = [e for e in run.tournament_log() if e["event"] == "refused"]
    assert len(refused) == 1
    assert "limit of 5 connections" in str(refused[0]["reason"])
    outcomes = sorted(r.outcome for r in run.results.values())
    assert outcomes.count("no-tournament") == 1
