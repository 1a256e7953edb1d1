"""What a dungeon match owes its seats, on the match's side: the answers its inputs produced for
each seat, in order, held until their log lines are on disk and then handed to the socket side
as values (:data:`server.inbox.Answers`: ``Begun``, ``Replies``, ``Kill``), and what the socket
side said back (``Heard``): the seats gone, the seats past their error limit.

The match's actor (:mod:`server.actor`) holds one :class:`Owed`; like it, it knows the seats
by their ``AgentId`` only. An error the match makes for a seat is a ``Failure`` among the
seat's replies, counted by the socket when it gets it; so that nothing a seat sends after its
last allowed error reaches the match, a seat with a ``Failure`` not yet handed over gets its
replies before anything more it sent is applied (:meth:`Owed.admits`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from dungeon.engine import AgentId, Output
from protocol.messages import Enemy, Error
from server.inbox import NOTHING, Answer, Answers, Failure, Heard, Kill, Outgoing, Replies

__all__ = ["Owed"]


class Owed:
    """The seats still open, those past their error limit, and what each is owed; ``flush``
    puts the match log's lines on disk."""

    __slots__ = ("_answer", "_early", "_failing", "_flush", "_gone", "_pending", "open", "refused")

    def __init__(self, answer: Answers, seats: Iterable[AgentId], flush: Callable[[], None]):
        self._answer = answer
        self._flush = flush
        self.open: set[AgentId] = set(seats)
        self.refused: set[AgentId] = set()
        #: What the inputs applied since the last :meth:`send` produced for each seat, in
        #: order; the seats with a Failure among theirs; seats found gone and teams answered
        #: early (:meth:`admits`) since then.
        self._pending: dict[AgentId, list[Outgoing | Failure]] = {}
        self._failing: set[AgentId] = set()
        self._gone: list[AgentId] = []
        self._early: set[int] = set()

    def tell(self, answer: Answer) -> Sequence[AgentId]:
        """Hand ``answer`` over at once (``Begun``, ``Kill``); the seats found gone."""
        heard = self._answer(answer)
        self.refused.update(heard.refused)
        return heard.gone

    def kill(self, reason: str) -> None:
        self._answer(Kill(tuple(self.open), reason))

    def close(self) -> None:
        """The match is done: drop the socket side's seats (their outboxes and sockets)."""
        self._answer = _nobody
        self.open.clear()
        self._pending.clear()

    def admits(self, slot: AgentId) -> bool:
        """Whether what ``slot`` sends may still reach the match (it is not past its error
        limit). A seat with a Failure not yet handed over gets its replies now (its inputs'
        log lines flushed first): the socket counts the error, and says whether it was the
        last allowed."""
        if slot in self._failing:
            self._flush()
            self._failing.discard(slot)
            self._early.add(slot.team)  # the meters hear of it with the step's answers
            heard = self._answer(Replies({slot: self._pending.pop(slot)}, {slot}))
            self.refused.update(heard.refused)
            self._gone.extend(heard.gone)  # a team gone is an input: with the step's answers
        return slot not in self.refused

    def fail(self, slot: AgentId, failure: Failure) -> None:
        """An error for ``slot``, after what its inputs produced so far."""
        if slot in self.open:
            self._pending.setdefault(slot, []).append(failure)
            self._failing.add(slot)

    def hold(self, output: Output, lines: list[bytes]) -> None:
        """Hold what ``output`` sends each open seat (``lines``: each message encoded)."""
        batches = self._pending
        opened = self.open
        for index, outbound in enumerate(output.messages):
            slot = outbound.to
            if slot not in opened:
                continue
            message = outbound.message
            batch = batches.get(slot)
            if batch is None:
                batch = batches[slot] = []
            if type(message) is Enemy:
                batch.append(lines[index])  # sightings go as bytes
            elif type(message) is Error:
                # Counted by the socket when it gets it; past the limit, the socket's last
                # error (the match log keeps the engine's) and it closes.
                batch.append(Failure(message, lines[index]))
                self._failing.add(slot)
            else:
                # Answers and game over with their message, which the socket inspects
                # (answer times, closing after game over).
                batch.append((message, lines[index]))

    def send(
        self, sent: Callable[[int], None] | None, hold: Collection[int] = ()
    ) -> Sequence[AgentId]:
        """Hand over everything held, each seat's in one delivery (one write), telling ``sent``
        each team answered, except what is owed to the teams in ``hold`` (fair time: they get
        it later, :meth:`holds`); the seats found gone."""
        batches = self._pending
        early = self._early
        if not batches and not self._gone and not early:
            return ()
        kept: dict[AgentId, list[Outgoing | Failure]] = {}
        if hold:
            kept = {slot: owed for slot, owed in batches.items() if slot.team in hold}
            batches = {slot: owed for slot, owed in batches.items() if slot.team not in hold}
        self._pending = kept
        failing = self._failing
        if failing:
            self._failing = {slot for slot in failing if slot in kept}
            failing -= self._failing
        if sent is not None:
            for team in {slot.team for slot in batches} | early:
                sent(team)
        if early:
            early.clear()
        heard = self._answer(Replies(batches, failing)) if batches else NOTHING
        if heard.refused:
            self.refused.update(heard.refused)
        if self._gone:
            gone, self._gone = self._gone, []
            return [*gone, *heard.gone]
        return heard.gone

    def holds(self) -> bool:
        """Whether something is still owed (held back by :meth:`send`'s ``hold``)."""
        return bool(self._pending)

    def teams(self) -> set[int]:
        """The teams owed something not handed over yet."""
        return {slot.team for slot in self._pending}


def _nobody(answer: object) -> Heard:
    """Where a finished match's answers go: nowhere."""
    return NOTHING
