"""The ladder's pages as HTML, built from :mod:`server.ladder.views` rows: pure functions, every
text a user wrote (names, reasons, outputs) escaped. :mod:`server.ladder.web` serves them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from server.ladder.views import LadderInfo, MatchRow, Standing, TeamView, VersionRow
from server.web import escape, page

__all__ = [
    "admin_page",
    "files_text",
    "ladder_page",
    "live_page",
    "live_rows",
    "match_page",
    "message_page",
    "nav",
    "output_page",
    "submit_page",
    "team_page",
]

#: The one sentence that explains the rating column (the same words as the tournament's).
RATING_NOTE = (
    "The rating is an openskill estimate of a version's strength from every match it played; "
    "the interval (mu \u00b1 2 sigma) holds its true strength with about 95% confidence, and the "
    "ladder ranks by the interval's low end, so a new version climbs as its games confirm it."
)
DOT = " \u00b7 "
STATE_NOTES = {
    "running": "matches are being played",
    "paused": "no new match starts (the teacher paused the ladder)",
    "frozen": "frozen for grading: no match, no submission, no rating changes",
}


def when(seconds: float | None) -> str:
    """A moment as UTC date and minute, or a dash."""
    if seconds is None:
        return "\u2013"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(seconds)) + " UTC"


def rating(mu: float | None, sigma: float | None) -> str:
    if mu is None or sigma is None:
        return "<span class='muted'>no games yet</span>"
    return f"{mu:.1f} <span class='muted'>[{mu - 2 * sigma:.1f}, {mu + 2 * sigma:.1f}]</span>"


def cpu_text(cpu: dict[str, Any] | None) -> str:
    """ "12.3 CPU-s, 41 ms a move", or a dash when the match was not measured."""
    if cpu is None:
        return "\u2013"
    text = f"{float(cpu.get('seconds') or 0.0):.1f} CPU-s"
    if cpu.get("per_request") is not None:
        text += f", {float(cpu['per_request']) * 1000:.0f} ms a move"
    return text


def nav() -> str:
    links = (("/", "ladder"), ("/live", "live"), ("/submit", "submit"), ("/admin", "teacher"))
    return "".join(f"<a href='{href}'>{text}</a>" for href, text in links)


def _page(title: str, body: str, head: str = "") -> str:
    return page(title, head + body, nav=nav(), styles=("/ladder/ladder.css",))


def _team(name: str) -> str:
    return f"<a href='/teams/{escape(name)}'>{escape(name)}</a>"


def _state(info: LadderInfo) -> str:
    note = STATE_NOTES.get(info.state, "")
    return f"<span class='state state-{escape(info.state)}'>{escape(info.state)}</span> {note}"


def _players(match: MatchRow) -> str:
    return " vs ".join(f"{_team(seat.team)} v{seat.version}" for seat in match.seats)


def _outcome(match: MatchRow, team: str | None = None) -> str:
    text = escape(match.outcome(team))
    if match.state == "done" and team is not None:
        won = any(seat.team == team and seat.rank == 0 for seat in match.seats)
        css = "good" if won and "won" in text else ("bad" if "lost" in text else "")
        return f"<span class='{css}'>{text}</span>"
    return text


def _match_links(match: MatchRow) -> str:
    links = [f"<a href='/matches/{match.id}'>match {match.id}</a>"]
    if match.replay_hash:
        links.append(f"<a href='/matches/{match.id}/replay'>replay</a>")
    return DOT.join(links)


def _matches_table(matches: Sequence[MatchRow], team: str | None = None) -> str:
    if not matches:
        return "<p class='muted'>No match yet.</p>"

    def cpu(match: MatchRow) -> str:
        seats = [seat.seat for seat in match.seats if seat.team == team]
        return f"<td>{cpu_text(match.cpu(seats[0]))}</td>" if seats else ""

    rows = "".join(
        f"<tr><td>{_match_links(match)}</td><td>{_players(match)}</td>"
        f"<td>{_outcome(match, team)}</td>{cpu(match)}"
        f"<td>{when(match.finished or match.started)}</td></tr>"
        for match in matches
    )
    cpu_head = "<th>its CPU</th>" if team is not None else ""
    return (
        "<table class='matches'><thead><tr><th>match</th><th>players</th><th>result</th>"
        f"{cpu_head}<th>when</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def ladder_page(
    info: LadderInfo, table: Sequence[Standing], recent: Sequence[MatchRow], login: str = ""
) -> str:
    rows = "".join(
        f"<tr><td class='num'>{row.rank}</td><td>{_team(row.team)}</td>"
        f"<td>{'v' + str(row.version) if row.version else '<span class=muted>none</span>'}</td>"
        f"<td>{rating(row.mu, row.sigma)}</td><td class='num'>{row.games}</td>"
        f"<td class='num'>{row.wins}/{row.draws}/{row.losses}</td><td>{when(row.changed)}</td></tr>"
        for row in table
    )
    body = (
        f"<h1>{escape(info.name)} <span class='muted'>\u00b7 a {escape(info.game)} ladder</span>"
        f"</h1><p>{_state(info)} \u00b7 {info.teams} teams \u00b7 {info.matches_done} matches "
        f"played, {info.matches_running} running, {info.matches_queued} queued</p>"
        "<table id='standings' class='standings'><thead><tr><th>rank</th><th>team</th>"
        "<th>version</th><th>rating \u00b1 interval</th><th>games</th><th>W/D/L</th>"
        f"<th>last change</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<p class='muted note'>{RATING_NOTE}</p>"
        f"<h2>Latest matches</h2>{_matches_table(recent[:10])}"
    )
    return _page(f"{info.name}: ladder", body, login)


def _version_rows(team: TeamView, can_see: bool) -> str:
    def output(version: VersionRow) -> str:
        if not (version.build_output_hash or version.preflight_output_hash):
            return "<span class='muted'>none</span>"
        href = f"/teams/{escape(team.name)}/versions/{version.number}"
        return f"<a href='{href}'>output</a>" if can_see else "<span class='muted'>hidden</span>"

    def preflight(version: VersionRow) -> str:
        if version.preflight is None:
            return "<span class='muted'>\u2013</span>"
        passed = version.preflight.get("passed")
        return "<span class='good'>passed</span>" if passed else "<span class='bad'>failed</span>"

    return "".join(
        f"<tr class='status-{escape(version.status)}'><td>v{version.number}</td>"
        f"<td>{escape(version.status)}</td><td>{escape(version.reason or '')}</td>"
        f"<td>{preflight(version)}</td><td>{rating(version.mu, version.sigma)}</td>"
        f"<td class='num'>{version.games}</td><td>{files_text(version.files, version.size)} "
        f"({escape(version.source)})</td>"
        f"<td>{when(version.submitted)}</td><td>{output(version)}</td></tr>"
        for version in team.versions
    )


def files_text(files: int, size: int) -> str:
    """ "1 file, 812 B", "3 files, 12.4 KiB", "40 files, 2.1 MiB"."""
    count = f"{files} file" + ("" if files == 1 else "s")
    if size < 1024:
        return f"{count}, {size} B"
    if size < 1024 * 1024:
        return f"{count}, {size / 1024:.1f} KiB"
    return f"{count}, {size / 1024 / 1024:.1f} MiB"


def team_login_form(team: str, message: str = "") -> str:
    note = f"<p class='error bad'>{escape(message)}</p>" if message else ""
    return (
        f"<div class='card login'>{note}<form method='post' action='/teams/{escape(team)}/login'>"
        "<label>Your team's token shows your builds' and programs' output: "
        "<input type='password' name='token' autocomplete='current-password' required></label> "
        "<button>Show my output</button></form></div>"
    )


def team_page(team: TeamView, can_see: bool, message: str = "", logged_in: bool = False) -> str:
    """``can_see``: the visitor sees the team's output (its login, or the teacher's);
    ``logged_in``: through the team's own login, which the page then offers to end."""
    active = team.active
    head = (
        f"<h1>{escape(team.name)}</h1><p>active version: "
        + (f"v{active.number}, rated {rating(active.mu, active.sigma)}" if active else "none")
        + "</p>"
    )
    if logged_in:
        access = _team_logout_form(team.name)
    elif can_see:
        access = f"<p class='muted'>You see {escape(team.name)}'s output as the teacher.</p>"
    else:
        access = team_login_form(team.name, message)
    body = (
        "<h2>Versions</h2><table class='versions'><thead><tr><th>version</th><th>status</th>"
        "<th>why</th><th>pre-flight</th><th>rating \u00b1 interval</th><th>games</th>"
        "<th>files</th><th>submitted</th><th>output</th></tr></thead>"
        f"<tbody>{_version_rows(team, can_see)}</tbody></table>"
        + access
        + f"<h2>Matches</h2>{_matches_table(team.matches, team.name)}"
    )
    return _page(f"{team.name}: team", head + body)


def _team_logout_form(team: str) -> str:
    name = escape(team)
    return (
        f"<div class='card login'><form method='post' action='/teams/{name}/logout'>"
        f"Logged in as <b>{name}</b> in this browser: you see its builds' and programs' "
        "output. <button class='secondary'>Log out of this team</button></form>"
        f"<p class='muted note'>Logging out ends every login of {name}, on every machine "
        "(a copy of this browser's login too); your team's token logs you in again.</p></div>"
    )


def output_page(title: str, sections: Sequence[tuple[str, str]]) -> str:
    """A page of captured outputs: each ``(heading, text)`` shown as escaped preformatted text."""
    parts = "".join(
        f"<h2>{escape(heading)}</h2><pre>{escape(text) or '<i>(empty)</i>'}</pre>"
        for heading, text in sections
    )
    return _page(title, f"<h1>{escape(title)}</h1>{parts}")


def match_page(match: MatchRow, can_see: Sequence[int]) -> str:
    """``can_see``: the seats whose captured output this visitor may open."""
    rows = "".join(
        f"<tr><td>{seat.seat}</td><td>{_team(seat.team)}</td><td>v{seat.version}</td>"
        f"<td class='num'>{'' if seat.points is None else f'{seat.points:g}'}</td>"
        f"<td>{escape(seat.reason or '')}</td><td>{escape(seat.detail or '')}</td>"
        f"<td>{cpu_text(match.cpu(seat.seat))}</td><td>"
        + (
            f"<a href='/matches/{match.id}/output/{seat.seat}'>output</a>"
            if seat.output_hash and seat.seat in can_see
            else "<span class='muted'>\u2013</span>"
        )
        + "</td></tr>"
        for seat in match.seats
    )
    links = []
    if match.replay_hash:
        links.append(f"<a href='/matches/{match.id}/replay'>watch the replay</a>")
    if match.log_hash:
        links.append(f"<a href='/matches/{match.id}/log'>download the log</a>")
    rerun = ""
    if match.replaces is not None:
        rerun = (
            f"<p>This match re-runs <a href='/matches/{match.replaces}'>match {match.replaces}"
            f"</a>: {escape(match.why or '')}</p>"
        )
    body = (
        f"<h1>Match {match.id}: {_outcome(match)}</h1>{rerun}"
        f"<p>{escape(match.state)} \u00b7 seed {match.seed} \u00b7 started {when(match.started)}"
        f" \u00b7 finished {when(match.finished)}</p>"
        "<table class='seats'><thead><tr><th>seat</th><th>team</th><th>version</th>"
        "<th>points</th><th>reason</th><th>detail</th><th>CPU</th><th>output</th></tr></thead>"
        f"<tbody>{rows}</tbody></table><p>{DOT.join(links)}</p>"
    )
    return _page(f"match {match.id}", body)


def submit_page(teams: Sequence[str], message: str = "", good: bool = False) -> str:
    note = ""
    if message:
        note = f"<pre class='{'good' if good else 'bad'} result'>{escape(message)}</pre>"
    body = (
        "<h1>Submit a version</h1>"
        "<p>Upload your program: one file, or a zip of its folder (with a <code>program.toml</code>"
        " naming its <code>command</code> and <code>build</code> when it needs them). It is built "
        "and checked by a short game before it plays; only a version that passes becomes your "
        "active one.</p>"
        f"{note}<form class='card' method='post' action='/submit' enctype='multipart/form-data'>"
        "<p><label>Team token <input type='password' name='token' required "
        "autocomplete='current-password'></label></p>"
        "<p><label>Program <input type='file' name='program' required></label></p>"
        "<p><button>Submit</button></p></form>"
        f"<p class='muted'>{len(teams)} teams in this class.</p>"
    )
    return _page("submit a version", body)


def admin_page(
    info: LadderInfo,
    teams: Sequence[TeamView],
    csrf: str,
    audit: Sequence[tuple[float, str, str, str]],
    message: str = "",
) -> str:
    hidden = f"<input type='hidden' name='csrf' value='{escape(csrf)}'>"
    states = "".join(
        f"<form method='post' action='/admin/state' class='inline'>{hidden}"
        f"<input type='hidden' name='action' value='{action}'>"
        f"<button{' disabled' if info.state == state else ''}>{action}</button></form>"
        for action, state in (("resume", "running"), ("pause", "paused"), ("freeze", "frozen"))
    )
    options = "".join(
        f"<option value='{escape(team.name)}/{version.number}'>{escape(team.name)} "
        f"v{version.number} ({escape(version.status)})</option>"
        for team in teams
        for version in team.versions
        if version.status in ("active", "inactive", "failed")
    )
    bundles = " ".join(
        f"<a href='/admin/bundles/{escape(team.name)}.zip'>{escape(team.name)}</a>"
        for team in teams
    )
    log = "".join(
        f"<tr><td>{when(at)}</td><td>{escape(actor)}</td><td>{escape(action)}</td>"
        f"<td><code>{escape(detail)}</code></td></tr>"
        for at, actor, action, detail in audit
    )
    note = f"<p class='card'>{escape(message)}</p>" if message else ""
    body = (
        f"<h1>Teacher's page: {escape(info.name)}</h1>{note}<p>{_state(info)}</p>"
        f"<div class='actions'>{states}</div>"
        "<h2>Re-run a match</h2>"
        f"<form method='post' action='/admin/rerun'>{hidden}"
        "<label>match <input name='match' inputmode='numeric' size='6' required></label> "
        "<label>why <input name='why' size='40' required></label> <button>Re-run</button></form>"
        "<h2>Retire a version</h2>"
        f"<form method='post' action='/admin/retire'>{hidden}<select name='version'>{options}"
        "</select> <label>why <input name='why' size='40' required></label> "
        "<button>Retire</button></form>"
        "<h2>Grades and evidence</h2><p><a href='/admin/grades.csv'>grades.csv</a> "
        f"\u00b7 a bundle per team (logs, outputs, a report): {bundles}</p>"
        "<h2>Audit</h2><table><thead><tr><th>when</th><th>who</th><th>what</th><th>detail</th>"
        f"</tr></thead><tbody>{log}</tbody></table>"
        "<form method='post' action='/logout'>"
        f"{hidden}<button>Log out</button></form>"
    )
    return _page("teacher's page", body)


def live_rows(matches: Sequence[MatchRow], now: float) -> str:
    if not matches:
        return "<tr><td colspan='3' class='muted'>No match is being played now.</td></tr>"
    return "".join(
        f"<tr><td><a href='/matches/{match.id}'>match {match.id}</a></td>"
        f"<td>{_players(match)}</td>"
        f"<td class='num'>{max(0.0, now - (match.started or now)):.0f} s</td></tr>"
        for match in matches
    )


def live_page(info: LadderInfo, matches: Sequence[MatchRow], now: float) -> str:
    body = (
        f"<h1>Live: {escape(info.name)} <span class='live'>live</span></h1>"
        f"<p id='ladder-state'>{_state(info)}</p>"
        "<table class='live-matches'><thead><tr><th>match</th><th>players</th><th>playing for"
        f"</th></tr></thead><tbody id='live-rows'>{live_rows(matches, now)}</tbody></table>"
        f"<p class='muted' id='live-counts'>{info.matches_done} played \u00b7 "
        f"{info.matches_queued} queued</p>"
    )
    return page(
        f"{info.name}: live",
        body,
        nav=nav(),
        scripts=("/ladder/ladder.js",),
        styles=("/ladder/ladder.css",),
    )


def message_page(title: str, message: str, status_class: str = "") -> str:
    return _page(title, f"<h1>{escape(title)}</h1><p class='{status_class}'>{escape(message)}</p>")
