"""A plugin's own references to its resources, in each harness's labels (ADR 0049).

A Claude Code plugin's text names its resources by Claude Code's labels: `<package>:<skill>`
("use the superpowers:brainstorming skill"), `/<package>:<command>`, `<package>:<agent>`, with
`:<subdir>` segments for nested commands and agents. Every other harness lists them under its
own label, so there the text would point at nothing. After planning, each text artifact the
plan delivers (a skill's Markdown files, a command file or command skill, an agent file, the
instructions region) has every reference that names a resource this package really has
rewritten to the label the plan gives that resource on the harnesses that read the artifact;
every other byte stays as it was. The labels are read from the plan's projections (the one
place each harness's label is computed), never spelled here, so a change of a harness's label
changes the rewrite with it; where the label equals the reference (Claude Code's own plugin
copy) nothing changes. A row whose delivered text changed says so in its reason and is
`adapted` where it was `native`: uze translated the text. Pure.

What counts as a reference: this package's name, then one or more `:<name>` segments (names are
`[a-z0-9]+(-[a-z0-9]+)*`), optionally after `/`, not inside a longer word or path (no letter,
digit, `_`, `-`, `.`, `:` or `/` before it; no letter, digit, `_` or `-` after it, nor `.`
followed by one), naming a resource exactly. Code fences and inline code are rewritten too:
published skills put instructions in them (a `dot` flowchart node "Use
superpowers:finishing-a-development-branch"). A bare reference names a skill, else an agent,
else a command; a `/` reference a command, else a skill (agents are not typed after `/`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

import msgspec

from uze.package import Package
from uze.plan import claude_plugin
from uze.plan.model import (
    PlannedArtifact,
    PlannedFile,
    PlannedProjection,
    PlannedRegion,
    PlannedTree,
)
from uze.vocabulary import Kind

Ref = tuple[bool, str]  # (typed after "/", the reference as the plugin's text spells it)
Labels = Mapping[Ref, str]  # reference -> the label one harness lists that resource under

TEXT_SUFFIX: Final = ".md"  # the files of a skill folder that are rewritten: its Markdown
_SEGMENT: Final = rb"[a-z0-9]+(?:-[a-z0-9]+)*"
_BEFORE: Final = rb"(?<![A-Za-z0-9_.:/\x80-\xff-])"
_AFTER: Final = rb"(?![A-Za-z0-9_\x80-\xff-])(?!\.[A-Za-z0-9_])"
_BARE: Final[tuple[Kind, ...]] = ("skill", "agent", "command")
_SLASHED: Final[tuple[Kind, ...]] = ("command", "skill")


def references(package: Package) -> dict[Ref, tuple[Kind, str]]:
    """Each reference the package's own text may use -> the (kind, resource) it names.

    The spelling is Claude Code's label for the package as its own plugin
    (`uze.plan.claude_plugin.resources`): the text was written for it.
    """
    claude: dict[Kind, dict[str, str]] = {}
    for kind, resource, label, _feature in claude_plugin.resources(package):
        if label:
            claude.setdefault(kind, {}).setdefault(label, resource)
    found: dict[Ref, tuple[Kind, str]] = {}
    for slashed, kinds in ((False, _BARE), (True, _SLASHED)):
        for kind in kinds:
            for label, resource in claude.get(kind, {}).items():
                found.setdefault((slashed, label), (kind, resource))
    return found


def harness_labels(package: Package, projections: Iterable[PlannedProjection]
                   ) -> dict[str, dict[Ref, str]]:
    """harness -> reference -> the label that harness's row of the named resource carries
    (a resource not delivered to a harness has no label there: its references stay)."""
    by_row = {(p.kind, p.resource, p.harness): p.label for p in projections if p.label}
    harnesses = {harness for _kind, _resource, harness in by_row}
    out: dict[str, dict[Ref, str]] = {}
    for ref, (kind, resource) in references(package).items():
        for harness in harnesses:
            label = by_row.get((kind, resource, harness))
            if label:
                out.setdefault(harness, {})[ref] = f"/{label}" if ref[0] else label
    return out


Pairs = tuple[tuple[str, str], ...]  # (reference as written, the label it became)


def rewrite(text: bytes, package: str, labels: Labels) -> tuple[bytes, Pairs]:
    """`text` with each reference to a resource in `labels` replaced by its label, and the
    (reference, label) pairs that changed it, in first-seen order. Every other byte is kept."""
    if not _mentions(text, package):
        return text, ()
    pattern = re.compile(_BEFORE + rb"(/?)(" + re.escape(package.encode()) + rb"(?::"
                         + _SEGMENT + rb")+)" + _AFTER)
    changed: dict[str, str] = {}

    def one(match: re.Match[bytes]) -> bytes:
        slashed, spelled = match.group(1) == b"/", match.group(2).decode("ascii")
        label = labels.get((slashed, spelled))
        written = f"/{spelled}" if slashed else spelled
        if label is None or label == written:
            return match.group(0)
        changed.setdefault(written, label)
        return label.encode()

    return pattern.sub(one, text), tuple(changed.items())


# Whether a text holds `<package>:` at all, by bytes object (kept here, so its id is not
# reused): one package file goes to every skill root, and the search reads all of its bytes
# (74 ms of a 705 ms install of the 50 MiB benchmark package, two roots; ADR 0052).
_MENTIONS: dict[tuple[int, str], tuple[bytes, bool]] = {}
_MENTIONS_LIMIT: Final = 16384


def _mentions(text: bytes, package: str) -> bool:
    key = (id(text), package)
    hit = _MENTIONS.get(key)
    if hit is None:
        if len(_MENTIONS) >= _MENTIONS_LIMIT:
            _MENTIONS.clear()
        hit = _MENTIONS[key] = (text, f"{package}:".encode() in text)
    return hit[1]


def _shared(harnesses: Iterable[str], per_harness: Mapping[str, Labels]) -> dict[Ref, str]:
    """The labels for one artifact read by `harnesses` (one file has one text): each reference
    that the harnesses delivering its resource list under one label. A harness without the
    resource finds nothing under either spelling; a reference the harnesses list under
    different labels stays as written."""
    found: dict[Ref, str] = {}
    clashes: set[Ref] = set()
    for harness in harnesses:
        for ref, label in per_harness.get(harness, {}).items():
            if found.setdefault(ref, label) != label:
                clashes.add(ref)
    return {ref: label for ref, label in found.items() if ref not in clashes}


def _rewrite_artifact(artifact: PlannedArtifact, package: str, labels: Labels
                      ) -> tuple[PlannedArtifact, Pairs]:
    if isinstance(artifact, PlannedTree):
        files, seen = dict(artifact.files), dict[str, str]()
        for rel, data in artifact.files.items():
            if rel.endswith(TEXT_SUFFIX):
                files[rel], pairs = rewrite(data, package, labels)
                seen.update((ref, label) for ref, label in pairs if ref not in seen)
        return msgspec.structs.replace(artifact, files=files), tuple(seen.items())
    if isinstance(artifact, PlannedFile):
        data, pairs = rewrite(artifact.data, package, labels)
        return msgspec.structs.replace(artifact, data=data), pairs
    if isinstance(artifact, PlannedRegion):
        body, pairs = rewrite(artifact.body, package, labels)
        return msgspec.structs.replace(artifact, body=body), pairs
    return artifact, ()


def note(pairs: Iterable[tuple[str, str]]) -> str:
    """The reason text for a row whose delivered text was rewritten."""
    return "references rewritten to this harness's labels: " + ", ".join(
        f"{ref} as {label}" for ref, label in pairs)


_TEXT_KINDS: Final = frozenset({"skill", "command", "agent", "instructions"})


def rewrite_plan(package: Package, projections: list[PlannedProjection],
                 artifacts: list[PlannedArtifact]) -> None:
    """Rewrite, in place, the references in every text artifact of a plan and the reason and
    route of each row the rewrite changed (see the module docstring)."""
    per_harness = harness_labels(package, projections)
    if not per_harness:
        return
    touched: dict[tuple[Path, str], Pairs] = {}
    for index, artifact in enumerate(artifacts):
        labels = _shared(artifact.harnesses, per_harness)
        if not labels:
            continue
        artifacts[index], pairs = _rewrite_artifact(artifact, package.name, labels)
        if pairs:
            for harness in artifact.harnesses:
                touched[(artifact.path, harness)] = pairs
    for index, p in enumerate(projections):
        done = touched.get((p.path, p.harness)) if p.path is not None else None
        if not done or p.kind not in _TEXT_KINDS:
            continue
        route = "adapted" if p.route == "native" else p.route
        reason = "; ".join(filter(None, [p.reason, note(done)]))
        projections[index] = msgspec.structs.replace(p, route=route, reason=reason)
