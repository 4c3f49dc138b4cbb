"""The lines `uze status` prints about uze.toml + uze.lock: each difference with its fix
(`status --check`, the CI gate, prints every one), and what a fresh clone declares (ADR 0062).
Plain strings: the caller styles them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from uze.inert import inert

if TYPE_CHECKING:
    from uze.commands.status import Difference, StatusResult

_MAX_FILES = 6
STATE_WORDS = {"not installed": "not installed here", "other pin": "at another pin than uze.lock",
               "not pinned": "not pinned in uze.lock", "not declared": "not declared in uze.toml",
               "undeclared": "not declared in uze.toml",
               "unknown": "installed (uze.toml or uze.lock unreadable)",
               "unknown harness": "only for harnesses this uze does not know"}


def difference_lines(difference: Difference) -> list[str]:
    """One difference: a line, and for an artifact each file that differs, each new version
    waiting beside an edit, and the fix."""
    d = difference
    if not d.files and not d.waiting and d.problem not in ("missing", "conflict", "blocked") \
            and d.fix.startswith("`"):
        return [f"  {inert(d.message)}: run {inert(d.fix)}"]
    out = [f"  {inert(d.message)}"]
    out += [f"    {inert(f)}" for f in d.files[:_MAX_FILES]]
    if len(d.files) > _MAX_FILES:
        out.append(f"    ... and {len(d.files) - _MAX_FILES} more files")
    out += [f"    {inert(w)}: a new version waiting beside your edit (merge what you need "
            "into the file, then delete it)" for w in d.waiting]
    out.append(f"    fix: {inert(d.fix)}")
    return out


def check_lines(result: StatusResult) -> list[str]:
    """`uze status --check`: every difference from uze.toml + uze.lock with its fix, then one
    line that counts (the exit code is 1 when there is any)."""
    out = [line for d in result.differences for line in difference_lines(d)]
    if result.differences:
        count = len(result.differences)
        return [*out, f"{count} difference{'s' if count > 1 else ''} from uze.toml + uze.lock."]
    installed = sum(d.state == "installed" for d in result.declared)
    return [f"As uze.toml and uze.lock say: {installed} package"
            f"{'s' if installed != 1 else ''} installed as pinned, every file as uze wrote it."]


def fresh_clone_lines(result: StatusResult) -> list[str]:
    """Nothing installed here, but uze.toml or uze.lock declares packages (a fresh clone:
    `.uze/` is machine-local): what they declare and the one command that installs it."""
    rows = result.declared
    out = [f"Nothing installed here for {inert(str(result.project))}; uze.toml and uze.lock "
           f"declare {len(rows)} package{'s' if len(rows) > 1 else ''}:"]
    for d in rows:
        pin = f"{d.version} ({d.commit[:12]})" if d.commit else d.version
        out.append(f"  {inert(d.name)} {inert(pin)}".rstrip()
                   + f" from {inert(d.source or '?')}: {STATE_WORDS.get(d.state, d.state)}"
                   + ("" if d.scope == "project" else f" ({d.scope} scope)"))
    fixes = sorted({d.fix for d in rows if d.fix})
    out += [f"fix: {inert(fix)}" for fix in fixes]
    return out
