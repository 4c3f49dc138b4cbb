"""The glance `uze status` prints: one row per package, one mark per harness, a footer that
counts, then each problem with its fix (ADR 0026)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from uze.harnesses import HARNESS_IDS, REGISTRY
from uze.ui.blocks import Block, Cell, Fits, Grid, Line
from uze.ui.declared_view import difference_lines

if TYPE_CHECKING:
    from uze.commands.status import StatusResult
    from uze.vocabulary import State

_PROBLEM_STATES = ("drifted", "missing", "conflict", "blocked")
_MARK_STYLE = {"✓": "green", "~": "yellow", "-": "dim", "·": "dim", "o": "dim"}
LEGEND = ("✓ delivered  ~ degraded  - unsupported  · nothing there  off switched off  "
          "! not as written  ? waits for trust")
_MAX_PROBLEM_LINES = 24


def harness_mark(routes: list[str], states: list[str], waiting: bool) -> str:
    """One harness's mark for one package: ✓ everything delivered with its meaning (native or
    adapted), ~ degraded (something lost or not delivered), - nothing delivered (unsupported),
    · nothing for that harness, off all of it switched off (`uze disable`); then ! if anything
    is not as uze wrote it, ? if a hook waits for trust."""
    if not routes:
        return "·"
    if all(s == "disabled" for s in states):
        return "off"
    if all(r == "unsupported" for r in routes):
        mark = "-"
    elif any(r in ("degraded", "unsupported") for r in routes):
        mark = "~"
    else:
        mark = "✓"
    if any(s in _PROBLEM_STATES for s in states):
        mark += "!"
    if waiting:
        mark += "?"
    return mark


def _glance_table(headers: list[str]) -> Grid:
    """Columns without borders (two spaces apart, bold headers at a terminal), so 7 harnesses
    fit 80 columns; only the package column gives way on a narrow terminal."""
    return Grid(*headers, boxed=False)


def glance_view(result: StatusResult) -> list[Block]:
    """`uze status`: one row per package (version, scope, a mark per harness), a footer that
    counts, then each problem with its fix; 20 packages x 7 harnesses fit in 60 lines."""
    waiting = {(name, scope) for name, scope, _ in result.untrusted_hooks}
    present = {h for package in result.packages for h in package.receipt.harnesses}
    used = [(h, REGISTRY[h].column or h) for h in HARNESS_IDS if h in present]
    extra = sorted(present - set(HARNESS_IDS))
    used += [(h, h) for h in extra]
    scoped = any(package.receipt.scope == "user" for package in result.packages)
    sources = [str(getattr(package, "source", "") or "") for package in result.packages]
    headers = ["package", "version", *(["scope"] if scoped else []), *(label for _, label in used)]
    rows: list[list[str | Cell]] = []
    in_place = undelivered = disabled = 0
    problems: dict[tuple[str, str], list[tuple[State, str, str, str]]] = {}
    for package in result.packages:
        r = package.receipt
        per: dict[str, tuple[list[str], list[str]]] = {}
        for p, state in zip(r.projections, package.states, strict=True):
            routes, states = per.setdefault(p.harness, ([], []))
            routes.append(p.route)
            states.append(state)
            if state == "matched":
                in_place += 1
            elif state == "undelivered":
                undelivered += 1
            elif state == "disabled":
                disabled += 1
            elif package.lock != "other pin":  # a moved lock is one difference, not drift
                problems.setdefault((r.name, r.scope), []).append(
                    (state, p.kind, p.resource, p.harness))
        trust_waiting = (r.name, r.scope) in waiting
        marks = []
        for h, _ in used:
            routes, states = per.get(h, ([], []))
            gated = h in REGISTRY and REGISTRY[h].trust.hook_trust is not None
            mark = harness_mark(routes, states, trust_waiting and gated)
            style = "red" if "!" in mark else _MARK_STYLE.get(mark[0], "")
            marks.append(Cell(mark, style))
        rows.append([r.name, r.version, *([r.scope] if scoped else []), *marks])
    table = _glance_table(headers)
    for row in rows:
        table.add_row(*row)
    out: list[Block] = [table]
    if any(sources):  # a column of its own where the terminal has room for it
        with_source = _glance_table([*headers, "source"])
        for row, source in zip(rows, sources, strict=True):
            with_source.add_row(*row, source or "-")
        out = [Fits(with_source, table)]
    footer = f"{in_place} projections in place"
    for index, ((name, scope), found) in enumerate(problems.items()):
        if index == 3:
            footer += f"; more in {len(problems) - 3} other packages"
            break
        counts: dict[State, int] = {}
        for state, *_ in found:
            counts[state] = counts.get(state, 0) + 1
        what = ", ".join(f"{n} {state}" for state, n in counts.items())
        first = ", ".join(sorted({f"{kind} {resource}" for _, kind, resource, _ in found})[:2])
        where = f"{name} (user scope)" if scope == "user" else name
        footer += f"; {what} in {where} ({first}{', ...' if len(found) > 2 else ''})"
    if undelivered:
        footer += f"; {undelivered} not delivered (unsupported)"
    if disabled:
        footer += f"; {disabled} switched off (uze enable)"
    elsewhere = [d for d in result.declared
                 if d.state not in ("installed", "undeclared", "unknown", "unknown harness")]
    if elsewhere:
        footer += f"; {len(elsewhere)} not as uze.lock pins them"
    out += [Line(footer + "."), Line(LEGEND, style="dim")]
    lines = _problem_lines(result)
    if lines:
        out.append(Line("Problems:"))
        out += [Line(line) for line in lines]
    return out


def _problem_lines(result: StatusResult) -> list[str]:
    """Each difference from uze.toml + uze.lock with its fix (`declared_view`), then hooks that
    wait for trust; at most _MAX_PROBLEM_LINES lines (then where to see the rest)."""
    lines = [line for d in result.differences for line in difference_lines(d)]
    hooks: dict[str, int] = {}
    for name, _scope, _target in result.untrusted_hooks:
        hooks[name] = hooks.get(name, 0) + 1
    if hooks:
        names = list(hooks)
        listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        lines.append(f"  {sum(hooks.values())} Codex hooks wait for trust ({listed}); Codex "
                     "skips them until trusted")
        lines.append(f"    fix: run `codex` in {result.project}, open /hooks and trust them "
                     "(one run only: `codex exec --dangerously-bypass-hook-trust`)")
    if len(lines) > _MAX_PROBLEM_LINES:
        rest = len(lines) - _MAX_PROBLEM_LINES + 1
        lines = lines[:_MAX_PROBLEM_LINES - 1]
        lines.append(f"  ... {rest} more lines: `uze status --check` lists every one")
    return lines
