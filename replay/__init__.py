"""Match logs of every game: the dungeon's (:mod:`replay.records`, :mod:`replay.writer`,
:mod:`replay.reader`, all re-exported by :mod:`replay.matchlog`, and the digest log's
:mod:`replay.digestlog` and :mod:`replay.digestread`), the
framing every game shares (:mod:`replay.chainlog`), Fish's, Labyrinth's and Penguins' writers and
readers (:mod:`replay.fishlog`, :mod:`replay.labyrinthlog`, :mod:`replay.penguinslog`, on
:mod:`replay.gamerecord`; :mod:`replay.games` joins them), docs/log-format.md; and the tools
behind ``arena replay`` (verify, show, render). Never imports :mod:`server`, :mod:`client`,
:mod:`sim` or :mod:`arena`.

* :mod:`replay.rerun`: re-run the rules engine from a log's seed and inputs, compare
  everything (``verify``) or stop after a given line (``fork``'s starting state).
* :mod:`replay.timeline`: a log turned into frames (where every agent is after each input
  that changed something) plus a readable account of each input: ``show``, ``render`` and
  ``--png`` all draw from it; :mod:`replay.story` holds the values it is made of (entries,
  notes, frames, the summary).
* :mod:`replay.show`, :mod:`replay.html`, :mod:`replay.still`,
  :mod:`sim.fork`: the commands; :mod:`arena.replay` parses their arguments
  (:mod:`arena.replay_verify`: ``verify`` of a dungeon log).
"""
