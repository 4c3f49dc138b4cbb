"""Choose the skill roots to write so every targeted harness discovers each skill exactly once.

Harnesses read overlapping roots (OpenCode reads .claude/skills and .agents/skills; Codex reads
.agents/skills and .codex/skills). The choice is a small exact-cover search: the fewest
folders such that each harness reads exactly one of them (at least one, for a harness seen
listing a name once across roots), preferring each harness's first-listed root. A root one
harness reads recursively (OpenCode lists every `.claude/skills/**/SKILL.md` that has a `name`)
gets the plugin folder of another without names (`unlisted_elsewhere`, ADR 0070). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path

import msgspec

from uze.projections.frontmatter import edit_frontmatter

SKILL_FILE = "SKILL.md"


class RootChoice(msgspec.Struct, frozen=True):
    """Which root serves each harness; harnesses left out cannot be served without a double."""

    serving: Mapping[str, Path]
    unserved: Mapping[str, str]


def _score(
    chosen: set[Path], reads: Mapping[str, Sequence[Path]], kept: set[str], dedupes: set[str]
) -> int | None:
    """Preference cost of `chosen`, or None if a harness would miss it or see it twice."""
    total = 0
    for harness, roots in reads.items():
        hits = [i for i, root in enumerate(roots) if root in chosen]
        if len(hits) > 1 and harness not in dedupes:
            return None
        if harness in kept:
            if not hits:
                return None
            total += hits[0]
    return total


def _search(
    reads: Mapping[str, Sequence[Path]], kept: set[str], dedupes: set[str]
) -> set[Path] | None:
    candidates = sorted({root for h in kept for root in reads[h]}, key=str)
    for size in range(1, len(candidates) + 1):
        scored = [
            (score, subset)
            for subset in combinations(candidates, size)
            if (score := _score(set(subset), reads, kept, dedupes)) is not None
        ]
        if scored:
            return set(min(scored, key=lambda pair: pair[0])[1])
    return None


def choose_roots(reads: Mapping[str, Sequence[Path]], dedupes: set[str]) -> RootChoice:
    """Serve every harness if possible; otherwise serve the most, dropping the fewest.

    No harness, served or not, is ever left reading two written copies (unless it dedupes).
    """
    for size in range(len(reads), 0, -1):
        for kept in combinations(reads, size):
            chosen = _search(reads, set(kept), dedupes)
            if chosen is None:
                continue
            serving = {h: next(r for r in reads[h] if r in chosen) for h in kept}
            return RootChoice(serving, _unserved(reads, kept))
    return RootChoice({}, _unserved(reads, ()))


def _unserved(reads: Mapping[str, Sequence[Path]], kept: Sequence[str]) -> dict[str, str]:
    out = {}
    for harness in reads:
        if harness not in kept:
            roots = ", ".join(str(r) for r in reads[harness])
            out[harness] = (
                f"every skill root it reads ({roots}) would make another targeted harness "
                "discover the skill twice"
            )
    return out


def unlisted_elsewhere(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """`files` of a Claude Code plugin folder with the frontmatter `name` dropped from every
    `SKILL.md` at any depth, every other byte kept.

    Claude Code lists a plugin's skills by folder whatever that `name` says; OpenCode scans its
    skill root recursively and lists each `SKILL.md` that has a `name`, and none without one
    (claude 2.1.197, opencode 1.18.33; ADR 0048, ADR 0070). Without it, OpenCode lists each skill
    of the plugin only from the copy uze writes for it. A file with no frontmatter is kept as is.
    """
    out = dict(files)
    for rel, data in files.items():
        if rel.rsplit("/", 1)[-1] == SKILL_FILE:
            edited = edit_frontmatter(data, {}, drop=["name"])
            # only a drop shortens it: a file with no closed frontmatter would gain an empty one
            if len(edited) < len(data):
                out[rel] = edited
    return out
