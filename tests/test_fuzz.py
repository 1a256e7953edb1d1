"""Fuzzing every framer a peer's bytes reach and every file a user hands in (bench/fuzz_targets.py
says what and which properties): nothing but the documented error escapes, every rejection
is precise, and a framer's output does not depend on how the bytes are split into reads.

Deterministic like every test (the conftest profile derandomizes hypothesis); a few hundred
examples each here, ``python -m bench fuzz`` runs many fresh ones."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from bench.fuzz_targets import TARGETS, Target


@pytest.mark.parametrize("target", TARGETS, ids=[target.name for target in TARGETS])
def test_hostile_input_gets_a_value_or_the_documented_error(target: Target) -> None:
    """For any input (and any split of it into reads), the target's properties hold."""

    @settings(max_examples=200)
    @given(target.arguments)
    def run(arguments: tuple[Any, ...]) -> None:
        target.check(*arguments)

    run()
