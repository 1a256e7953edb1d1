"""How ``arena tournament`` judges a Fish game from the logs its server wrote (spec
tournament.md; the adapter is :mod:`server.competition.fish`): the journal record of a game
(points, scores, failures with their reasons, the replay page) from the tournament's log
(``tournament.jsonl``: sign-ups, who answered ``start``) and the game's log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server.competition.competition import fish_result
from server.competition.pairings import Game
from server.competition.programs import Entrant
from server.competition.reasons import failed_kind

__all__ = ["broken_seats", "fish_reason", "game_record", "our_seats", "read_log", "write_replay"]


def fish_reason(kind: str, reason: str, failed: bool) -> str:
    """The tournament's reason for a referee's verdict ``kind`` (failed, cheated) and its text,
    given whether the program ended with a failure."""
    if kind == "cheated":
        return "illegal_move"
    if "within" in reason:  # "no reply within 3 s", "nothing within 10 s"
        return "time_limit"
    if "connection broken" in reason or "disconnected" in reason or "closed" in reason:
        return "crashed" if failed else "disconnected"
    return "protocol_error"


def read_log(path: Path) -> list[dict[str, Any]]:
    from replay.games import read_events

    return read_events(path)


def broken_seats(log_dir: Path, order: list[int | None]) -> list[int]:
    """Seats whose connection broke: their programs may be ending (a crash)."""
    out = []
    tournament = read_log(log_dir / "tournament.jsonl")
    started = next((e for e in tournament if e.get("event") == "started"), {})
    signed = [e.get("name") for e in tournament if e.get("event") == "signup"]
    for index, name in enumerate(signed):
        seat = order[index] if index < len(order) else None
        if seat is not None and name in started.get("failed", []):
            out.append(seat)
    game_order = our_seats(log_dir, order)
    for event in read_log(log_dir / "game-r1-g1.jsonl.gz"):
        if event.get("event") == "verdict" and event.get("kind") == "failed":
            seat = game_order[event["seat"]]
            if seat is not None and "broken" in str(event.get("reason")):
                out.append(seat)
    return out


def our_seats(log_dir: Path, order: list[int | None]) -> list[int | None]:
    """Our seat of each seat of the server's game (the game seats the players who
    acknowledged start, in sign-up order)."""
    tournament = read_log(log_dir / "tournament.jsonl")
    failed_start: list[str] = next(
        (e.get("failed", []) for e in tournament if e.get("event") == "started"), []
    )
    signed = [e for e in tournament if e.get("event") == "signup"]
    seats: list[int | None] = []
    skipped = list(failed_start)
    for index, event in enumerate(signed):
        if (signed_name := str(event.get("name"))) in skipped:
            skipped.remove(signed_name)
            continue
        seats.append(order[index] if index < len(order) else None)
    return seats


def game_record(
    game: Game, name: str, entrants: list[Entrant], order: list[int | None],
    log_dir: Path, outputs: list[str], seconds: float, *, game_log: Path | None = None,
    game_order: list[int | None] | None = None, sign_up: bool = True, out: Path,
    connect_seconds: float,
) -> dict[str, Any]:  # fmt: skip
    """The journal record of one game: its log ``game_log`` (default the server's only
    game), ``game_order`` our seat of each of its seats; ``sign_up``: judge the sign-up
    and ``start`` too (a fish-knockout's games leave that to the run)."""
    count = len(game.seats)
    game_log = game_log if game_log is not None else log_dir / "game-r1-g1.jsonl.gz"
    failures: dict[int, dict[str, Any]] = {}

    def fail(seat: int, reason: str, detail: str) -> None:
        failures.setdefault(seat, {
            "team": game.seats[seat], "seat": seat, "reason": reason, "detail": detail,
            "output": outputs[seat],
        })  # fmt: skip

    for seat, entrant in enumerate(entrants):
        if sign_up and seat not in order:
            if entrant.failed:
                fail(seat, failed_kind(entrant.exit), f"{entrant.exit} before it signed up")
            else:
                why = entrant.exit or f"no sign-up within {connect_seconds:g} s"
                fail(seat, "never_connected", why)
    tournament = read_log(log_dir / "tournament.jsonl")
    started = next((e for e in tournament if e.get("event") == "started"), None)
    signed_names = [e.get("name") for e in tournament if e.get("event") == "signup"]
    if started is not None and sign_up:
        for index, signed in enumerate(signed_names):
            where = order[index] if index < len(order) else None
            if where is not None and signed in started.get("failed", []):
                if entrants[where].failed:
                    why = f"{entrants[where].exit} before it answered start"
                    fail(where, failed_kind(entrants[where].exit), why)
                else:
                    fail(where, "protocol_error", 'start: no "void" in time')
    if game_order is None:
        game_order = our_seats(log_dir, order)
    catch = [0] * count
    events = read_log(game_log)
    winners: list[int] = []
    for event in events:
        if event.get("event") == "verdict" and event.get("kind") in ("failed", "cheated"):
            where = game_order[event["seat"]]
            if where is not None:
                failed = entrants[where].failed
                reason = fish_reason(event["kind"], str(event["reason"]), failed)
                detail = str(event["reason"])
                if reason == "crashed":  # or past a sandbox limit: how it ended says
                    reason = failed_kind(entrants[where].exit)
                    detail = f"{entrants[where].exit} ({detail})"
                fail(where, reason, detail)
        if event.get("event") == "result":
            for index, score in enumerate(event.get("scores", [])):
                where = game_order[index] if index < len(game_order) else None
                if where is not None:
                    catch[where] = score
    result = next((e for e in events if e.get("event") == "result"), None)
    header = next((e for e in events if e.get("event") == "game"), None)
    if result is not None and header is not None:
        players = header.get("players", [])
        for winner_name in result.get("winners", []):
            # a name may repeat (duplicates are allowed): the first seat with it not yet taken
            for index, player in enumerate(players):
                where = game_order[index] if index < len(game_order) else None
                if player == winner_name and where is not None and where not in winners:
                    winners.append(where)
                    break
    elif not failures or len(failures) == count - 1:
        winners = [seat for seat in range(count) if seat not in failures][:1]
    winners = [seat for seat in winners if seat not in failures]
    points = [1.0 / len(winners) if seat in winners else 0.0 for seat in range(count)]
    scores = [-1 if seat in failures else catch[seat] for seat in range(count)]
    seats = list(game.seats)
    listed = sorted(failures.values(), key=lambda f: f["seat"])
    best = catch[winners[0]] if winners else None
    replay = write_replay(out, game_log, name, seats, game_order)
    return {
        **game.record_head(name),
        "seats": seats,
        "points": points,
        "scores": scores,
        "fish": catch,
        "winner": winners[0] if len(winners) == 1 else None,
        "reason": listed[0]["reason"] if listed else "fish",
        "result": fish_result(seats, winners, best, listed),
        "failures": listed,
        "outputs": outputs,
        "seconds": round(seconds, 3),
        "log": str(game_log.relative_to(out)),
        "replay": replay,
    }


def write_replay(
    out: Path, path: Path, name: str, seats: list[str], game_order: list[int | None]
) -> str | None:
    """The replay page of the game logged at ``path`` (in ``out``/replays/, its path there), or
    None when there is no log or it cannot be drawn."""
    from fish.replay import render_html

    if not path.is_file():
        return None
    teams = [seats[seat] if seat is not None else "?" for seat in game_order]
    try:
        page, _ = render_html(path, standings="../index.html", players=teams)
    except Exception:
        return None
    target = out / "replays" / f"{name}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return str(target.relative_to(out))
