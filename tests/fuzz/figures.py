"""What a fuzzed session cost and how well it rode the cache, from the emulator's records; the
totals per window.

  archived only    user messages no request held any more, whole or cut, but a transcript it
                   points to held verbatim (not a violation: the model can read them back)
  summary share    cache hits / prompt tokens over the summary requests (weighted by size)
  after share      the same over the first turn request after each summary request
  $ / 100 turns    the emulator's usage priced by agent.compaction.cost (V4 flash off-peak prices)
  miss / floor     the session's cache-miss tokens over its growth floor: the first request plus
                   every increase of the prompt from one request to the next (what any strategy
                   must send uncached at least once)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.provider.prices import for_reports, money
from tests.fuzz.oracle import INVARIANTS
from tests.fuzz.player import MODEL, Played


@dataclass
class Figures:
    sessions: int = 0
    turns: int = 0
    requests: int = 0
    refused: int = 0
    interrupted: int = 0
    resumed: int = 0
    errors: int = 0  # error lines the user saw (a turn or a command that failed)
    archived: int = 0  # user messages the requests hold only through a transcript they point to
    summary_hit: int = 0
    summary_prompt: int = 0
    summaries: int = 0
    after_hit: int = 0
    after_prompt: int = 0
    dollars: float = 0.0
    miss: int = 0
    floor: int = 0
    violations: dict[str, int] = field(default_factory=lambda: dict.fromkeys(INVARIANTS, 0))
    examples: dict[str, list[str]] = field(default_factory=dict)  # "seed N: ..." per invariant
    failing_seeds: dict[str, list[int]] = field(default_factory=dict)

    def add(self, p: Played) -> None:
        self.sessions += 1
        self.turns += p.session.turns
        self.interrupted += p.interrupted
        self.resumed += p.resumed
        self.errors += len(p.errors)
        self.archived += len(p.oracle.archived)
        records = p.records
        self.requests += len(records)
        self.refused += sum(1 for r in records if r.get("status") != 200)
        billed = [r for r in records if r.get("billed")]
        prices = for_reports(MODEL)  # not the hour's: peak hours doubled the figure
        assert prices is not None
        hit = sum(r["cache_hit_tokens"] for r in billed)
        prompt = sum(r["prompt_tokens"] for r in billed)
        self.dollars += money(hit, prompt - hit, sum(r["completion_tokens"] for r in billed), prices)
        self.miss += prompt - hit
        self.floor += growth_floor([r["prompt_tokens"] for r in billed])
        after = False
        for r in billed:
            if r.get("kind") == "summary":
                self.summaries += 1
                self.summary_hit += r["cache_hit_tokens"]
                self.summary_prompt += r["prompt_tokens"]
                after = True
            elif after:
                self.after_hit += r["cache_hit_tokens"]
                self.after_prompt += r["prompt_tokens"]
                after = False
        for name, n in p.oracle.violations.items():
            self.violations[name] += n
            if n:
                self.failing_seeds.setdefault(name, []).append(p.session.seed)
                shown = self.examples.setdefault(name, [])
                shown.extend(f"seed {p.session.seed}: {e}" for e in p.oracle.examples.get(name, [])[:1])

    def merge(self, other: Figures) -> None:
        for name in (
            "sessions",
            "turns",
            "requests",
            "refused",
            "interrupted",
            "resumed",
            "errors",
            "archived",
            "summary_hit",
            "summary_prompt",
            "summaries",
            "after_hit",
            "after_prompt",
            "dollars",
            "miss",
            "floor",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name, n in other.violations.items():
            self.violations[name] += n
        for name, seeds in other.failing_seeds.items():
            self.failing_seeds.setdefault(name, []).extend(seeds)
        for name, shown in other.examples.items():
            self.examples.setdefault(name, []).extend(shown)

    @property
    def total_violations(self) -> int:
        return sum(self.violations.values())

    def row(self) -> dict[str, Any]:
        def share(hit: int, prompt: int) -> str:
            return f"{100 * hit / prompt:.1f}%" if prompt else "-"

        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "requests": self.requests,
            "refused": self.refused,
            "Ctrl-C": self.interrupted,
            "--continue": self.resumed,
            "error lines": self.errors,
            "archived only": self.archived,
            "summaries": self.summaries,
            "summary share": share(self.summary_hit, self.summary_prompt),
            "after share": share(self.after_hit, self.after_prompt),
            "$ / 100 turns": f"{100 * self.dollars / self.turns:.4f}" if self.turns else "-",
            "miss / floor": f"{self.miss / self.floor:.2f}" if self.floor else "-",
        }


def growth_floor(prompts: list[int]) -> int:
    """The first prompt plus every increase from one request to the next."""
    if not prompts:
        return 0
    return prompts[0] + sum(max(0, b - a) for a, b in zip(prompts, prompts[1:], strict=False))
