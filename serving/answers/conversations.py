"""Conversations the server keeps for a while, per caller: the earlier turns a ``conversation_id`` stands for.

A conversation belongs to the caller that started it (its key's name and groups); another caller asking for it
gets the same 404 as for an id that never existed. Memory is bounded: at most ``max_conversations`` (the least
recently used is dropped first), ``max_turns`` turns each, answers cut to ``ANSWER_CHARS``, and a conversation
idle for ``ttl`` seconds is forgotten. The store lives in one process: with several workers, send ``history``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from serving.answers.access import Caller
from serving.answers.errors import NotFound
from serving.answers.types import MAX_HISTORY_TURNS, Turn

ANSWER_CHARS = 2000


def owner_of(caller: Caller) -> tuple[str, frozenset[str]]:
    return caller.name, caller.groups


@dataclass
class _Conversation:
    owner: tuple[str, frozenset[str]]
    turns: list[Turn] = field(default_factory=list)
    touched: float = field(default_factory=time.monotonic)


class Conversations:
    """Thread-safe, in memory, bounded in count, turns and idle time."""

    def __init__(self, ttl: float = 1800.0, max_conversations: int = 10_000,
                 max_turns: int = MAX_HISTORY_TURNS) -> None:
        self.ttl, self.max_conversations, self.max_turns = ttl, max_conversations, max_turns
        self._items: OrderedDict[str, _Conversation] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def _expire(self, now: float) -> None:
        while self._items:
            cid, item = next(iter(self._items.items()))
            if now - item.touched <= self.ttl and len(self._items) <= self.max_conversations:
                break
            del self._items[cid]

    def turns(self, caller: Caller, conversation_id: str) -> list[Turn]:
        """The turns so far; ``NotFound`` when the id is unknown, expired or another caller's."""
        with self._lock:
            self._expire(time.monotonic())
            item = self._items.get(conversation_id)
            if item is None or item.owner != owner_of(caller):
                raise NotFound("conversation_id: no such conversation for this key (it may have expired); "
                               "start a new one without conversation_id")
            return list(item.turns)

    def add(self, caller: Caller, conversation_id: str | None, turn: Turn) -> str:
        """Record ``turn`` (in a new conversation when ``conversation_id`` is None); returns the id."""
        turn = Turn(question=turn.question, answer=turn.answer[:ANSWER_CHARS],
                    cited_document_ids=turn.cited_document_ids[:20], filters=turn.filters)
        # drawn outside the lock (os.urandom releases the GIL); hex, never a leading "-" that a command line
        # would read as an option ("--conversation-id -x3...": 1 id in 64 of ``token_urlsafe``)
        fresh_id = secrets.token_hex(16)
        with self._lock:
            now = time.monotonic()
            item = self._items.get(conversation_id or "")
            if item is None or item.owner != owner_of(caller):
                conversation_id, item = fresh_id, _Conversation(owner_of(caller))
                self._items[conversation_id] = item
            item.turns = [*item.turns, turn][-self.max_turns:]
            item.touched = now
            self._items.move_to_end(conversation_id)
            self._expire(now)
            return conversation_id
