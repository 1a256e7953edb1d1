"""What a tournament leaves in its output folder: results.json and results.csv (sealed),
index.html, ratings.png and a folder per team (``teams/NAME/``: its report.html and program
outputs). The pages are self-contained: inline style, no script, no network, the ratings chart
inlined; they link to the replay pages and logs beside them."""

from __future__ import annotations

import base64
import html
import json
import os
import shutil
from pathlib import Path
from typing import Any

from replay.keyfile import default_key_path, load_key
from replay.seal import seal
from server.competition.report import REASONS, rating_interval, results_csv

__all__ = ["arrival_note", "cpu_table", "cpu_texts", "index_html", "write_bundles", "write_outputs"]


#: How much of one program output a team's report.html shows inline (the file has it all).
INLINE_OUTPUT = 16 * 1024


def _place(source: Path, target: Path) -> bool:
    """``target`` as a link to (or a copy of) ``source``; False when there is no source."""
    if not source.is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
    return True


def write_bundles(out: Path, data: dict[str, Any]) -> None:
    """``teams/NAME/``: each team's match logs (``logs/``), its program's outputs
    (``outputs/``) and a one-page ``report.html``, to hand each student their own evidence."""
    for row in data["teams"]:
        team = row["team"]
        folder = out / "teams" / team
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        parts = [
            f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_e(team)}: "
            f"{_e(data['tournament'])}</title><style>{_STYLE}pre{{white-space:pre-wrap;"
            "background:#f1f5f9;padding:.5em;max-height:30em;overflow:auto}</style></head><body>"
            f"<p><a href='../../index.html'>the standings</a></p><h1>{_e(team)}</h1>"
            f"<p>{_e(data['tournament'])}: rank {row['rank']} of {len(data['teams'])}, "
            f"{row['points']:g} points, {row['wins']} won, {row['draws']} drawn, "
            f"{row['losses']} lost; rating {row['mu']:.1f} +- {2 * row['sigma']:.1f}.</p>",
            "<h2>Failures</h2>",
        ]
        if not row["failures"]:
            parts.append("<p>None.</p>")
        else:
            parts.append("<ul>")
            parts.extend(
                f"<li>{_e(f['match'])}: <b>{_e(f['reason'])}</b> ({_e(f['detail'])}) "
                f"<small>{_e(REASONS.get(f['reason'], ''))}</small></li>"
                for f in row["failures"]
            )
            parts.append("</ul>")
        parts.append(
            "<h2>Matches</h2><table><tr><th>match</th><th>teams by seat</th><th>result</th>"
            "<th>log</th><th>replay</th></tr>"
        )
        outputs: list[tuple[str, str]] = []
        for record in data["matches"]:
            if team not in record["seats"]:
                continue
            log = ""
            if record.get("log"):
                source = out / record["log"]
                target = folder / "logs" / f"{record['name']}-{source.name}"
                if _place(source, target):
                    log = f"<a href='logs/{_e(target.name)}'>log</a>"
            replay = (
                f"<a href='../../{_e(record['replay'])}'>replay</a>" if record.get("replay") else ""
            )
            parts.append(
                f"<tr><td>{_e(record['name'])}</td><td>{_e(', '.join(record['seats']))}</td>"
                f"<td>{_e(record['result'])}</td><td>{log}</td><td>{replay}</td></tr>"
            )
            seat = record["seats"].index(team)
            path = _outputs(record)[seat]
            if path and _place(out / path, folder / "outputs" / Path(path).name):
                outputs.append((record["name"], Path(path).name))
        parts.append("</table><h2>Your program's output</h2>")
        if not outputs:
            parts.append("<p>None kept (a built-in team, or nothing written).</p>")
        for match, file in outputs:
            data_bytes = (folder / "outputs" / file).read_bytes()
            more = len(data_bytes) > INLINE_OUTPUT
            text = data_bytes[:INLINE_OUTPUT].decode("utf-8", "replace")
            parts.append(
                f"<h3>{_e(match)} <small><a href='outputs/{_e(file)}'>{_e(file)}</a></small></h3>"
                f"<pre>{_e(text)}{'&#10;[... cut: the file holds the rest]' if more else ''}</pre>"
            )
        parts.append("</body></html>\n")
        (folder / "report.html").write_text("".join(parts), encoding="utf-8")


def write_outputs(out: Path, data: dict[str, Any]) -> None:
    """results.json, results.csv, ratings.png, index.html and ``teams/NAME/`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (out / "results.csv").write_text(results_csv(data), encoding="utf-8")
    # Sealed with the key of the run's match logs: a results file edited by hand fails
    # `arena replay verify --key` (docs/security.md).
    key = load_key(default_key_path(out / "logs"), create=True)
    for name in ("results.json", "results.csv"):
        seal(out / name, key)
    write_bundles(out, data)
    _ratings_png(data["teams"], out / "ratings.png")
    png = base64.b64encode((out / "ratings.png").read_bytes()).decode("ascii")
    (out / "index.html").write_text(index_html(data, png), encoding="utf-8")


def _ratings_png(teams: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(teams, key=lambda row: row["mu"])
    figure, axes = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2), dpi=100)
    names = [row["team"] for row in rows]
    mus = [row["mu"] for row in rows]
    errors = [2 * row["sigma"] for row in rows]
    axes.errorbar(mus, range(len(rows)), xerr=errors, fmt="o", capsize=4, color="#2563eb")
    axes.set_yticks(range(len(rows)), names)
    axes.set_xlabel("openskill rating mu, bars +-2 sigma")
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#0f172a;
  padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #cbd5e1;padding:.25em .6em}
th{background:#f1f5f9}td.n{text-align:right;font-variant-numeric:tabular-nums}
.win{background:#dcfce7}.loss{background:#fee2e2}.draw{background:#fef9c3}
.bracket{display:flex;gap:2em}
.bracket div{display:flex;flex-direction:column;justify-content:space-around}
.tie{border:1px solid #94a3b8;border-radius:6px;padding:.3em .6em;margin:.3em 0}
.tie b{color:#15803d}small{color:#475569}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def index_html(data: dict[str, Any], png: str = "") -> str:
    """The tournament's page: standings, head to head, failures, bracket, every match."""
    per = "pair" if data.get("players_per_game", 2) == 2 else "group"
    parts = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_e(data['tournament'])}"
        f"</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(data['tournament'])}</h1><p>{_e(data.get('game', 'dungeon'))}, "
        f"{_e(data['format'])}, {data['games_per_pair']} games per {per}, seed {data['seed']}, "
        f"{len(data['matches'])} matches"
        f"{'' if data['complete'] else ' (unfinished: run again with --resume)'}.</p>",
        "<h2>Standings</h2><p><small>Rating: openskill's estimate of a team's strength from "
        "every result; the interval (mu +- 2 sigma) holds its true strength with about 95% "
        "confidence, so two teams whose intervals overlap are not told apart yet.</small></p>"
        "<table id=standings><tr><th>#</th><th>team</th><th>played</th>"
        "<th>W</th><th>D</th><th>L</th><th>points</th><th>rating +- interval</th>"
        "<th>failures</th></tr>",
    ]
    parts.extend(_standings_row(row) for row in data["teams"])
    parts.append("</table>")
    if data.get("preflight"):
        parts.append(
            _preflight_table(data["preflight"], data["teams"], data.get("game", "dungeon"))
        )
    parts.append(cpu_table(data))
    parts.append(arrival_note(data))
    if png:
        parts.append(f"<p><img src='data:image/png;base64,{png}' alt='ratings, +-2 sigma'></p>")
    if "bracket" in data:
        parts.append(_bracket(data))
    parts.append(_head_to_head(data))
    parts.append("<h2>Failures</h2>")
    failing = [row for row in data["teams"] if row["failures"]]
    if not failing:
        parts.append("<p>None: every program played every match to its end.</p>")
    outputs = {
        (record["name"], team): path
        for record in data["matches"]
        for team, path in zip(record["seats"], _outputs(record), strict=True)
    }
    for team, check in (data.get("preflight") or {}).items():  # the check's own output
        if check.get("output"):
            outputs[("preflight", team)] = check["output"]
    for row in failing:
        parts.append(f"<h3>{_e(row['team'])}</h3><ul>")
        for failure in row["failures"]:
            output = outputs.get((failure["match"], row["team"]))
            link = f" <a href='{_e(output)}'>its output</a>" if output else ""
            parts.append(
                f"<li><a href='#{_e(failure['match'])}'>{_e(failure['match'])}</a>: "
                f"<b>{_e(failure['reason'])}</b> ({_e(failure['detail'])}){link} "
                f"<small>{_e(REASONS.get(failure['reason'], ''))}</small></li>"
            )
        parts.append("</ul>")
    parts.append(
        "<h2>Matches</h2><table id=matches><tr><th>match</th><th>round</th>"
        "<th>teams by seat (output)</th><th>result</th><th>details</th><th>seconds</th>"
        "<th>seed</th><th>replay</th><th>log</th></tr>"
    )
    parts.extend(_match_row(record) for record in data["matches"])
    parts.append("</table></body></html>\n")
    return "".join(parts)


#: What each game's pre-flight did, in a sentence (docs/tournament.md, Pre-flight).
PREFLIGHT_DONE = {
    "dungeon": "went through the checks of arena check-client (the same probe and verdicts)",
    "penguins": "played one short game against our greedy player",
    "labyrinth": "played one short game against our astar client",
    "fish": "played one short game against our greedy client",
}


def _preflight_table(
    checks: dict[str, dict[str, Any]], teams: list[dict[str, Any]], game: str
) -> str:
    """Each checked program's pre-flight: passed, or its reason, with its output."""
    left_out = {row["team"] for row in teams if row.get("left_out")}
    done = PREFLIGHT_DONE.get(game, "was checked")
    rows = [
        f"<h2>Pre-flight</h2><p><small>Before the first match each program {_e(done)}, "
        "sandboxed as in the tournament.</small></p>"
        "<table id=preflight><tr><th>team</th><th>check</th><th>why</th><th>output</th></tr>"
    ]
    for team, check in checks.items():
        verdict = "passed" if check["passed"] else f"failed: {check['reason']}"
        if team in left_out:
            verdict += " (left out)"
        why = "" if check["passed"] else check["detail"]
        output = f"<a href='{_e(check['output'])}'>output</a>" if check.get("output") else ""
        kind = "win" if check["passed"] else "loss"
        rows.append(
            f"<tr><td>{_e(team)}</td><td class={kind}>{_e(verdict)}</td><td>{_e(why)}</td>"
            f"<td>{output}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _outputs(record: dict[str, Any]) -> list[str | None]:
    """Each seat's captured output (a path in the output folder), or None."""
    paths = record.get("outputs")
    if paths:
        return list(paths)
    # The dungeon's runner names them by match and team.
    return [f"programs/{record['name']}-{team}.txt" for team in record["seats"]]


def _standings_row(row: dict[str, Any]) -> str:
    mu, low, high = rating_interval(row)
    return (
        f"<tr><td class=n>{row['rank']}</td>"
        f"<td><a href='teams/{_e(row['team'])}/report.html'>{_e(row['team'])}</a></td>"
        f"<td class=n>{row['played']}</td><td class=n>{row['wins']}</td>"
        f"<td class=n>{row['draws']}</td><td class=n>{row['losses']}</td>"
        f"<td class=n>{row['points']:g}</td><td class=n title='mu {mu:.2f}, sigma "
        f"{row['sigma']:.2f}'>{mu:.1f} +- {2 * row['sigma']:.1f} "
        f"<small>[{low:.1f}, {high:.1f}]</small></td>"
        f"<td class=n>{len(row['failures'])}</td></tr>"
    )


def _details(record: dict[str, Any]) -> str:
    if "fish" in record:
        return "fish " + " / ".join(str(n) for n in record["fish"])
    if "crossings" in record:
        return (
            f"crossings {record['crossings'][0]} / {record['crossings'][1]}, "
            f"deaths {record['deaths'][0]} / {record['deaths'][1]}"
        ) + "".join(f"; {text}" for text in cpu_texts(record))
    return ""


def cpu_texts(record: dict[str, Any]) -> list[str]:
    """A measured match's CPU, one text per team: "alpha used 12.3 CPU-s, 41 ms a move"."""
    texts = []
    for team, cpu in (record.get("cpu") or {}).items():
        text = f"{team} used {cpu['seconds']:.1f} CPU-s"
        if cpu.get("per_request") is not None:
            text += f", {cpu['per_request'] * 1000:.0f} ms a move"
        texts.append(text)
    return texts


def cpu_table(data: dict[str, Any]) -> str:
    """Each team's CPU over its measured matches (fair time, docs/fair-time.md); "" if none."""
    totals: dict[str, list[float]] = {}
    for record in data["matches"]:
        for team, cpu in (record.get("cpu") or {}).items():
            total = totals.setdefault(team, [0.0, 0.0, 0.0])
            total[0] += 1
            total[1] += cpu["seconds"]
            total[2] += cpu.get("requests") or 0
    if not totals:
        return ""
    rows = "".join(
        f"<tr><td>{_e(team)}</td><td class=n>{int(n)}</td><td class=n>{seconds:.1f}</td>"
        f"<td class=n>{seconds / n:.2f}</td>"
        f"<td class=n>{seconds / moves * 1000 if moves else 0:.0f}</td></tr>"
        for team, (n, seconds, moves) in sorted(totals.items())
    )
    return (
        "<h2>CPU</h2><p><small>Each program's CPU time (all its processes and threads) in the "
        "matches it played; requests were ordered by it (docs/fair-time.md).</small></p>"
        "<table id=cpu><tr><th>team</th><th>matches</th><th>CPU-s</th><th>CPU-s a match</th>"
        f"<th>ms a move</th></tr>{rows}</table>"
    )


def arrival_note(data: dict[str, Any]) -> str:
    """Once on the page, in plain words: how many dungeon matches were played in order of
    arrival because a team was built in (``time`` null in results.json); "" if none."""
    played = [
        r
        for r in data["matches"]
        if "crossings" in r and r.get("log") and "time" in r and r["time"] is None
    ]
    if not played:
        return ""
    n = len(played)
    return (
        f"<p id=arrival><small>{n} match{'es' if n != 1 else ''} with a built-in team "
        f"{'were' if n != 1 else 'was'} played in order of arrival, not by fair time: a "
        "built-in team runs inside the tournament's own process, whose CPU cannot be told "
        "from the server's (docs/fair-time.md).</small></p>"
    )


def _match_row(record: dict[str, Any]) -> str:
    replay = f"<a href='{_e(record['replay'])}'>replay</a>" if record.get("replay") else "(none)"
    log = f"<a href='{_e(record['log'])}'>log</a>" if record.get("log") else "(none)"
    seats = ", ".join(
        f"<a href='{_e(path)}'>{_e(team)}</a>" if path else _e(team)
        for team, path in zip(record["seats"], _outputs(record), strict=True)
    )
    replaced = ""
    if old := record.get("replaces"):
        replaced = (
            f" <small class=rerun>(re-run: {_e(old['why'])}; it replaced "
            f"&ldquo;{_e(old['result'])}&rdquo;)</small>"
        )
    return (
        f"<tr id='{_e(record['name'])}'><td>{_e(record['name'])}</td>"
        f"<td class=n>{record['round']}</td><td>{seats}</td>"
        f"<td>{_e(record['result'])}{replaced}</td><td>{_e(_details(record))}</td>"
        f"<td class=n>{record['seconds']:.1f}</td><td class=n>{record['seed']}</td>"
        f"<td>{replay}</td><td>{log}</td></tr>"
    )


def _head_to_head(data: dict[str, Any]) -> str:
    names = [row["team"] for row in data["teams"]]
    cells: dict[tuple[str, str], str] = {}
    for pair in data["pairs"]:
        low, high = pair["ci95"]
        for me, other, rate, lo, hi, w, d, lo_count in (
            (pair["a"], pair["b"], pair["win_rate"], low, high, pair["wins"], pair["draws"],
             pair["losses"]),
            (pair["b"], pair["a"], 1 - pair["win_rate"], 1 - high, 1 - low, pair["losses"],
             pair["draws"], pair["wins"]),
        ):  # fmt: skip
            kind = "win" if lo > 0.5 else "loss" if hi < 0.5 else "draw"
            cells[me, other] = (
                f"<td class={kind} title='W/D/L {w}/{d}/{lo_count}'>{rate:.2f} "
                f"<small>[{lo:.2f}, {hi:.2f}]</small></td>"
            )
    rows = [
        "<h2>Head to head</h2><p><small>Score of the row's team against the column's (win 1, "
        "draw 0.5; in a game of more seats, who finished ahead) with its 95% Wilson interval; "
        "green: better beyond doubt, red: worse beyond doubt, yellow: not enough games to "
        "tell them apart yet.</small></p><table id=head-to-head><tr><th></th>"
        + "".join(f"<th>{_e(n)}</th>" for n in names)
        + "</tr>"
    ]
    for me in names:
        row = "".join(cells.get((me, other), "<td></td>") for other in names)
        rows.append(f"<tr><th>{_e(me)}</th>{row}</tr>")
    rows.append("</table>")
    return "".join(rows)


def _bracket(data: dict[str, Any]) -> str:
    parts = ["<h2>Bracket</h2><div class=bracket id=bracket>"]
    for number, ties in enumerate(data["bracket"], start=1):
        parts.append(f"<div><h3>round {number}</h3>")
        for tie in ties:
            if tie["b"] is None:
                parts.append(f"<div class=tie><b>{_e(tie['a'])}</b> <small>(bye)</small></div>")
                continue
            sides = [
                f"<b>{_e(name)}</b>" if name == tie["winner"] else _e(name)
                for name in (tie["a"], tie["b"])
            ]
            score = f"{tie['points'][0]:g} - {tie['points'][1]:g}"
            parts.append(f"<div class=tie>{sides[0]} {score} {sides[1]}</div>")
        parts.append("</div>")
    if data.get("champion"):
        parts.append(f"<div><h3>champion</h3><div class=tie><b>{_e(data['champion'])}</b></div>")
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)
