"""The budget of one multi-step question (steps, tokens, seconds) and the trace of its steps."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Budget:
    """Limits of one question's loop; at any limit the loop stops and the answer says what is missing."""

    max_steps: int = 16  # the defaults are settings.api.agent_max_*'s
    max_tokens: int = 12_000
    max_seconds: float = 10.0


@dataclass
class Step:
    """One tool call: its arguments, the ids it returned, the tokens it cost and how long it took."""

    n: int
    tool: str
    args: dict[str, Any]
    ids: list[str]
    tokens: int
    ms: float
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = {"n": self.n, "tool": self.tool, "args": self.args, "ids": self.ids, "tokens": self.tokens,
               "ms": self.ms}
        return {**out, "note": self.note} if self.note else out


@dataclass
class Trace:
    budget: Budget
    steps: list[Step] = field(default_factory=list)
    tokens: int = 0
    started: float = field(default_factory=time.perf_counter)
    stopped: str = ""  # why the loop ended: "done", "no new reference", "budget: steps", ...

    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def exhausted(self) -> str | None:
        """The limit reached, or None."""
        if len(self.steps) >= self.budget.max_steps:
            return "steps"
        if self.tokens >= self.budget.max_tokens:
            return "tokens"
        if self.seconds() >= self.budget.max_seconds:
            return "seconds"
        return None

    def record(self, tool: str, args: dict[str, Any], ids: list[str], tokens: int, started: float,
               note: str = "") -> Step:
        step = Step(len(self.steps) + 1, tool, args, ids, tokens,
                    round((time.perf_counter() - started) * 1000, 3), note)
        self.steps.append(step)
        self.tokens += tokens
        return step

    def as_list(self) -> list[dict[str, Any]]:
        return [s.as_dict() for s in self.steps]


def estimate_tokens(text: str) -> int:
    """A model-free token estimate (about four characters a token) for budgets without an LLM."""
    return max(1, len(text) // 4)
