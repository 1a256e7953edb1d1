"""The Fish server's switchboard: calls and answers are plain values routed by player id."""

from __future__ import annotations

import pytest
import trio

from server.cycle import Ending, Fault
from server.fish.switchboard import Answered, Call, Failed, Mailbox, Switchboard


async def test_a_call_reaches_its_player_and_the_answer_its_inbox() -> None:
    board = Switchboard()
    calls = board.join(7)
    key, inbox = board.open_inbox(1)
    board.call(Call(7, ["start", [True]], 3.0, key))
    call = await calls.get()
    assert isinstance(call, Call)
    assert (call.player, call.message, call.seconds) == (7, ["start", [True]], 3.0)
    board.post(call.inbox, Answered(7, "void", 0.25))
    assert await inbox.receive() == Answered(7, "void", 0.25)


async def test_a_released_player_is_told_its_ending_then_its_mailbox_ends() -> None:
    board = Switchboard()
    calls = board.join(3)
    ending = Ending(Fault.REMOTE, "placed on a penguin at [0, 1]")
    board.release(3, ending)
    board.release(3)  # twice: nothing more
    assert await calls.get() == ending
    assert await calls.get() is None


async def test_a_call_to_a_released_player_fails_at_once() -> None:
    board = Switchboard()
    board.join(4)
    board.release(4)
    key, inbox = board.open_inbox(1)
    board.call(Call(4, ["end", [False]], 3.0, key))
    assert inbox.receive_nowait() == Failed(4, "the player has left", 0.0)


async def test_an_answer_to_a_closed_inbox_is_dropped() -> None:
    board = Switchboard()
    key, inbox = board.open_inbox(1)
    board.close_inbox(key)
    board.post(key, Answered(1, "void", 0.0))
    with pytest.raises(trio.EndOfChannel):
        inbox.receive_nowait()


async def test_a_mailbox_holds_one_item() -> None:
    mailbox = Mailbox[int]()
    mailbox.put(1)
    with pytest.raises(trio.WouldBlock):
        mailbox.put(2)
    assert await mailbox.get() == 1
    mailbox.put(2)
    assert await mailbox.get() == 2


async def test_a_mailbox_get_waits_for_its_item(autojump_clock: object) -> None:
    mailbox = Mailbox[str]()
    got: list[str | None] = []

    async def take() -> None:
        got.append(await mailbox.get())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(take)
        await trio.sleep(1)
        assert got == []
        mailbox.put("call")
    assert got == ["call"]
