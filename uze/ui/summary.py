"""The short report `install` and `check` print by default (issue 30 item 12, ADR 0066): one
line per harness, then only what needs attention, each reason once with every row it covers;
the table of every row is behind `--verbose` (and `uze status NAME` once installed).

Rows are the projection objects of the `--json` documents (`kind`, `resource`, `harness`,
`route`, `reason`); this module only counts and groups them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

ROUTES: Final = ("native", "adapted", "degraded")
ATTENTION: Final = (
    ("degraded", "Degraded (delivered, part of the meaning lost), by reason:"),
    ("unsupported", "Not delivered, by reason:"),
)


def harness_lines(rows: Sequence[Mapping[str, Any]], harnesses: Iterable[str]) -> list[str]:
    """Per harness: how many resources it gets, by route, and how many it cannot."""
    out = []
    for harness in harnesses:
        mine = [row for row in rows if row["harness"] == harness]
        lost = sum(row["route"] == "unsupported" for row in mine)
        counts = [f"{n} {route}" for route in ROUTES
                  if (n := sum(row["route"] == route for row in mine))]
        line = f"  {harness}: {len(mine) - lost} delivered"
        line += f" ({', '.join(counts)})" if counts else ""
        out.append(line + (f", {lost} not delivered" if lost else ""))
    return out


def attention_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each degraded or undelivered reason once, under it the rows it covers by harness (each
named `kind resource`, then `(package)` when a row has a `package` key)."""
    out: list[str] = []
    for route, title in ATTENTION:
        reasons: dict[str, dict[str, list[str]]] = {}
        for row in rows:
            if row["route"] == route:
                where = reasons.setdefault(row["reason"] or "no reason given", {})
                where.setdefault(row["harness"], []).append(_item(row))
        if not reasons:
            continue
        out.append(title)
        for reason, where in reasons.items():
            out.append(f"  {reason}")
            out.append("    " + "; ".join(f"{h}: {', '.join(items)}" for h, items in where.items()))
    return out


def _item(row: Mapping[str, Any]) -> str:
    """`kind resource`, and its package when the report covers several (`package` key)."""
    return f"{row['kind']} {row['resource']}" + (f" ({row['package']})" if "package" in row else "")


def group_lines(lines: Iterable[str]) -> list[str]:
    """`who: what` lines that say the same `what` as one line naming every `who`, in the order
    first seen (doctor: `claude_code, codex: ...`); other lines as they are."""
    groups: dict[str, list[str]] = {}
    for line in lines:
        who, sep, what = line.partition(": ")
        key = what if sep else line
        names = groups.setdefault(key, [])
        if sep and who not in names:
            names.append(who)
    return [f"{', '.join(who)}: {what}" if who else what for what, who in groups.items()]
