"""The `arena` front door: every subcommand exists, help works, and bad usage is a clear error."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

import pytest

from arena.main import SUBCOMMANDS, main


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_listed_subcommand_has_a_main(command: str) -> None:
    """Each command of the table names a module with a main(argv) entry point."""
    module = importlib.import_module(SUBCOMMANDS[command][0])
    assert callable(module.main)


def test_no_arguments_prints_the_commands_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """`arena` alone lists every command and exits 2 (a usage error)."""
    assert main([]) == 2
    out = capsys.readouterr().out
    assert all(command in out for command in SUBCOMMANDS)


def test_help_lists_the_commands_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    """`arena --help` lists every command with its description and exits 0."""
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(text in out for _, text in SUBCOMMANDS.values())


def test_an_unknown_command_is_named_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped command exits 2 and says which word was not understood."""
    assert main(["fihs"]) == 2
    assert "unknown command 'fihs'" in capsys.readouterr().err


def test_a_reader_that_closes_early_is_not_an_error() -> None:
    """Piping into a reader that stops (`| head`) ends quietly with status 0, no traceback."""
    script = (
        "import sys, arena.main as a; a.SUBCOMMANDS['spam'] = ('tests._spam', '');"
        "sys.modules['tests._spam'] = type(sys)('spam');"
        "sys.modules['tests._spam'].main = lambda argv: [print('x' * 1000) for _ in range(10**4)];"
        "sys.exit(a.main(['spam']))"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.read(10)
        proc.stdout.close()
        assert proc.wait(timeout=60) == 0
        assert b"Traceback" not in proc.stderr.read()


#: reStructuredText a docstring may carry, which a terminal shows as noise.
RST = re.compile(r"``|:[a-z]+:`|`_\b|^\.\. [a-z]+::", re.MULTILINE)


def _help(capsys: pytest.CaptureFixture[str], words: list[str]) -> str:
    try:
        status = main([*words, "--help"])
    except SystemExit as done:
        status = done.code  # type: ignore[assignment]
    assert status == 0, words
    return capsys.readouterr().out


def _subcommands(text: str) -> list[str]:
    """The subcommands a --help lists: a {a,b} choice in its usage, or an indented table."""
    usage = text.split("\n\n", 1)[0]
    if choice := re.search(r"\{([\w,-]+)\} \.\.\.", usage):
        return choice.group(1).split(",")
    if "[-h] COMMAND ..." in usage:
        table = text.partition("  COMMAND\n")[2].partition("\n\n")[0]
        return re.findall(r"^    ([a-z][\w-]*)", table, re.MULTILINE)
    return re.findall(r"^\s+penguins-player (play|master) ", text, re.MULTILINE)


def test_no_help_shows_rst_markup(capsys: pytest.CaptureFixture[str]) -> None:
    """Every --help, of every command and subcommand, reads as plain text in a terminal."""
    seen: dict[str, str] = {}
    waiting = [[name] for name in SUBCOMMANDS]
    while waiting:
        words = waiting.pop()
        text = _help(capsys, words)
        seen[" ".join(words)] = text
        if len(words) == 1:  # the commands' own subcommands have none
            waiting += [[*words, sub] for sub in _subcommands(text)]
    nested = {"replay fork", "fish xref", "fish serve", "labyrinth connect", "penguins master"}
    assert nested <= seen.keys()
    assert {words: RST.findall(text) for words, text in seen.items() if RST.search(text)} == {}


def test_the_rst_pattern_finds_markup() -> None:
    found = ["``arena match``: one match", "see :mod:`sim.runner`", "the `spec`_", ".. note::"]
    assert [text for text in found if not RST.search(text)] == []
    assert RST.search("a `literal` in backquotes, 2**63-1") is None


def test_the_top_level_help_into_a_reader_that_closes_early_ends_quietly() -> None:
    """`arena --help | head -3` printed a BrokenPipeError traceback (a newcomer's first try)."""
    script = (
        "import sys, arena.main as a\n"
        "a.usage = lambda: 'x\\n' * 10**6\n"
        "sys.exit(a.main(['--help']))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None
        process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read() if process.stderr else b""
        status = process.wait(timeout=60)
    assert b"Traceback" not in err
    assert status == 0
