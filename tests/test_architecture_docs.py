"""docs/architecture.md's contract table lists every import-linter contract of pyproject.toml:
a reader learns every rule that `make contracts` enforces from the page."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_contract_table_has_one_row_per_contract() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]["contracts"]
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    _, _, rest = page.partition("| contract | what it keeps true |\n|---|---|\n")
    rows = [line for line in rest.split("\n\n", 1)[0].splitlines() if line.startswith("| ")]
    assert len(rows) == len(contracts), [row.split("|")[1] for row in rows]
