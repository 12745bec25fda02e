"""The kept conversations: per caller, bounded in count, turns and idle time."""

from __future__ import annotations

import pytest

from serving.answers.access import Caller
from serving.answers.conversations import Conversations
from serving.answers.errors import NotFound
from serving.answers.types import Turn

RH, LEGAL = Caller("k-rh", frozenset({"rh"})), Caller("k-juridico", frozenset({"juridico"}))


def test_a_conversation_is_readable_only_by_its_caller():
    store = Conversations()
    cid = store.add(RH, None, Turn(question="q1", answer="a1"))
    assert [t.question for t in store.turns(RH, cid)] == ["q1"]
    for other in (LEGAL, Caller("k-rh", frozenset({"rh", "diretoria"}))):  # same name, other groups
        with pytest.raises(NotFound, match="conversation_id"):
            store.turns(other, cid)
    assert store.add(LEGAL, cid, Turn(question="x")) != cid  # another caller cannot append to it either
    assert [t.question for t in store.turns(RH, cid)] == ["q1"]


def test_the_store_is_bounded():
    store = Conversations(max_conversations=2, max_turns=3)
    first = store.add(RH, None, Turn(question="q0", answer="x" * 10_000))
    for n in range(1, 5):
        store.add(RH, first, Turn(question=f"q{n}"))
    kept = store.turns(RH, first)
    assert [t.question for t in kept] == ["q2", "q3", "q4"]
    store.add(RH, None, Turn(question="b"))
    store.add(RH, None, Turn(question="c"))
    assert len(store) == 2
    with pytest.raises(NotFound):
        store.turns(RH, first)  # the least recently used was dropped


def test_an_idle_conversation_expires():
    store = Conversations(ttl=0.0)
    cid = store.add(RH, None, Turn(question="q"))
    with pytest.raises(NotFound):
        store.turns(RH, cid)


def test_a_conversation_id_never_reads_as_a_command_line_option():
    """The CLI prints "--conversation-id ID" to continue; an id opening with "-" would be read as an option."""
    from serving.answers.access import Caller
    from serving.answers.conversations import Conversations, Turn

    store = Conversations()
    caller = Caller("k", frozenset({"public"}))
    ids = {store.add(caller, None, Turn(question="q", answer="a", cited_document_ids=[])) for _ in range(400)}
    assert len(ids) == 400 and not any(i.startswith("-") for i in ids)
