"""Build the package's resources from its files, collecting every problem as an issue line.

Each `validate_*` function appends `location: message` lines to `issues` and returns what
it could build; the reader raises once, at the end, if any line was added.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Final, TypeGuard

import msgspec

from uze.package.claude_manifest import refused_keys
from uze.package.convert import convert
from uze.package.frontmatter import FrontmatterError, split_frontmatter
from uze.package.issues import issue
from uze.package.layout import (
    CLAUDE_MANIFEST,
    SKILL_FILE,
    ComponentPaths,
    Layout,
    bare_name,
    files_under,
    skill_folders,
)
from uze.package.limits import value_problem
from uze.package.model import Agent, Instructions, InvokePolicy, Manifest, Skill
from uze.package.names import name_problem
from uze.package.tree import Tree
from uze.projections.region import marker_lines

INSTRUCTIONS: Final = "AGENTS.md"
SKILLS: Final = "skills"
AGENTS: Final = "agents"
_INVOKE_KEYS: Final = ("model", "user")


def validate_manifest(
    tree: Tree, layout: Layout, folder: str, issues: list[str], warnings: list[str]
) -> tuple[Manifest | None, dict[str, object] | None]:
    """The Manifest, and the Claude manifest's raw value for its component paths (or None).

    A portable plugin.json is strict: an unknown key is an issue. A Claude manifest is read
    as published: its unknown keys are warnings. A package with no manifest is named after
    its `folder`.
    """
    claude = _claude_manifest(tree, layout, issues, warnings)
    if layout.bare:
        name = bare_name(folder)
        if name is None:
            issues.append(issue(folder or ".", "no plugin.json, and the folder name is not a "
                                "valid package name; add a plugin.json with a name"))
            return None, None
        return Manifest(name=name), None
    if layout.manifest not in tree.seen:
        issues.append(issue(layout.manifest, "missing: a package needs a plugin.json with a name"))
        return None, claude
    if layout.manifest == CLAUDE_MANIFEST:
        if claude is None:
            return None, None
        return convert(claude, Manifest, layout.manifest, issues), claude
    raw = tree.json_object(layout.manifest, issues)
    if raw is None:
        return None, claude
    return convert(raw, Manifest, layout.manifest, issues), claude


_MANIFEST_KEYS: Final = frozenset(f.encode_name for f in msgspec.structs.fields(Manifest))


def _claude_manifest(
    tree: Tree, layout: Layout, issues: list[str], warnings: list[str]
) -> dict[str, object] | None:
    """`.claude-plugin/plugin.json` with the keys uze does not read left out, each a warning,
    and the keys whose type Claude Code refuses (uze.package.claude_manifest)."""
    if not layout.claude:
        return None
    raw = tree.json_object(layout.claude, issues)
    if raw is None:
        return None
    for key in raw:
        if key not in _MANIFEST_KEYS:
            warnings.append(issue(layout.claude, key, "unknown key; ignored"))
    refused = refused_keys(raw, warnings)
    return {key: value for key, value in raw.items()
            if key in _MANIFEST_KEYS and key not in refused}


def validate_instructions(tree: Tree, issues: list[str]) -> Instructions | None:
    """The package's own AGENTS.md as its standing instructions, if it has one; UTF-8."""
    if INSTRUCTIONS not in tree.seen:
        return None
    if tree.text(INSTRUCTIONS, issues) is None:
        return Instructions((INSTRUCTIONS,), b"")
    data = tree.files[INSTRUCTIONS].data
    for number in marker_lines(data):
        issues.append(issue(f"{INSTRUCTIONS}:{number}", "holds a uze region marker, which "
                            "would break the region uze writes; remove that line"))
    return Instructions((INSTRUCTIONS,), data)


def validate_skills(
    tree: Tree, layout: Layout, paths: ComponentPaths, root_name: str,
    issues: list[str], warnings: list[str],
) -> tuple[Skill, ...]:
    """Read every skill folder (see `layout.skill_folders`); each holds a SKILL.md.

    A skill is named after its folder (`root_name` for a package that is one skill). A
    skill that cannot be read is skipped with a warning; so is a second skill of one name.
    Sorted by name.
    """
    strict = not layout.published
    _stray_skill_files(tree, strict, issues, warnings)
    skills: dict[str, Skill] = {}
    for folder in skill_folders(tree, layout, paths):
        name = _skill_name(folder.rsplit("/", 1)[-1] if folder else root_name, folder, warnings)
        skill = None if name is None else _read_skill(tree, name, folder, issues, warnings)
        if skill is None:
            continue
        if skill.name in skills:
            used = skills[skill.name].folder
            problem = f"skill {skill.name!r} is already read from {used}; skipped"
            warnings.append(issue(folder, problem))
            continue
        skills[skill.name] = skill
    return tuple(skills[name] for name in sorted(skills))


def _stray_skill_files(tree: Tree, strict: bool, issues: list[str], warnings: list[str]) -> None:
    """Files and folders in `skills/` that are not skills: issues in a portable package."""
    found = [issue(relpath, "not in a skill folder: a skill is skills/<name>/SKILL.md")
             for relpath in sorted(tree.seen)
             if relpath.startswith(f"{SKILLS}/") and relpath.count("/") == 1]
    found += [issue(folder, f"missing {SKILL_FILE}") for folder in sorted(tree.folders)
              if folder.startswith(f"{SKILLS}/") and folder.count("/") == 1
              and f"{folder}/{SKILL_FILE}" not in tree.seen]
    if strict:
        issues.extend(found)
    else:
        warnings.extend(f"{line}; skipped" for line in found)


def _skill_name(name: str, folder: str, warnings: list[str]) -> str | None:
    if name_problem(name) is None:
        return name
    slug = bare_name(name)
    where = folder or "."
    if slug is None:
        warnings.append(issue(where, f"{name_problem(name)}; skipped"))
        return None
    warnings.append(issue(where, f"{name_problem(name)}; installed as {slug!r}"))
    return slug


def _read_skill(
    tree: Tree, name: str, folder: str, issues: list[str], warnings: list[str]
) -> Skill | None:
    skill_md = f"{folder}/{SKILL_FILE}" if folder else SKILL_FILE
    frontmatter = _frontmatter(tree, skill_md, warnings)
    if frontmatter is None:
        return None
    declared = frontmatter.get("name", name)
    if declared != name:
        warnings.append(issue(skill_md, "name", f"{declared!r} differs from the folder name; "
                              f"installed as {name!r}"))
    invoke = _invoke_policy(frontmatter, skill_md, issues)
    if invoke is None:
        return None
    prefix = f"{folder}/" if folder else ""
    files = tuple(sorted(relpath for relpath in tree.files if relpath.startswith(prefix)))
    return Skill(name, folder, files, invoke, "invoke" in frontmatter, frontmatter)


def _frontmatter(tree: Tree, relpath: str, warnings: list[str]) -> dict[str, object] | None:
    parsed = read_frontmatter(tree, relpath, warnings)
    return None if parsed is None else parsed[0]


def resource_text(tree: Tree, relpath: str, warnings: list[str]) -> str | None:
    """The file of one resource as text; None, with a warning that says it is skipped, when it
    is not UTF-8."""
    found: list[str] = []
    text = tree.text(relpath, found)
    if text is None:
        warnings.extend(f"{line}; skipped" for line in found)
    return text


def read_frontmatter(tree: Tree, relpath: str, warnings: list[str]
                     ) -> tuple[dict[str, object], str] | None:
    """Frontmatter and body; None, with a warning that says the file is skipped, when the
    file is not UTF-8 or its frontmatter is not YAML (one resource, not the package)."""
    text = resource_text(tree, relpath, warnings)
    if text is None:
        return None
    try:
        frontmatter, body = split_frontmatter(text)
    except FrontmatterError as error:
        warnings.append(issue(relpath, f"{error}; skipped"))
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


def validate_agents(
    tree: Tree, paths: ComponentPaths, issues: list[str], warnings: list[str]
) -> tuple[Agent, ...]:
    """Read every `agents/**/<name>.md` and each agent a component path names. An agent that
    cannot be read, or whose name another already has, is skipped with a warning. Sorted by name."""
    first_use: dict[str, str] = {}
    first_label: dict[str, str] = {}
    agents: list[Agent] = []
    roots = (AGENTS, *paths.agents)
    for relpath in files_under(tree, roots, ".md"):
        agent = _read_agent(tree, relpath, roots, issues, warnings)
        if agent is None:
            continue
        if agent.name in first_use:
            used = first_use[agent.name]
            warnings.append(issue(relpath, f"agent name {agent.name!r} is already used by {used}; "
                                  "skipped"))
            continue
        label = "-".join((*agent.subdirs, agent.name))  # as agents_render.agent_label, sans package
        if label in first_label:  # agents/x/y.md and agents/z.md named x-y: one file
            warnings.append(issue(relpath, f"agent {agent.name!r} is installed as {label!r}, like "
                                  f"{first_label[label]}; rename one; skipped"))
            continue
        first_use[agent.name] = first_label[label] = relpath
        agents.append(agent)
    return tuple(sorted(agents, key=lambda agent: agent.name))


def _read_agent(
    tree: Tree, relpath: str, roots: tuple[str, ...], issues: list[str], warnings: list[str]
) -> Agent | None:
    parsed = read_frontmatter(tree, relpath, warnings)
    if parsed is None:
        return None
    frontmatter, body = parsed
    harness = frontmatter.get("harness", {})
    if not _is_harness_block(harness):
        issues.append(issue(relpath, "harness", "must map each harness id to a mapping of fields"))
        return None
    name = _agent_name(frontmatter, relpath, warnings)
    if name is None or not _agent_values(frontmatter, harness, relpath, warnings):
        return None
    return Agent(name, relpath, frontmatter, body, harness, _subdirs(relpath, roots))


def _agent_values(
    frontmatter: dict[str, object], harness: dict[str, dict[str, object]], relpath: str,
    warnings: list[str],
) -> bool:
    """Whether the description is text and every harness field is plain data that each
    harness format can hold; if not, a warning says the agent is skipped."""
    found = []
    if not isinstance(frontmatter.get("description", ""), str):
        found.append(issue(relpath, "description", "must be text"))
    for harness_id, fields in harness.items():
        for key, value in fields.items():
            problem = value_problem(value)
            if problem:
                found.append(issue(relpath, f"harness.{harness_id}.{key}", problem))
    warnings.extend(f"{line}; skipped" for line in found)
    return not found


def _subdirs(relpath: str, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The folders between the agents root that holds `relpath` and the file."""
    if relpath in roots:
        return ()
    root = max((r for r in roots if relpath.startswith(f"{r}/")), key=len, default="")
    inner = relpath[len(root) + 1 :] if root else relpath
    return PurePosixPath(inner).parent.parts


def _agent_name(frontmatter: dict[str, object], relpath: str, warnings: list[str]) -> str | None:
    """The agent's `name`, else its file name; a name that breaks the rule is made valid
    (lowercase, hyphens) with a warning, or the agent is skipped with one."""
    stem = PurePosixPath(relpath).stem
    name = frontmatter.get("name", stem)
    problem = name_problem(name)
    if problem is None:
        return str(name)
    slug = bare_name(name) if isinstance(name, str) else None
    slug = slug or bare_name(stem)
    where = issue(relpath, "name") if "name" in frontmatter else relpath
    if slug is None:
        warnings.append(issue(where, f"{problem}; skipped"))
        return None
    warnings.append(issue(where, f"{problem}; installed as {slug!r}"))
    return slug


def _is_harness_block(value: object) -> TypeGuard[dict[str, dict[str, object]]]:
    return isinstance(value, dict) and all(
        isinstance(key, str) and isinstance(fields, dict) for key, fields in value.items()
    )
