"""The words uze's data and output are made of, each typed once (docs/design.md, vocabulary).

Everything else imports these: a value the planner emits that a receipt cannot hold, or a
state a projection reports that status does not know, fails type checking (`mypy`), not a
run. The JSON documents and receipts carry the same strings.
"""

from __future__ import annotations

from typing import Literal

Scope = Literal["project", "user"]
"""Where uze writes: inside the project, or into the harnesses' user-level homes."""

Kind = Literal["instructions", "skill", "command", "agent", "mcp", "hook"]
"""A resource kind of a package."""

Route = Literal["native", "adapted", "degraded", "unsupported"]
"""How a harness carries a resource: its own mechanism; a translation; delivered with part of
the meaning lost; not delivered. Every route but `native` carries a reason."""

LiveState = Literal["matched", "missing", "drifted", "conflict", "blocked"]
"""What inspecting an artifact finds: as written, gone, changed since written, in the way of
someone else's file, or unreadable (a config that does not parse, broken region markers)."""

State = LiveState | Literal["undelivered", "disabled"]
"""A projection's state in `uze status`: its artifact's live state, `undelivered` for an
unsupported route (nothing was written), or `disabled` when `uze disable` switched it off."""

Action = Literal["create", "replace", "unchanged", "kept", "merge", "remove", "gone"]
"""What install or uninstall does (or would do) to one artifact; `gone`: uninstall found it
already missing."""

ArtifactKind = Literal["tree", "region", "file", "entry", "element"]
"""What carries a projection on disk: a folder, a marked region in a text file, a whole file,
one key of a config file, one element of an array in a config file."""

ConfigFormat = Literal["json", "jsonc", "toml"]
"""A harness config file uze edits in place."""
