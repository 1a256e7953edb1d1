"""The teams file of ``arena tournament`` (TOML): read and checked, pure apart from reading it.

Every problem is one :class:`TeamsError` line naming the file and the field (``team[2].dir``),
which the command prints before exiting 2. Relative ``dir`` paths, and the file of a
``builtin = "path/file.py:Class"``, are relative to the file's folder. A ``builtin`` name is
checked by the :class:`Players` the caller hands in (the command line's: the built-in strategies
and the one plug-in loader, :mod:`sim.plugins`); without one it is kept as written.
See docs/tournament.md for the format.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from dungeon.config import DEFAULT_RULES, RulesConfig
from dungeon.facts import GAME_TYPE as DUNGEON
from fish.rules import GAME_TYPE as FISH
from labyrinth.rules import GAME_TYPE as LABYRINTH
from penguins.facts import GAME_TYPE as PENGUINS

__all__ = [
    "FORMATS",
    "PLACEHOLDERS",
    "MatchTicket",
    "Players",
    "Team",
    "TeamsError",
    "Tournament",
    "load_teams",
    "parse_teams",
]

FORMATS = ("round-robin", "swiss", "knockout", "fish-knockout")
#: The games a tournament can be of (spec tournament.md, turn 3), each by its declared facts.
FACTS = {facts.name: facts for facts in (DUNGEON, PENGUINS, LABYRINTH, FISH)}
GAMES = tuple(FACTS)
#: The most programs a tournament's game seats (spec tournament.md), whatever the game allows.
MOST_SEATS = 4
#: Each game's own options: ``[tournament]`` keys, their defaults and lowest values.
GAME_OPTIONS: dict[str, dict[str, tuple[float, float]]] = {
    "dungeon": {},
    "penguins": {"rows": (10, 2), "cols": (10, 2), "penguins": (0, 0), "call_seconds": (2.0, 0.1)},
    "labyrinth": {"call_seconds": (10.0, 0.1), "max_turns": (0, 0)},
    "fish": {
        "rows": (5, 1),
        "cols": (5, 1),
        "fish": (2, 1),
        "holes": (0, 0),
        "call_seconds": (3.0, 0.1),
    },
}
#: Every game's option keys (a game refuses the others').
OPTION_KEYS = {key for options in GAME_OPTIONS.values() for key in options} | {"rules"}
#: The placeholders of a game's command (Penguins: none, the course's arguments only).
GAME_PLACEHOLDERS = {
    "dungeon": ("host", "port", "team", "match", "token"),
    "penguins": (),
    "labyrinth": ("host", "port", "name"),
    "fish": ("host", "port", "name"),
}
#: Seats a game has by default (spec tournament.md: a Fish game seats 4).
DEFAULT_SEATS = {"fish": 4}
SEEDINGS = ("order", "round-robin")
NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}\Z")
PLACEHOLDERS = ("host", "port", "team", "match", "token")
_PLACEHOLDER = re.compile(r"\{([a-z]*)\}")
_TOURNAMENT_KEYS = {
    "name", "format", "games_per_pair", "seed", "match_seconds", "config", "rounds", "seeding",
    "connect_seconds", "memory_mb", "cpu_seconds", "game", "players_per_game", *OPTION_KEYS,
}  # fmt: skip
_TEAM_KEYS = {"name", "dir", "command", "builtin", "env"}


class TeamsError(ValueError):
    """A teams file that cannot be used; the text names the file and the field."""


@dataclass(frozen=True)
class Team:
    name: str
    #: An external program: its folder (absolute) and argv template; or None for a built-in.
    dir: Path | None = None
    command: tuple[str, ...] = ()
    #: A built-in strategy name (or ``module:Class``) the tournament runs itself.
    builtin: str | None = None
    env: tuple[tuple[str, str], ...] = ()

    @property
    def external(self) -> bool:
        return self.builtin is None


@dataclass(frozen=True)
class Tournament:
    name: str
    format: str
    games_per_pair: int
    seed: int
    match_seconds: float
    config: RulesConfig
    teams: tuple[Team, ...]
    #: Swiss: how many rounds (default: ceil(log2(teams)) + 1, at most teams - 1).
    rounds: int | None = None
    #: Knockout: bracket seeds in file order, or by a round robin played first.
    seeding: str = "order"
    #: Seconds a program has, from its start, to connect its six sockets.
    connect_seconds: float = 10.0
    memory_mb: int = 1024
    cpu_seconds: int | None = None
    #: The raw ``[tournament]`` table: a resumed run must have been started from the same one.
    raw: dict[str, Any] = field(default_factory=dict, compare=False)
    #: Which game (:data:`GAMES`) and how many programs a game seats.
    game: str = "dungeon"
    players_per_game: int = 2
    #: The game's own options (Penguins: rows, cols, penguins (0: by board size), call_seconds).
    options: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def names(self) -> list[str]:
        return [team.name for team in self.teams]


@dataclass(frozen=True)
class MatchTicket:
    """What a program is told: where the server is and which slots of which match are its."""

    host: str
    port: int
    seat: int
    match: str
    token: str

    def values(self) -> dict[str, str]:
        return {
            "host": self.host,
            "port": str(self.port),
            "team": str(self.seat),
            "match": self.match,
            "token": self.token,
        }


class Players(Protocol):
    """The built-in players, handed in by the caller (the server never imports the client)."""

    def resolve(self, game: str, name: str) -> str:
        """``name`` as a run keeps it (a strategy of one's own: its file path absolute);
        ValueError (one line) for an unknown name or a broken strategy."""
        ...

    async def play_dungeon(self, name: str, ticket: MatchTicket, seed: int) -> str | None:
        """Play one dungeon match as the built-in ``name`` (``seed``: the game's); None when
        it played to the end, else the one-line failure."""
        ...


def load_teams(path: Path, players: Players | None = None) -> Tournament:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TeamsError(f"{path}: cannot read it: {error.strerror}") from None
    except UnicodeDecodeError:
        raise TeamsError(f"{path}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TeamsError(f"{path}: not TOML: {error}") from None
    return parse_teams(data, base=path.parent, source=str(path), players=players)


def _fail(source: str, where: str, text: str) -> TeamsError:
    return TeamsError(f"{source}: {where}: {text}")


def _shown(text: object) -> str:
    """A key or path the file gave, for an error line: as it is when it is a plain word (or
    printable path), quoted with its escapes otherwise (a newline would break the line)."""
    text = str(text)
    return text if text and text.isprintable() else repr(text)


def _number(
    table: dict[str, Any], key: str, source: str, *, default: Any, kind: type, low: float
) -> Any:
    value = table.get(key, default)
    ok = isinstance(value, kind) or (kind is float and isinstance(value, int))
    if isinstance(value, bool) or not ok or value < low:
        raise _fail(source, f"tournament.{key}", f"wants a number >= {low:g}, got {value!r}")
    return value


def parse_teams(
    data: dict[str, Any], *, base: Path, source: str = "teams file", players: Players | None = None
) -> Tournament:
    """The tournament a parsed TOML document describes; raises TeamsError naming the field."""
    table = data.get("tournament")
    if not isinstance(table, dict):
        raise _fail(source, "[tournament]", "the table is missing")
    for key in table:
        if key not in _TOURNAMENT_KEYS:
            raise _fail(source, f"tournament.{_shown(key)}", "unknown field")
    for key in data:
        if key not in {"tournament", "team"}:
            raise _fail(source, _shown(key), "unknown table (want [tournament] and [[team]])")
    name = table.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise _fail(source, "tournament.name", f"wants 1-32 of [A-Za-z0-9_-], got {name!r}")
    game = table.get("game", "dungeon")
    if game not in GAMES:
        raise _fail(source, "tournament.game", f"wants one of {', '.join(GAMES)}, got {game!r}")
    own = {*GAME_OPTIONS[game], *(("rules",) if game == "labyrinth" else ())}
    others = OPTION_KEYS - own
    if game == "penguins":
        others |= {"config", "connect_seconds", "match_seconds"}
    elif game in ("labyrinth", "fish"):
        others |= {"config"}
    for key in sorted(others):
        if key in table:
            raise _fail(source, f"tournament.{key}", f"is not an option of a {game} tournament")
    seats = _number(
        table, "players_per_game", source, default=DEFAULT_SEATS.get(game, 2), kind=int, low=2
    )
    least, most = FACTS[game].min_players, min(MOST_SEATS, FACTS[game].max_players)
    if not least <= seats <= most:
        raise _fail(source, "tournament.players_per_game", f"wants {least}-{most}, got {seats}")
    options: dict[str, Any] = {}
    for key, (default, low) in GAME_OPTIONS[game].items():
        kind = float if isinstance(default, float) else int
        options[key] = _number(table, key, source, default=default, kind=kind, low=low)
    if game == "labyrinth":
        from labyrinth.rules import PROFILES

        options["rules"] = table.get("rules", "spec")
        if options["rules"] not in PROFILES:
            known = ", ".join(sorted(PROFILES))
            raise _fail(
                source, "tournament.rules", f"wants one of {known}, got {options['rules']!r}"
            )
    if game == "penguins":
        each = options["penguins"] or 1
        if each * seats > options["rows"] * options["cols"]:
            raise _fail(
                source, "tournament.penguins",
                f"{each} penguins for each of {seats} players do not fit on the board",
            )  # fmt: skip
    form = table.get("format", "round-robin")
    if form not in FORMATS:
        raise _fail(source, "tournament.format", f"wants one of {', '.join(FORMATS)}, got {form!r}")
    games = _number(table, "games_per_pair", source, default=seats, kind=int, low=2)
    if games % seats and form != "fish-knockout":
        raise _fail(
            source, "tournament.games_per_pair",
            f"must be a multiple of {seats} (every program plays every seat), got {games}",
        )  # fmt: skip
    if form == "fish-knockout" and game != "fish":
        raise _fail(source, "tournament.format", 'fish-knockout is a format of game = "fish"')
    if seats > 2 and form not in ("round-robin", "fish-knockout"):
        raise _fail(source, "tournament.format", f"games of {seats} seats play round-robin only")
    seed = _number(table, "seed", source, default=1, kind=int, low=0)
    seconds = float(_number(table, "match_seconds", source, default=120, kind=float, low=0.1))
    connect = float(_number(table, "connect_seconds", source, default=10, kind=float, low=0.1))
    memory = _number(table, "memory_mb", source, default=1024, kind=int, low=16)
    cpu = table.get("cpu_seconds")
    if cpu is not None:
        cpu = _number(table, "cpu_seconds", source, default=None, kind=int, low=1)
    rounds = table.get("rounds")
    if rounds is not None:
        rounds = _number(table, "rounds", source, default=None, kind=int, low=1)
    seeding = table.get("seeding", "order")
    if seeding not in SEEDINGS:
        raise _fail(
            source, "tournament.seeding", f"wants one of {', '.join(SEEDINGS)}, got {seeding!r}"
        )
    overrides = table.get("config", {})
    if not isinstance(overrides, dict):
        raise _fail(source, "tournament.config", "wants a table such as { nodes = 1000 }")
    try:
        config = DEFAULT_RULES.replace(**overrides, draw_seconds=seconds)
    except (TypeError, ValueError) as error:
        raise _fail(source, "tournament.config", str(error)) from None
    raw_teams = data.get("team")
    if not isinstance(raw_teams, list) or len(raw_teams) < 2:
        raise _fail(source, "[[team]]", "at least two teams are needed")
    teams: list[Team] = []
    for index, raw in enumerate(raw_teams):
        team = _team(raw, index, base, source, game, players)
        if team.name in {t.name for t in teams}:
            raise _fail(source, f"team[{index}].name", f"{team.name!r} is used twice")
        teams.append(team)
    if seats > len(teams):
        raise _fail(source, "tournament.players_per_game", f"{seats} seats but {len(teams)} teams")
    return Tournament(
        name=name,
        format=form,
        games_per_pair=games,
        seed=seed,
        match_seconds=seconds,
        config=config,
        teams=tuple(teams),
        rounds=rounds,
        seeding=seeding,
        connect_seconds=connect,
        memory_mb=memory,
        cpu_seconds=cpu,
        raw=dict(table),
        game=game,
        players_per_game=seats,
        options=options,
    )


def _strategy(
    builtin: Any, base: Path, source: str, where: str, game: str, players: Players | None
) -> str:
    """A built-in strategy's name, or (the dungeon's) a strategy of one's own
    (``module:Class``, or ``path/file.py:Class`` relative to the teams file), its file path made
    absolute, checked by ``players``."""
    if not isinstance(builtin, str):
        raise _fail(source, where, f"wants a strategy name or module:Class, got {builtin!r}")
    file, colon, attribute = builtin.rpartition(":")
    relative = not Path(file).expanduser().is_absolute()
    if game == "dungeon" and colon and file.endswith(".py") and relative:
        builtin = f"{base / file}:{attribute}"
    if players is None:
        return str(builtin)
    try:
        return players.resolve(game, builtin)
    except ValueError as error:
        raise _fail(source, where, str(error)) from None


def _team(
    raw: Any, index: int, base: Path, source: str, game: str, players: Players | None
) -> Team:
    where = f"team[{index}]"
    if not isinstance(raw, dict):
        raise _fail(source, where, "wants a table")
    for key in raw:
        if key not in _TEAM_KEYS:
            raise _fail(source, f"{where}.{_shown(key)}", "unknown field")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise _fail(source, f"{where}.name", f"wants 1-32 of [A-Za-z0-9_-], got {name!r}")
    where = f"team[{index}] ({name})"
    builtin = raw.get("builtin")
    command = raw.get("command")
    if (builtin is None) == (command is None):
        raise _fail(source, where, "wants exactly one of 'command' and 'builtin'")
    if builtin is not None:
        strategy = _strategy(builtin, base, source, f"{where}.builtin", game, players)
        return Team(name=name, builtin=strategy)
    # An argument may be empty (the course's Labyrinth C client takes WAIT_GAME's options,
    # empty for a game against another program); the program may not.
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) for part in command)
        or not command[0]
    ):
        raise _fail(source, f"{where}.command", "wants a list of strings, the first the program")
    for part in command:
        for placeholder in _PLACEHOLDER.findall(part):
            if game == "penguins":
                raise _fail(
                    source, f"{where}.command",
                    f"{{{placeholder}}}: a Penguins program takes the course's arguments only",
                )  # fmt: skip
            if placeholder not in GAME_PLACEHOLDERS[game]:
                known = " ".join(f"{{{p}}}" for p in GAME_PLACEHOLDERS[game])
                raise _fail(
                    source,
                    f"{where}.command",
                    f"unknown placeholder {{{placeholder}}}; known: {known}",
                )
    folder = raw.get("dir")
    if not isinstance(folder, str) or not folder:
        raise _fail(source, f"{where}.dir", "wants the team's folder (a path)")
    path = (base / folder).resolve()
    if not path.is_dir():
        raise _fail(source, f"{where}.dir", f"{_shown(path)} is not a folder")
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise _fail(source, f"{where}.env", "wants a table of strings")
    return Team(name=name, dir=path, command=tuple(command), env=tuple(sorted(env.items())))
