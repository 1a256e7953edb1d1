"""The live view follows a running match's digest log: read a few bytes at a time as the server
writes them, it gives the frames a whole reading of the finished log gives, and each reading
re-runs only what was added."""

from __future__ import annotations

import json
from pathlib import Path

from replay_logs import sim_log

from server.competition.live_feed import live_json_of, viewer_json_of


def test_following_a_growing_log_gives_the_frames_of_the_whole_log(tmp_path: Path) -> None:
    full = sim_log(tmp_path / "match.jsonl", seed=4, maps="digest")
    raw = full.read_bytes()
    growing = tmp_path / "live.jsonl.gz"
    growing.write_bytes(b"")
    frames: list[str] = []
    firsts = []
    for cut in range(0, len(raw) + 1, max(1, len(raw) // 9)):
        growing.write_bytes(raw[: max(cut, 1)])
        read = live_json_of(growing, True, len(frames))
        if read is None:
            continue
        first, data = read
        firsts.append(first)
        frames = frames[:first] + data.frames
    growing.write_bytes(raw)
    read = live_json_of(growing, True, len(frames))
    assert read is not None
    first, data = read
    frames = frames[:first] + data.frames
    whole = viewer_json_of(full, False)
    assert whole is not None
    assert len(frames) > 20
    assert [json.loads(f)["p"] for f in frames] == [json.loads(f)["p"] for f in whole.frames]
    assert [json.loads(f)["m"] for f in frames] == [json.loads(f)["m"] for f in whole.frames]
    # after the first reading, each one started where the one before ended
    assert firsts[0] == 0
    assert any(first > 0 for first in firsts[1:])
    assert json.loads(data.meta)["result"] is not None


def test_a_caller_that_lost_the_thread_gets_the_whole_log_again(tmp_path: Path) -> None:
    """A caller whose frame count is not the worker's (a restarted worker, an evicted cache)
    gets every frame from the first."""
    full = sim_log(tmp_path / "match.jsonl", seed=4, maps="digest")
    read = live_json_of(full, True, 0)
    assert read is not None
    again = live_json_of(full, True, 3)
    assert again is not None
    assert again[0] == 0
    assert len(again[1].frames) == len(read[1].frames)
