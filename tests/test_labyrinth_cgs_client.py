"""Our client against a server that behaves as the public CodingGameServer was observed to
(tests/cgs_fake.py): it sends value 0 for steps and stays, follows that server's rules (second
player's energy 2) whether told or recognising them, counts an opponent's timeout as a win, and
stops with the server's own message when a verdict differs from our rules."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from cgs_fake import CgsFake, FakeStream, eager_rotator

from arena import labyrinth as cli
from client.labyrinth import Connection, RulesDisagreement, play_online, recognise_rules
from labyrinth.players import astar_move, do_nothing_move, random_move
from labyrinth.rotator import Rotator
from labyrinth.rules import PROFILES, Labyrinth, Move, MoveType

UNSIGNED = re.compile(r"PLAY_MOVE \d+ \d+")


def rotator_policy() -> Callable[[Labyrinth], Move]:
    return Rotator().choose


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("starts", [True, False])
def test_every_move_we_send_is_two_unsigned_numbers_and_we_win(seed: int, starts: bool) -> None:
    """Spec: a non-rotation carries value 0; '4 -1' is malformed there and loses the game."""
    server = CgsFake(do_nothing_move, client_starts=starts, seed=seed)
    result = play_online(Connection(FakeStream(server)), "me", "DO_NOTHING", rotator_policy())
    sent = [c for c in server.commands if c.startswith("PLAY_MOVE")]
    assert sent
    assert all(UNSIGNED.fullmatch(c) for c in sent)
    assert result.won
    assert not result.forfeit
    assert result.rules == "cgs2017"


def test_a_move_with_a_default_value_is_sent_with_value_0() -> None:
    assert Move(MoveType.MOVE_UP) == (4, 0)


@pytest.mark.parametrize("game", ["0005a1b2", "game_5"])
@pytest.mark.parametrize("seed", range(8))
def test_second_players_energy_2_is_followed_recognised_or_learned(seed: int, game: str) -> None:
    """The opponent (second) rotates at its first 5 energy, one turn earlier than the spec's
    energy 1 allows: a CGS game name is recognised at once; an unknown name is learned when the
    server accepts that rotation (the game is replayed under cgs2017 and play goes on)."""
    server = CgsFake(eager_rotator(random.Random(seed)), seed=seed, game=game)
    result = play_online(Connection(FakeStream(server)), "me", "", astar_move)
    assert result.rules == "cgs2017"
    assert result.won


def test_the_spec_profile_given_by_hand_stops_on_the_first_rotation_with_the_message() -> None:
    server = CgsFake(eager_rotator(random.Random(1)), seed=1)
    with pytest.raises(RulesDisagreement, match="our spec rules say MOVE_LOSE"):
        play_online(Connection(FakeStream(server)), "me", "", do_nothing_move, rules="spec")


@pytest.mark.parametrize("at", [1, 2, 5, 6])
def test_an_opponent_timeout_is_our_win(at: int) -> None:
    """Through PLAY_MOVE returning 1 "Timeout of the opponent!" (after our move) or GET_MOVE
    returning an empty move and -1 (when we wait for theirs)."""
    server = CgsFake(do_nothing_move, client_starts=True, opponent_times_out_at=at)
    result = play_online(Connection(FakeStream(server)), "me", "", do_nothing_move)
    assert result.won
    assert result.forfeit


@pytest.mark.parametrize(
    ("name", "size", "rules"),
    [
        ("0005a1b2", (13, 9), "cgs2017"),
        ("x", (21, 9), "cgs2017"),
        ("x", (13, 7), "cgs2017"),
        ("x", (13, 19), "cgs2017"),
        ("spec-0001", (13, 9), "spec"),
        ("cgs2017-0001", (13, 9), "cgs2017"),
        ("x", (13, 9), None),
    ],
)
def test_rules_are_recognised_from_the_games_name_and_size(
    name: str, size: tuple[int, int], rules: str | None
) -> None:
    assert recognise_rules(name, *size) == rules


def test_the_cgs2017_profile_draws_that_servers_sizes() -> None:
    from labyrinth.generation import generate

    config = PROFILES["cgs2017"]
    sizes = {(lab.width, lab.height) for lab in (generate(s, config) for s in range(40))}
    assert {w for w, _ in sizes} <= {13, 17, 21}
    assert all(7 <= h <= 19 and h % 2 for _, h in sizes)
    assert config.start_energy == (0, 2)


def test_a_differing_verdict_exits_1_with_one_line_holding_the_servers_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that refuses our well-formed first step: we print its message and stop."""
    server = CgsFake(do_nothing_move)
    plain = server.answer

    def refuse(command: str) -> list[str]:
        replies = plain(command)
        return ["OK", "-1", "The move is not in correct form"] if "PLAY" in command else replies

    server.answer = refuse  # type: ignore[method-assign]

    def fake_open(host: str, port: int, timeout: float) -> tuple[Connection, object]:
        class Sock:
            def close(self) -> None:
                pass

        return Connection(FakeStream(server)), Sock()

    monkeypatch.setattr(Connection, "open", staticmethod(fake_open))
    assert cli.main(["connect", "127.0.0.1", "1234", "--strategy", "astar"]) == 1
    err = capsys.readouterr().err
    waiting, *failure = err.splitlines()  # what it waited for, then the one line of the failure
    assert waiting.startswith("arena labyrinth: connected to 127.0.0.1:1234 as ")
    assert len(failure) == 1
    assert "The move is not in correct form" in failure[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("seed", range(10))
def test_random_opponent_with_rotations_never_disagrees(seed: int) -> None:
    """PLAY_RANDOM with rotations, on an unrecognised game name: the rotator wins every game."""
    rng = random.Random(seed)
    server = CgsFake(lambda lab: random_move(lab, rng, True), seed=seed, game="game")
    result = play_online(Connection(FakeStream(server)), "me", "", rotator_policy())
    assert result.won
