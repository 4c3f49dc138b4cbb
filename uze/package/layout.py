"""Where a package keeps its resources: its layout and the component paths its manifest names.

Seven layouts are read (docs/package-format.md): a portable package (`plugin.json` at the
root), a Claude-native plugin (`.claude-plugin/plugin.json`), both at once (the root manifest
names the package, the Claude files still count), a Codex plugin (`.codex-plugin/plugin.json`,
uze.package.codex), a Gemini CLI extension (`gemini-extension.json`, uze.package.gemini), a
folder that is one skill (`SKILL.md` at its root) and a folder of skills with no manifest
(skill folders at its root, else under `skills/`: a skill repository, named after it).
Reading is lenient about vocabulary: a Claude manifest's unknown keys and a component path
that names nothing are warnings, never a refusal; a path that leaves the package is refused.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Final, Literal

import msgspec

from uze.package.issues import issue, key_path
from uze.package.names import name_problem
from uze.package.tree import Tree
from uze.patterns import compile_later

PORTABLE_MANIFEST: Final = "plugin.json"
CLAUDE_MANIFEST: Final = ".claude-plugin/plugin.json"
CODEX_MANIFEST: Final = ".codex-plugin/plugin.json"
GEMINI_MANIFEST: Final = "gemini-extension.json"
SKILL_FILE: Final = "SKILL.md"
Bare = Literal["", "skill", "skills"]
Envelope = Literal["", "codex-plugin", "gemini-extension"]
_SEPARATORS: Final = compile_later(r"[\s_.]+")
_CAMEL: Final = compile_later(r"(?<=[a-z0-9])(?=[A-Z])")


class Layout(msgspec.Struct, frozen=True):
    """The files a package's resources come from.

    `manifest` is "" for a package with none (`bare` says which of the two skill layouts);
    `claude` is the Claude manifest read for component paths ("" when there is none);
    `is_claude` is a Claude-native package (a Claude manifest and no portable one), whose root
    AGENTS.md and CLAUDE.md are the repository's own documents; `envelope` names another
    harness's manifest the package is read from (a Codex plugin, a Gemini CLI extension).
    """

    manifest: str
    mcp: str
    hooks: str
    is_claude: bool
    claude: str = ""
    bare: Bare = ""
    envelope: Envelope = ""

    @property
    def published(self) -> bool:
        """Whether the package is read as published for a harness (Claude, Codex, Gemini CLI,
        or bare skills): lenient about vocabulary, and its root documents are not instructions."""
        return self.is_claude or bool(self.bare) or bool(self.envelope)

    @property
    def mcp_is_claude(self) -> bool:
        """Whether the MCP file is Claude's `.mcp.json` (flat or under `mcpServers`)."""
        return self.mcp == ".mcp.json"

    @property
    def hooks_are_claude(self) -> bool:
        """Whether the hooks file is Claude's `hooks/hooks.json` (Claude's hook protocol)."""
        return self.hooks == "hooks/hooks.json"


PORTABLE: Final = Layout(PORTABLE_MANIFEST, "mcp.json", "hooks.json", is_claude=False)
CLAUDE: Final = Layout(CLAUDE_MANIFEST, ".mcp.json", "hooks/hooks.json", True, CLAUDE_MANIFEST)
# A Codex plugin's servers and hooks come from its manifest (uze.package.codex); a root
# hooks.json is not Codex's (codex 0.171.0 loads a plugin's hooks/hooks.json, adr/0068).
CODEX: Final = Layout(CODEX_MANIFEST, "", "", False, envelope="codex-plugin")
GEMINI: Final = Layout(GEMINI_MANIFEST, "", "", False, envelope="gemini-extension")


def _first(tree: Tree, *names: str) -> str:
    return next((name for name in names if name in tree.seen), names[-1])


def detect_layout(tree: Tree) -> Layout:
    """Choose the layout from the manifests (and, without one, the skills) the tree holds."""
    portable, claude = PORTABLE_MANIFEST in tree.seen, CLAUDE_MANIFEST in tree.seen
    if claude and portable:
        mcp = _first(tree, "mcp.json", ".mcp.json")
        hooks = _first(tree, "hooks.json", "hooks/hooks.json")
        return Layout(PORTABLE_MANIFEST, mcp, hooks, False, CLAUDE_MANIFEST)
    if claude:
        return CLAUDE
    if portable:
        return PORTABLE
    if CODEX_MANIFEST in tree.seen:
        return CODEX
    if GEMINI_MANIFEST in tree.seen:
        return GEMINI
    if SKILL_FILE in tree.seen:
        return Layout("", "", "", False, bare="skill")
    if _skill_folders(tree, "") or _skill_folders(tree, "skills"):
        return Layout("", "", "", False, bare="skills")
    return PORTABLE


def _skill_folders(tree: Tree, parent: str) -> list[str]:
    """The folders directly inside `parent` ("" = the root) that hold a SKILL.md, sorted."""
    prefix = f"{parent}/" if parent else ""
    return sorted(
        folder for folder in tree.folders
        if folder.startswith(prefix) and "/" not in folder[len(prefix):]
        and f"{folder}/{SKILL_FILE}" in tree.seen
    )


def bare_name(tree_name: str) -> str | None:
    """A package name made from a folder name: lowercase, `_`, `.` and spaces as hyphens."""
    slug = "-".join(part for part in _SEPARATORS.sub("-", tree_name.lower()).split("-") if part)
    return slug if name_problem(slug) is None else None


def word_name(name: str) -> str | None:
    """`bare_name` with camelCase words apart (`securityServer` -> `security-server`)."""
    return bare_name(_CAMEL.sub("-", name))


class ComponentPaths(msgspec.Struct, frozen=True):
    """What a Claude manifest's `skills`, `agents`, `commands`, `hooks` and `mcpServers` name.

    Paths are POSIX, relative to the package root. Custom paths supplement the default
    folders, as in Claude Code. `hooks_inline` and `mcp_inline` hold values given in place.
    """

    skills: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    mcp: tuple[str, ...] = ()
    hooks_inline: dict[str, object] | None = None
    mcp_inline: dict[str, object] | None = None


_PATH_KEYS: Final = ("skills", "agents", "commands", "hooks", "mcpServers")


def component_paths(
    raw: dict[str, object] | None, tree: Tree, issues: list[str], warnings: list[str],
    location: str = CLAUDE_MANIFEST,
) -> ComponentPaths:
    """Read the component path keys of the manifest `raw` read from `location` (the Claude
    manifest, or a Codex plugin's, which names components the same way; None: no manifest).

    A path that leaves the package is an issue; one that names nothing there is a warning.
    """
    if raw is None:
        return ComponentPaths()
    found: dict[str, list[str]] = {}
    inline: dict[str, dict[str, object]] = {}
    for key in _PATH_KEYS:
        value = raw.get(key)
        if isinstance(value, dict) and key in ("hooks", "mcpServers"):
            inline[key] = value
            continue
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        if value is not None and not isinstance(value, str | list):
            problem = "must be a path or a list of paths; ignored"
            warnings.append(issue(location, key, problem))
        for index, item in enumerate(values):
            where = key_path([key, index]) if isinstance(value, list) else key
            path = _component_path(item, tree, f"{location}: {where}", issues, warnings)
            if path is not None:
                found.setdefault(key, []).append(path)
    return ComponentPaths(
        skills=tuple(found.get("skills", ())), agents=tuple(found.get("agents", ())),
        commands=tuple(found.get("commands", ())), hooks=tuple(found.get("hooks", ())),
        mcp=tuple(found.get("mcpServers", ())), hooks_inline=inline.get("hooks"),
        mcp_inline=inline.get("mcpServers"),
    )


def _component_path(
    item: object, tree: Tree, where: str, issues: list[str], warnings: list[str]
) -> str | None:
    if not isinstance(item, str) or not item.strip():
        warnings.append(issue(where, "must be a path; ignored"))
        return None
    path = PurePosixPath(item.replace("${CLAUDE_PLUGIN_ROOT}/", "./"))
    if path.is_absolute() or ".." in path.parts:
        issues.append(issue(where, f"{item!r} leaves the package"))
        return None
    relative = "/".join(part for part in path.parts if part != ".")
    if relative and relative not in tree.seen and relative not in tree.folders:
        warnings.append(issue(where, f"{item!r} is not in the package; ignored"))
        return None
    return relative


def files_under(tree: Tree, roots: tuple[str, ...], suffix: str) -> list[str]:
    """Every file ending in `suffix` that is one of `roots` or lies under one; sorted, unique."""
    found: set[str] = set()
    for root in roots:
        if root in tree.seen:
            found.add(root)
            continue
        prefix = f"{root}/" if root else ""
        found.update(path for path in tree.seen if path.startswith(prefix))
    return sorted(path for path in found if path.endswith(suffix))


def skill_folders(tree: Tree, layout: Layout, paths: ComponentPaths) -> list[str]:
    """Every skill folder: `skills/<name>/`, each folder a component path names (a skill, or a
    folder of skills), the root (one-skill layout) or the root's skill folders. Sorted, unique."""
    if layout.bare == "skill":
        return [""]
    if layout.bare == "skills":  # root skill folders, else those of `skills/`
        return _skill_folders(tree, "") or _skill_folders(tree, "skills")
    found = set(_skill_folders(tree, "skills"))
    for path in paths.skills:
        if f"{path}/{SKILL_FILE}" in tree.seen or (not path and SKILL_FILE in tree.seen):
            found.add(path)
        else:
            found.update(_skill_folders(tree, path))
    return sorted(found)

