"""`uze.toml`: the packages a scope declares, by name and source (ADR 0024).

```toml
[packages]
flow = "git+https://github.com/acme/flow.git@v1"
notes = "./plugins/notes"
```

Read as the standard library (`tomllib`) reads it (a file exactly as uze renders it by one
pattern, without loading tomllib, ADR 0110) and validated (unknown keys are an error, with their
location; each source parses as one typed on the command line, and holds no credential: the
file is committed, ADR 0057). Written back with tomlkit, which keeps the user's comments, order
and layout; a file exactly as uze renders it is re-rendered without tomlkit (most installs
never load it).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any, Final

from uze.errors import UsageError, UzeError
from uze.nesting import OverLimit
from uze.patterns import compile_later
from uze.sources.markers import conflicted, has_markers
from uze.sources.spec import NOWHERE, parse_source
from uze.sources.toml_lines import STRING, NotToml, loads, strings

HEADER: Final = "# uze.toml: the packages declared here; `uze install` installs them all.\n"
_NAME: Final = compile_later(r"[a-z0-9]+(-[a-z0-9]+)*")


def _invalid(where: str, problem: str) -> UzeError:
    return UzeError(f"{where}: {problem}",
                    hint=f"fix {where}: it holds one table, [packages], of name = \"source\"")


def parse_manifest(raw: bytes, where: str) -> dict[str, str]:
    """The declarations of a uze.toml (name -> source string), in file order (a new dict the
    caller may change). Memoised by the bytes, as `lockfile.parse_lock` (issue 32)."""
    return dict(_parse_manifest(raw, where))


@functools.lru_cache(maxsize=4)  # the newest texts; parse_manifest hands out copies
def _parse_manifest(raw: bytes, where: str) -> dict[str, str]:
    if has_markers(raw):
        raise conflicted(where)
    try:
        text = raw.decode("utf-8")
        data = _rendered(text) or loads(text)
    except OverLimit as exc:
        raise _invalid(where, str(exc)) from None
    except (UnicodeDecodeError, NotToml) as exc:
        raise _invalid(where, f"not valid TOML ({exc})") from None
    unknown = sorted(set(data) - {"packages"})
    if unknown:
        raise _invalid(where, f"{unknown[0]}: unknown key")
    packages: Any = data.get("packages", {})
    if not isinstance(packages, dict):
        raise _invalid(where, "packages: must be a table")
    for name, source in packages.items():
        if not _NAME.fullmatch(name) or len(name) > 64:
            raise _invalid(where, f"packages.{name}: invalid package name")
        if not isinstance(source, str) or not source:
            raise _invalid(where, f"packages.{name}: the source must be a non-empty string")
        problem = _source_problem(source)
        if problem is not None:
            raise _invalid(where, f"packages.{name}: {problem}")
    return dict(packages)


@functools.cache
def _declarations() -> re.Pattern[str]:
    """The pattern, compiled on first use (a first install reads no uze.toml)."""
    return re.compile(rf"(?:[a-z0-9]++(?:-[a-z0-9]++)*+ = {STRING}\n)*+")


def _rendered(text: str) -> dict[str, Any] | None:
    """The document as `tomllib` reads it, when `text` is in the form `render_manifest` writes
    (the header, `[packages]`, then `name = "source"` lines, each name once, the strings as
    `toml_lines.STRING` takes them); None for anything else, which `tomllib` reads (ADR 0110).
    """
    head = HEADER + "[packages]\n"
    if not text.startswith(head) or not _declarations().fullmatch(text, len(head)):
        return None
    pairs = [line.split(" = ", 1) for line in text[len(head):-1].split("\n")] \
        if len(text) > len(head) else []
    packages = dict(zip([name for name, _ in pairs],
                        strings([literal for _, literal in pairs]), strict=True))
    return {"packages": packages} if len(packages) == len(pairs) else None  # a name twice


def _source_problem(text: str) -> str | None:
    """Why a declared source cannot stand in a committed file (None: it can)."""
    try:
        parsed = parse_source(text, cwd=NOWHERE)  # the shape only: no folder read
    except UsageError as exc:
        return exc.message
    if parsed.fetch_url:
        return ("the source holds a credential, which the next commit publishes; take it out "
                "(git's credential helper or SSH agent supplies it)")
    if not text.isprintable():
        return f"the source {text!r} holds control characters"
    return None


def read_manifest(path: Path, where: str) -> dict[str, str]:
    """The declarations at `path` ({} when there is no file); UzeError naming `where` when it
    cannot be read (a folder, no permission)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UzeError(f"cannot read {where}: {exc.strerror}", hint=f"check {where}") from None
    return parse_manifest(raw, where)


def render_manifest(declared: dict[str, str]) -> bytes:
    """uze's own rendering of a manifest (names sorted)."""
    lines = [HEADER, "[packages]\n"]
    lines += [f"{name} = {json.dumps(declared[name], ensure_ascii=False)}\n"
              for name in sorted(declared)]
    return "".join(lines).encode()


def updated_manifest(raw: bytes | None, name: str, source: str | None, where: str) -> bytes:
    """The manifest with `name` declared as `source` (None: no longer declared)."""
    current = parse_manifest(raw, where) if raw is not None else {}
    if raw is None or raw == render_manifest(current):
        if source is None:
            current.pop(name, None)
        else:
            current[name] = source
        return render_manifest(current)
    import tomlkit  # only for a file the user wrote or edited: keep their comments and order

    doc = tomlkit.parse(raw.decode("utf-8"))
    if "packages" not in doc:
        doc.add("packages", tomlkit.table())
    table: Any = doc["packages"]
    if source is None:
        if name in table:
            del table[name]
    else:
        table[name] = source
    return tomlkit.dumps(doc).encode()
