"""What the discovery contracts expect and the vocabulary of the oracle table.

The package under test (lab.build_package) is every-kind with seven's nested agent, a
SessionStart hook and loopback MCP servers; EXPECTED names what each harness must discover of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from tests.conformance.lab import MARKER, PACKAGE, Lab, hook_log
from uze.doctor.probes import ANSI as ANSI  # the readers' vocabulary lives in uze (one copy)
from uze.doctor.probes import Seen as Seen
from uze.doctor.probes import count as count
from uze.doctor.probes import lines as lines
from uze.doctor.probes import strings as strings

KINDS: Final = ("skill", "agent", "mcp", "instructions", "hook", "command")
EXPECTED: Final[dict[str, tuple[str, ...]]] = {
    "skill": (f"{PACKAGE}-helper", f"{PACKAGE}-review", f"{PACKAGE}-ship"),
    "agent": (f"{PACKAGE}-reviewer", f"{PACKAGE}-team-planner"),
    "mcp": ("docs", "search"),
    "instructions": (PACKAGE,),  # counted as occurrences of MARKER in what the harness loads
    "hook": ("no-force-push", "log-edits", "session-note"),
    "command": (f"{PACKAGE}-tidy",),  # lab.build_package adds commands/tidy.md
}
HOOK_IDS: Final = {
    "PreToolUse": "no-force-push",
    "PostToolUse": "log-edits",
    "SessionStart": "session-note",
}  # portable event -> group id in the package
SESSION_ONLY: Final = ("session-note",)


@dataclass(frozen=True)
class Oracle:
    """An offline command and the reader that turns its output into `Seen`.

    `names` replaces EXPECTED's names of the kind (None: every EXPECTED name), e.g. only the
    SessionStart hook where tool hooks fire only in a model-driven tool call, or the
    `<package>:<name>` labels of a harness that lists a plugin's resources that way.
    """

    command: str
    read: Callable[[Lab], Seen]
    names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class NoOracle:
    """Why a kind cannot be checked offline; `needs_model` = only the model request shows it."""

    reason: str
    needs_model: bool = True


@dataclass(frozen=True)
class RealHarness:
    """A harness whose real binary runs here: uze id, binary name, one entry per kind."""

    id: str
    binary: str
    oracles: Mapping[str, Entry | Mapping[str, Entry]] = field(default_factory=dict)

    def entry(self, kind: str, scope: str) -> Entry | None:
        """The oracle (or the reason for none) of one kind in one scope."""
        found = self.oracles.get(kind)
        return found.get(scope) if isinstance(found, Mapping) else found


Entry = Oracle | NoOracle


def instructions_seen(text: str) -> Counter[str]:
    """The package's instructions, counted as occurrences of their first line in `text`."""
    return Counter({PACKAGE: text.count(MARKER)})


def session_runs(lab: Lab, run: Callable[[], str]) -> tuple[int, str]:
    """How often the package's SessionStart hook ran during `run`, and run's output."""
    log = hook_log(lab.sandbox)
    before = log.read_text(encoding="utf-8").count("session-note") if log.exists() else 0
    out = run()
    after = log.read_text(encoding="utf-8").count("session-note") if log.exists() else 0
    return after - before, out
