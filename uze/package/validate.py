"""Build the package's resources from its files, collecting every problem as an issue line.

Each `validate_*` function appends `location: message` lines to `issues` and returns what
it could build; the reader raises once, at the end, if any line was added.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Final, TypeGuard

import msgspec

from uze.package.frontmatter import FrontmatterError, split_frontmatter
from uze.package.issues import convert, issue
from uze.package.model import Agent, InvokePolicy, Manifest, Skill
from uze.package.names import name_problem
from uze.package.tree import Tree

INSTRUCTIONS: Final = "AGENTS.md"
_UZE_MARKER: Final = re.compile(r"^<!-- uze:(begin|end) \S+ -->\s*$")
SKILLS: Final = "skills"
AGENTS: Final = "agents"
SKILL_FILE: Final = "SKILL.md"
_INVOKE_KEYS: Final = ("model", "user")


class Layout(msgspec.Struct, frozen=True):
    """Where a package keeps its manifest, MCP servers and hooks."""

    manifest: str
    mcp: str
    hooks: str
    is_claude: bool


PORTABLE: Final = Layout("plugin.json", "mcp.json", "hooks.json", is_claude=False)
CLAUDE: Final = Layout(".claude-plugin/plugin.json", ".mcp.json", "hooks/hooks.json", True)


def detect_layout(tree: Tree) -> Layout:
    """Choose the Claude-native layout if only `.claude-plugin/plugin.json` exists."""
    if PORTABLE.manifest not in tree.seen and CLAUDE.manifest in tree.seen:
        return CLAUDE
    return PORTABLE


def validate_manifest(tree: Tree, layout: Layout, issues: list[str]) -> Manifest | None:
    """Parse plugin.json (or `.claude-plugin/plugin.json`) into a Manifest."""
    if layout.manifest not in tree.seen:
        issues.append(issue(layout.manifest, "missing: a package needs a plugin.json with a name"))
        return None
    raw = tree.json_object(layout.manifest, issues)
    if raw is None:
        return None
    return convert(raw, Manifest, layout.manifest, issues)


def validate_instructions(tree: Tree, issues: list[str]) -> str | None:
    """Return "AGENTS.md" when the package has standing instructions; they must be UTF-8."""
    if INSTRUCTIONS not in tree.seen:
        return None
    text = tree.text(INSTRUCTIONS, issues)
    for number, line in enumerate((text or "").splitlines(), start=1):
        if _UZE_MARKER.match(line):
            issues.append(issue(f"{INSTRUCTIONS}:{number}", "holds a uze region marker, which "
                                "would break the region uze writes; remove that line"))
    return INSTRUCTIONS


def validate_skills(tree: Tree, issues: list[str]) -> tuple[Skill, ...]:
    """Read every `skills/<name>/` folder; each needs a SKILL.md. Sorted by name."""
    for relpath in sorted(tree.seen):
        parts = relpath.split("/")
        if parts[0] == SKILLS and len(parts) == 2:
            issues.append(
                issue(relpath, "not in a skill folder: a skill is skills/<name>/SKILL.md")
            )
    names = sorted(
        parts[1]
        for parts in (folder.split("/") for folder in tree.folders)
        if parts[0] == SKILLS and len(parts) == 2
    )
    skills = [_read_skill(tree, name, issues) for name in names]
    return tuple(skill for skill in skills if skill is not None)


def _read_skill(tree: Tree, name: str, issues: list[str]) -> Skill | None:
    folder = f"{SKILLS}/{name}"
    problem = name_problem(name)
    if problem:
        issues.append(issue(folder, problem))
    skill_md = f"{folder}/{SKILL_FILE}"
    if skill_md not in tree.seen:
        issues.append(issue(folder, f"missing {SKILL_FILE}"))
        return None
    frontmatter = _frontmatter(tree, skill_md, issues)
    if frontmatter is None:
        return None
    declared = frontmatter.get("name", name)
    if declared != name:
        issues.append(
            issue(skill_md, "name", f"{declared!r} does not match the folder name {name!r}")
        )
    invoke = _invoke_policy(frontmatter, skill_md, issues)
    if problem or declared != name or invoke is None:
        return None
    files = tuple(sorted(relpath for relpath in tree.files if relpath.startswith(f"{folder}/")))
    return Skill(name, folder, files, invoke, "invoke" in frontmatter, frontmatter)


def _frontmatter(tree: Tree, relpath: str, issues: list[str]) -> dict[str, object] | None:
    parsed = _split(tree, relpath, issues)
    return None if parsed is None else parsed[0]


def _split(tree: Tree, relpath: str, issues: list[str]) -> tuple[dict[str, object], str] | None:
    text = tree.text(relpath, issues)
    if text is None:
        return None
    try:
        frontmatter, body = split_frontmatter(text)
    except FrontmatterError as error:
        issues.append(issue(relpath, str(error)))
        return None
    return dict(frontmatter), body


def _invoke_policy(
    frontmatter: dict[str, object], relpath: str, issues: list[str]
) -> InvokePolicy | None:
    raw = frontmatter.get("invoke", {})
    if not isinstance(raw, dict):
        issues.append(issue(relpath, "invoke", "must be a mapping like {model: true, user: true}"))
        return None
    found = [
        issue(relpath, f"invoke.{key}", "unknown key (allowed: model, user)")
        for key in raw
        if key not in _INVOKE_KEYS
    ]
    found += [
        issue(relpath, f"invoke.{key}", "must be true or false")
        for key in _INVOKE_KEYS
        if key in raw and not isinstance(raw[key], bool)
    ]
    if not found:
        policy = InvokePolicy(model=bool(raw.get("model", True)), user=bool(raw.get("user", True)))
        if policy.model or policy.user:
            return policy
        never = "model and user are both false, so the skill could never run"
        found.append(issue(relpath, "invoke", never))
    issues.extend(found)
    return None


def validate_agents(tree: Tree, issues: list[str]) -> tuple[Agent, ...]:
    """Read every `agents/**/<name>.md`; two agents may not share a name. Sorted by name."""
    first_use: dict[str, str] = {}
    agents: list[Agent] = []
    for relpath in sorted(tree.seen):
        if not (relpath.startswith(f"{AGENTS}/") and relpath.endswith(".md")):
            continue
        agent = _read_agent(tree, relpath, issues)
        if agent is None:
            continue
        if agent.name in first_use:
            used = first_use[agent.name]
            issues.append(issue(relpath, f"agent name {agent.name!r} is already used by {used}"))
            continue
        first_use[agent.name] = relpath
        agents.append(agent)
    return tuple(sorted(agents, key=lambda agent: agent.name))


def _read_agent(tree: Tree, relpath: str, issues: list[str]) -> Agent | None:
    parsed = _split(tree, relpath, issues)
    if parsed is None:
        return None
    frontmatter, body = parsed
    name = _agent_name(frontmatter, relpath, issues)
    harness = frontmatter.get("harness", {})
    if not _is_harness_block(harness):
        issues.append(issue(relpath, "harness", "must map each harness id to a mapping of fields"))
        return None
    if name is None:
        return None
    return Agent(name, relpath, frontmatter, body, harness)


def _agent_name(frontmatter: dict[str, object], relpath: str, issues: list[str]) -> str | None:
    if "name" in frontmatter:
        name = frontmatter["name"]
        problem = name_problem(name)
        if problem:
            issues.append(issue(relpath, "name", problem))
    else:
        name = PurePosixPath(relpath).stem
        problem = name_problem(name)
        if problem:
            issues.append(issue(relpath, f"{problem} (the file name is the agent's name)"))
    return name if isinstance(name, str) and problem is None else None


def _is_harness_block(value: object) -> TypeGuard[dict[str, dict[str, object]]]:
    return isinstance(value, dict) and all(
        isinstance(key, str) and isinstance(fields, dict) for key, fields in value.items()
    )
