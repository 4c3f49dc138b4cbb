"""`uze pack DIR --out OUT`: one portable package -> the native envelopes of Claude Code, Codex
and Gemini CLI beside a copy of its files (issue 34 item 4, ADR 0091).

Pack reads the package with the reader install uses (every problem at once, nothing written),
computes every output file in memory, and only then writes. The output is a function of the
package's bytes alone: the same package gives the same bytes (keys sorted, 2-space JSON, one
final newline). `check=True` writes nothing and lists each file that differs from what pack
would write (missing, other bytes, other executable bit).

What OUT holds:
- every file of the package, byte for byte with its executable bit (the envelopes below
  replace a file of the same path);
- `.claude-plugin/plugin.json`: name, version, description, the kept presentation keys and
  the component folders the package has (`skills`, `commands`, `agents`); Claude Code loads
  the plugin root's `.mcp.json`, written with `${CLAUDE_PLUGIN_ROOT}` for the package's own
  files. Portable hooks need uze's wrapper (ADR 0008): they are not packed (`skipped`);
- `.codex-plugin/plugin.json`: name, version, description, `skills`, `mcpServers`
  (`./.mcp.json`);
- `gemini-extension.json`: name, version, description, `contextFileName` (`AGENTS.md`) when
  the package has instructions, `mcpServers` with `${extensionPath}` for the package's files
  (`httpUrl` for a streamable HTTP server, `url` for SSE); each Markdown command also as the
  TOML command Gemini CLI loads (`commands/<path>.toml`, as install writes it for Gemini CLI).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import msgspec

from uze.errors import UsageError, UzeError
from uze.fs import atomic_write, make_dir
from uze.harnesses import REGISTRY
from uze.harnesses.base import CommandSurface
from uze.package import Package, read_package

CLAUDE_ENVELOPE: Final = ".claude-plugin/plugin.json"
CODEX_ENVELOPE: Final = ".codex-plugin/plugin.json"
GEMINI_ENVELOPE: Final = "gemini-extension.json"
CLAUDE_MCP: Final = ".mcp.json"
_PRESENTATION: Final = ("author", "homepage", "repository", "license", "keywords")
_ROOT_MARKERS: Final = ("${PLUGIN_ROOT}", "${CLAUDE_PLUGIN_ROOT}")


class PackedFile(msgspec.Struct, frozen=True):
    """One file pack writes: its path in OUT, bytes and executable bit."""

    relpath: str
    data: bytes
    executable: bool = False


class PackResult(msgspec.Struct, frozen=True):
    """What pack wrote (or, with `check`, found different: `differs`), and what it left out."""

    package: str
    out: Path
    files: tuple[str, ...]
    envelopes: tuple[str, ...]
    differs: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    checked: bool = False

    def lines(self) -> list[str]:
        """The human view: what was written (or differs), and what was left out."""
        if self.checked and self.differs:
            head = [f"{self.out}: {len(self.differs)} of {len(self.files)} files differ from "
                    f"what `uze pack` writes for {self.package}:",
                    *(f"  {path}" for path in self.differs)]
        elif self.checked:
            head = [f"{self.out}: all {len(self.files)} files are as `uze pack` writes them "
                    f"for {self.package}"]
        else:
            head = [f"packed {self.package} into {self.out}: {len(self.files)} files, "
                    f"envelopes {', '.join(self.envelopes)}"]
        return [*head, *(f"not packed: {line}" for line in self.skipped)]

    def to_json(self) -> dict[str, Any]:
        """The `--json` document."""
        return {"schema": 1, "package": self.package, "out": str(self.out),
                "files": list(self.files), "envelopes": list(self.envelopes),
                "checked": self.checked, "differs": list(self.differs),
                "skipped": list(self.skipped)}


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _rooted(value: Any, root: str, *, command: bool = False) -> Any:
    """`value` with the package root markers (and a `command` starting with `./`) as `root`."""
    if isinstance(value, str):
        for marker in _ROOT_MARKERS:
            value = value.replace(marker, root)
        return f"{root}/{value[2:]}" if command and value.startswith("./") else value
    if isinstance(value, list):
        return [_rooted(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _rooted(item, root, command=key == "command") for key, item in value.items()}
    return value


def _servers(package: Package) -> dict[str, Any]:
    """The package's mcp.json servers as written (validated by the reader), by name."""
    raw = package.files.get("mcp.json")
    if raw is None:
        return {}
    servers = json.loads(raw.data).get("mcpServers", {})
    return dict(servers) if isinstance(servers, dict) else {}


def _gemini_server(server: dict[str, Any]) -> dict[str, Any]:
    """A server in Gemini CLI's dialect: `httpUrl` (streamable HTTP) or `url` (SSE)."""
    entry = {key: value for key, value in server.items() if key not in ("type", "enabled")}
    if "url" in server and server.get("type", "http") == "http":
        entry["httpUrl"] = entry.pop("url")
    return entry


def _gemini_commands(package: Package) -> list[PackedFile]:
    """Each Markdown command as the TOML command Gemini CLI loads from an extension's
    `commands/` (`commands/a/b.md` -> `commands/a/b.toml`), rendered as install renders it."""
    made = []
    for command in package.commands:
        if command.converted or not command.relpath.endswith(".md"):
            continue
        original = package.files[command.relpath].data
        data, _route, _reason = _extension_commands().render(command, original)
        made.append(PackedFile(f"{command.relpath[:-3]}.toml", data))
    return made


def _extension_commands() -> CommandSurface:
    """The command files of the harness whose own package is a `gemini-extension.json`
    (asked of the registry by its envelope, never by id: issue 29)."""
    for harness in REGISTRY.values():
        if harness.envelope and harness.envelope.manifest == GEMINI_ENVELOPE and harness.commands:
            return harness.commands
    raise AssertionError("no harness reads gemini-extension.json commands")  # registry's bug


def _identity(package: Package, raw: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = {"name": package.name, "version": package.version}
    if isinstance(raw.get("description"), str):
        head["description"] = raw["description"]
    return head


def envelopes(package: Package) -> tuple[list[PackedFile], list[str]]:
    """The envelope files for `package`, and what the envelopes leave out (one line each)."""
    raw = json.loads(package.files["plugin.json"].data)
    servers = _servers(package)
    head = _identity(package, raw)
    claude = {**head, **{key: raw[key] for key in _PRESENTATION if key in raw}}
    folders = {"skills": bool(package.skills), "commands": bool(package.commands)}
    claude.update({key: f"./{key}/" for key, present in folders.items() if present})
    if package.agents:  # Claude Code takes agents as files (2.1.x: a folder is "Invalid input")
        claude["agents"] = sorted(f"./{agent.relpath}" for agent in package.agents)
    codex: dict[str, Any] = dict(head)
    if package.skills:
        codex["skills"] = "./skills/"
    gemini: dict[str, Any] = dict(head)
    if package.instructions is not None:
        gemini["contextFileName"] = "AGENTS.md"
    files = [PackedFile(CLAUDE_ENVELOPE, _json(claude))]
    if servers:
        claude_servers = {name: _rooted(server, "${CLAUDE_PLUGIN_ROOT}")
                          for name, server in servers.items()}
        files.append(PackedFile(CLAUDE_MCP, _json({"mcpServers": claude_servers})))
        codex["mcpServers"] = f"./{CLAUDE_MCP}"
        gemini["mcpServers"] = {name: _gemini_server(_rooted(server, "${extensionPath}"))
                                for name, server in servers.items()}
    files += [PackedFile(CODEX_ENVELOPE, _json(codex)), PackedFile(GEMINI_ENVELOPE, _json(gemini)),
              *_gemini_commands(package)]
    skipped = []
    if package.hooks is not None:
        skipped.append("hooks.json: portable hooks run through uze's generated wrapper; "
                       "no harness loads them from an envelope (install the package with uze)")
    if package.tools:
        skipped.append("tools.json: the tools' MCP server is generated by uze at install")
    return files, skipped


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)


def planned(source: Path, out: Path) -> tuple[Package, list[PackedFile], list[str]]:
    """Read `source` and compute every file pack writes into `out`; raises before any write."""
    if not (source / "plugin.json").is_file():
        raise UzeError(f"{source}: not a portable package (no plugin.json at its root)",
                         hint="pack reads a package in uze's format (docs/package-format.md)")
    if _inside(out.resolve(), source.resolve()):
        raise UsageError(f"--out {out} is inside the package {source}",
                         hint="choose a folder outside the package, or the package itself")
    package = read_package(source, deliverable=True)
    made, skipped = envelopes(package)
    generated = {item.relpath for item in made}
    copied = [PackedFile(path, item.data, item.executable)
              for path, item in sorted(package.files.items()) if path not in generated]
    return package, sorted([*copied, *made], key=lambda item: item.relpath), skipped


def _differs(out: Path, item: PackedFile) -> bool:
    path = out / item.relpath
    if path.is_symlink() or not path.is_file():
        return True
    return path.read_bytes() != item.data or bool(path.stat().st_mode & 0o100) != item.executable


def pack(source: Path, out: Path, *, check: bool = False) -> PackResult:
    """Write the envelopes and the package's files into `out` (created when absent); with
    `check`, write nothing and name each file that differs from what pack would write.
    Files of `out` pack does not write are left as they are."""
    package, files, skipped = planned(source, out)
    names = tuple(item.relpath for item in files)
    made = (CLAUDE_ENVELOPE, CODEX_ENVELOPE, GEMINI_ENVELOPE)
    if check:
        differs = tuple(item.relpath for item in files if _differs(out, item))
        return PackResult(package.name, out, names, made, differs, tuple(skipped), checked=True)
    if out.exists() and not out.is_dir():
        raise UzeError(f"--out {out} is not a folder", hint="name a folder (it is created)")
    for item in files:
        if not _differs(out, item):
            continue
        target = out / item.relpath
        make_dir(target.parent, parents=True)
        atomic_write(target, item.data, 0o755 if item.executable else 0o644)
    return PackResult(package.name, out, names, made, (), tuple(skipped))
