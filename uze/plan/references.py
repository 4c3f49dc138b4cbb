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

from uze import memo
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
memo.per_package(_MENTIONS.clear)  # ADR 0100


def _mentions(text: bytes, package: str) -> bool:
    key = (id(text), package)
    hit = _MENTIONS.get(key)
    if hit is None:
        if len(_MENTIONS) >= _MENTIONS_LIMIT:
            _MENTIONS.clear()
        hit = _MENTIONS[key] = (text, f"{package}:".encode() in text)
    return hit[1]


def _shared(harnesses: Iterable[str], per_harness: Mapping[str, Labels]
            ) -> tuple[dict[Ref, str], set[Ref]]:
    """The labels for one artifact read by `harnesses` (one file has one text): each reference
    that the harnesses delivering its resource list under one label. A harness without the
    resource finds nothing under either spelling; a reference the harnesses list under
    different labels stays as written (the second value: those references)."""
    found: dict[Ref, str] = {}
    clashes: set[Ref] = set()
    for harness in harnesses:
        for ref, label in per_harness.get(harness, {}).items():
            if found.setdefault(ref, label) != label:
                clashes.add(ref)
    return {ref: label for ref, label in found.items() if ref not in clashes}, clashes


FilePairs = dict[str, Pairs]  # file of the artifact ("" for a file or region) -> its pairs


def _rewrite_artifact(artifact: PlannedArtifact, package: str, labels: Labels
                      ) -> tuple[PlannedArtifact, FilePairs]:
    """The artifact with its text rewritten, and the pairs that changed each of its files."""
    found: FilePairs = {}
    if isinstance(artifact, PlannedTree):
        files = dict(artifact.files)
        for rel, data in artifact.files.items():
            if rel.endswith(TEXT_SUFFIX):
                files[rel], found[rel] = rewrite(data, package, labels)
        return msgspec.structs.replace(artifact, files=files), found
    if isinstance(artifact, PlannedFile):
        data, found[""] = rewrite(artifact.data, package, labels)
        return msgspec.structs.replace(artifact, data=data), found
    if isinstance(artifact, PlannedRegion):
        body, found[""] = rewrite(artifact.body, package, labels)
        return msgspec.structs.replace(artifact, body=body), found
    return artifact, found


def _owner(package: Package, rel: str) -> tuple[str, str] | None:
    """The (kind, resource) whose package file `rel` is (a tree that carries several)."""
    for skill in package.skills:
        if rel in skill.files:
            return "skill", skill.name
    for command in package.commands:
        if command.relpath == rel:
            return "command", command.name
    for agent in package.agents:
        if agent.relpath == rel:
            return "agent", agent.name
    return None


def _attribute(package: Package, rows: list[PlannedProjection], found: FilePairs
               ) -> dict[int, Pairs]:
    """Which of `rows` (one harness's rows carried by one artifact) each file's pairs belong
    to: all to the one row of an artifact that carries one resource; otherwise each file to
    the resource it is a file of."""
    out: dict[int, dict[str, str]] = {}
    for rel, pairs in found.items():
        if not pairs:
            continue
        owner = _owner(package, rel) if len(rows) > 1 else None
        for index, row in enumerate(rows):
            if len(rows) == 1 or owner == (row.kind, row.resource):
                for ref, label in pairs:
                    out.setdefault(index, {}).setdefault(ref, label)
    return {index: tuple(pairs.items()) for index, pairs in out.items()}


def note(pairs: Iterable[tuple[str, str]]) -> str:
    """The reason text for a row whose delivered text was rewritten."""
    return "references rewritten to this harness's labels: " + ", ".join(
        f"{ref} as {label}" for ref, label in pairs)


def kept_note(pairs: Iterable[tuple[str, str]]) -> str:
    """The reason text for a row whose text keeps references this harness lists otherwise."""
    return ("its text names " + ", ".join(f"{ref} (listed here as {label})" for ref, label
                                          in pairs)
            + ": the file is shared with a harness that lists it as written, so it stays")


_TEXT_KINDS: Final = frozenset({"skill", "command", "agent", "instructions"})


def rewrite_plan(package: Package, projections: list[PlannedProjection],
                 artifacts: list[PlannedArtifact]) -> None:
    """Rewrite, in place, the references in every text artifact of a plan and the reason and
    route of each row the rewrite changed (see the module docstring). A harness that reads a
    file whose text keeps a reference it lists under another label (the file is shared with a
    harness that lists it as written) has that row `degraded`, saying so."""
    per_harness = harness_labels(package, projections)
    if not per_harness:
        return
    rows: dict[tuple[Path, str], list[int]] = {}
    for index, p in enumerate(projections):
        if p.path is not None and p.kind in _TEXT_KINDS:
            rows.setdefault((p.path, p.harness), []).append(index)
    done: dict[int, Pairs] = {}
    kept: dict[int, Pairs] = {}
    for index, artifact in enumerate(artifacts):
        labels, clashes = _shared(artifact.harnesses, per_harness)
        found: FilePairs = {}
        if labels:
            artifacts[index], found = _rewrite_artifact(artifact, package.name, labels)
        for harness in artifact.harnesses:
            mine = rows.get((artifact.path, harness), [])
            theirs = [projections[i] for i in mine]
            for at, pairs in _attribute(package, theirs, found).items():
                done[mine[at]] = pairs
            own = {ref: label for ref, label in per_harness.get(harness, {}).items()
                   if ref in clashes}
            if own:
                _, missed = _rewrite_artifact(artifacts[index], package.name, own)
                for at, pairs in _attribute(package, theirs, missed).items():
                    kept[mine[at]] = pairs
    for index in sorted(done.keys() | kept.keys()):
        p = projections[index]
        route = "adapted" if p.route == "native" else p.route
        route = "degraded" if index in kept else route
        reason = "; ".join(filter(None, [p.reason, note(done[index]) if index in done else "",
                                         kept_note(kept[index]) if index in kept else ""]))
        projections[index] = msgspec.structs.replace(p, route=route, reason=reason)
