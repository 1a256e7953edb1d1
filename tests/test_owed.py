"""What a dungeon match owes its seats (server.owed): the match answers with values keyed by
seat, once its log lines are flushed, and a seat the socket side reports past its error limit
has nothing more it sent admitted, even within the step that made its last error."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dungeon.engine import AgentId, Outbound, Output
from protocol.messages import Enemy, Error, Moved
from server.inbox import NOTHING, Answer, Failure, Heard, Replies
from server.owed import Owed

A, B, C = AgentId(0, 1), AgentId(0, 2), AgentId(1, 0)


class SocketSide:
    """Records each answer; says a seat is refused at its ``limit``-th Failure."""

    def __init__(self, limit: int = 2, gone: frozenset[AgentId] = frozenset()) -> None:
        self.answers: list[Answer] = []
        self.failures: dict[AgentId, int] = {}
        self.limit = limit
        self.gone = gone

    def __call__(self, answer: Answer) -> Heard:
        self.answers.append(answer)
        assert isinstance(answer, Replies)
        refused = []
        for slot, items in answer.items.items():
            count = sum(isinstance(item, Failure) for item in items)
            assert (count > 0) == (slot in answer.failing)
            self.failures[slot] = self.failures.get(slot, 0) + count
            if self.failures[slot] >= self.limit:
                refused.append(slot)
        gone = [slot for slot in answer.items if slot in self.gone]
        return Heard(gone, refused) if gone or refused else NOTHING


def output(*messages: tuple[AgentId, object]) -> tuple[Output, list[bytes]]:
    out = Output(messages=[Outbound(to, message) for to, message in messages], events=[])  # type: ignore[arg-type]
    return out, [f"line{index}\n".encode() for index in range(len(messages))]


def test_the_answers_go_as_values_keyed_by_seat_once_flushed() -> None:
    socket_side, flushed, sent = SocketSide(), list[bool](), list[int]()
    owed = Owed(socket_side, [A, B, C], lambda: flushed.append(True))
    moved = Moved(success=True, location=3, killed=[], reason="crossed")
    owed.hold(*output((A, moved), (C, Enemy(location=3, agent=1, seen=True))))
    assert socket_side.answers == []  # held until the step's end
    assert list(owed.send(sent.append)) == []  # none gone
    assert list(owed.send(sent.append)) == []  # nothing more held: nothing handed over
    [replies] = socket_side.answers
    assert isinstance(replies, Replies)
    assert replies.items == {A: [(moved, b"line0\n")], C: [b"line1\n"]}
    assert replies.failing == set()
    assert sorted(sent) == [0, 1]  # each team answered is told to the meters


def test_a_seat_past_its_limit_has_nothing_more_admitted_in_the_same_step() -> None:
    socket_side, flushed = SocketSide(limit=1), list[bool]()
    owed = Owed(socket_side, [A, B], lambda: flushed.append(True))
    error = Error(code="no_such_node", message="move: no node 99")
    owed.hold(*output((A, error), (B, error)))
    assert owed.admits(A) is False  # A got its replies first: its error was its last
    assert flushed == [True]  # its input's log lines were flushed before
    [early] = socket_side.answers
    assert isinstance(early, Replies)
    assert early.items == {A: [Failure(error, b"line0\n")]}
    assert A in owed.refused
    assert owed.admits(A) is False
    assert list(owed.send(None)) == []
    assert isinstance(socket_side.answers[-1], Replies)
    assert set(socket_side.answers[-1].items) == {B}  # B's at the step's end
    assert owed.admits(B) is False


def test_a_seat_found_gone_early_is_reported_with_the_steps_answers() -> None:
    socket_side = SocketSide(limit=5, gone=frozenset({A}))
    owed = Owed(socket_side, [A, B], lambda: None)
    owed.fail(A, Failure(Error(code="bad_field", message="move: bad"), closing=True))
    owed.fail(C, Failure(Error(code="bad_field", message="move: bad")))  # not a seat: ignored
    assert owed.admits(A) is True  # not past its limit, though its socket is gone
    assert list(owed.send(None)) == [A]  # the Disconnect is the caller's, at the step's end
    assert list(owed.send(None)) == []


def test_what_a_held_team_is_owed_waits_in_order_and_goes_with_the_next() -> None:
    # Fair time holds back what a team asleep is owed (server.fairtime.FairGate.holding): the
    # other team's go now; the held team's, a Failure among them, go whole and in order later.
    socket_side, sent = SocketSide(limit=5), list[int]()
    owed = Owed(socket_side, [A, B, C], lambda: None)
    moved = Moved(success=True, location=3, killed=[], reason="crossed")
    error = Error(code="no_such_node", message="move: no node 99")
    owed.hold(*output((A, moved), (C, Enemy(location=3, agent=1, seen=True))))
    owed.fail(B, Failure(error, b"err\n"))
    assert list(owed.send(sent.append, hold={0})) == []
    [first] = socket_side.answers
    assert isinstance(first, Replies)
    assert first.items == {C: [b"line1\n"]}
    assert first.failing == set()
    assert sent == [1]  # only the team answered is told to the meters
    assert owed.holds()
    owed.hold(*output((A, Enemy(location=4, agent=0, seen=True))))
    assert list(owed.send(sent.append)) == []
    second = socket_side.answers[-1]
    assert isinstance(second, Replies)
    assert second.items == {A: [(moved, b"line0\n"), b"line0\n"], B: [Failure(error, b"err\n")]}
    assert second.failing == {B}
    assert sent == [1, 0]
    assert not owed.holds()


def test_a_held_seat_with_an_error_gets_its_replies_early_and_its_team_stays_held() -> None:
    # Fair time holds team 0's messages (asleep); its seat A sends again (read late) while it
    # has an error held: A gets its own replies in order before anything more it sent is
    # applied (its error counted: this one was its last), B's stay held, the meters hear that
    # team 0 was sent something, and nothing is sent twice.
    socket_side, sent = SocketSide(limit=1), list[int]()
    owed = Owed(socket_side, [A, B, C], lambda: None)
    moved = Moved(success=True, location=3, killed=[], reason="crossed")
    error = Error(code="no_such_node", message="move: no node 99")
    owed.hold(*output((A, moved), (B, Enemy(location=4, agent=0, seen=True))))
    owed.fail(A, Failure(error, b"err\n"))
    assert list(owed.send(sent.append, hold={0})) == []
    assert socket_side.answers == []
    assert sent == []
    assert owed.admits(A) is False
    [early] = socket_side.answers
    assert isinstance(early, Replies)
    assert early.items == {A: [(moved, b"line0\n"), Failure(error, b"err\n")]}
    assert early.failing == {A}
    assert list(owed.send(sent.append, hold={0})) == []
    assert len(socket_side.answers) == 1  # B's still held
    assert sent == [0]
    assert owed.holds()
    assert list(owed.send(sent.append)) == []
    last = socket_side.answers[-1]
    assert isinstance(last, Replies)
    assert last.items == {B: [b"line1\n"]}
    assert last.failing == set()
    assert not owed.holds()
    assert socket_side.failures == {A: 1, B: 0}  # A's error counted once


_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("hold"), st.sampled_from([A, B, C]), st.booleans()),
        st.tuples(st.just("fail"), st.sampled_from([A, B, C]), st.booleans()),
        st.tuples(st.just("send"), st.sampled_from([(), (0,), (1,), (0, 1)]), st.booleans()),
        st.tuples(st.just("admits"), st.sampled_from([A, B, C]), st.booleans()),
    ),
    max_size=40,
)


@given(_STEPS)
def test_nothing_a_seat_is_owed_is_lost_reordered_or_sent_twice_by_holds(
    steps: list[tuple[str, object, bool]],
) -> None:
    # Whatever fair time holds back (any team, any step), an error's early path among it: at
    # the match's end each seat has had exactly what was made for it, in order, once, every
    # delivery's errors named as failing (SocketSide checks), and nothing is still held.
    socket_side = SocketSide(limit=1000)
    owed = Owed(socket_side, [A, B, C], lambda: None)
    made: dict[AgentId, list[bytes]] = {A: [], B: [], C: []}
    error = Error(code="no_such_node", message="move: no node 99")
    for number, (kind, what, flag) in enumerate(steps):
        line = f"{number}\n".encode()
        if kind == "hold":
            slot = what
            assert isinstance(slot, AgentId)
            message = Enemy(location=number, agent=0, seen=True) if flag else error
            owed.hold(Output([Outbound(slot, message)], []), [line])  # type: ignore[arg-type]
            made[slot].append(line)
        elif kind == "fail":
            assert isinstance(what, AgentId)
            owed.fail(what, Failure(error, line, closing=flag))
            made[what].append(line)
        elif kind == "send":
            assert isinstance(what, tuple)
            assert list(owed.send(None, set(what))) == []
        else:
            assert isinstance(what, AgentId)
            assert owed.admits(what) is True
    assert list(owed.send(None)) == []
    assert not owed.holds()
    got: dict[AgentId, list[bytes]] = {A: [], B: [], C: []}
    for answer in socket_side.answers:
        assert isinstance(answer, Replies)
        for slot, items in answer.items.items():
            for item in items:
                if isinstance(item, bytes):
                    got[slot].append(item)
                elif isinstance(item, Failure):
                    got[slot].append(item.line)  # type: ignore[arg-type]
                else:
                    got[slot].append(item[1])
    assert got == made
