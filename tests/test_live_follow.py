"""The live view follows a running match's digest log: read a few bytes at a time as the server
writes them, it gives the frames a whole reading of the finished log gives, and each reading
re-runs only what was added."""

from __future__ import annotations

import json
import re
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


def test_following_holds_only_what_is_new(tmp_path: Path) -> None:
    """A followed log keeps no line once read and the timeline only its newest frame: the
    frames told piece by piece are still exactly the whole log's."""
    from replay.digestread import DigestTail
    from replay.html import frame_data
    from replay.matchlog import read_log
    from replay.timeline import TimelineTail, build_timeline

    full = sim_log(tmp_path / "match.jsonl", seed=4, maps="digest")
    raw = full.read_bytes()
    tail = DigestTail(keep=False)
    follower: TimelineTail | None = None
    told: list[dict[str, object]] = []
    held: list[tuple[int, int]] = []
    step = max(1, len(raw) // 25)
    for cut in range(0, len(raw), step):
        lines = tail.feed(raw[cut : cut + step])
        if tail.log is None:
            continue
        assert len(tail.log.events) == 1  # the header line only
        assert not tail.log.inputs
        assert not tail.log.outputs
        follower = follower or TimelineTail(tail.log)
        timeline = follower.update(lines)
        if timeline is None:
            continue
        told += frame_data(timeline, len(told))
        follower.forget(len(told))
        held.append((len(timeline.frames), len(timeline.entries)))
    whole = build_timeline(read_log(full))
    assert len(whole.frames) > 50

    def optimum_unsaid(frames: list[dict[str, object]]) -> str:
        # a follower does not note an optimum logged after its crossing (docs/replay.md)
        return re.sub(r", optimum [^,)]+", "", json.dumps(frames))

    assert optimum_unsaid(told) == optimum_unsaid(frame_data(whole))
    assert max(frames for frames, _ in held) == 1
    assert max(entries for _, entries in held) <= 2
