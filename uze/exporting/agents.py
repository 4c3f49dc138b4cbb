"""A harness's own agent files read back into portable agents (ADR 0095), by the harness's
`AgentFormat` data: Markdown or TOML, the keys it always writes (`fixed`) and the keys its
`harness:` block may carry (`allowed`).

A portable agent is `name`, `description`, the body (a Codex TOML agent's
`developer_instructions`) and `harness: {<id>: {...}}` with the harness's own allowed fields;
a fixed key with its fixed value is uze's to write again. Any other key is not carried and is
listed, naming the agent and the key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

from uze.exporting.files import resource_files
from uze.exporting.model import Exported, Found, Left
from uze.exporting.owned import Owned
from uze.harnesses.base import AgentFormat
from uze.location import Location
from uze.package.frontmatter import FrontmatterError, split_frontmatter

_BODY_KEY = "developer_instructions"  # a TOML agent's body (what uze writes for Codex)


def _fields(path: Path, fmt: AgentFormat) -> tuple[dict[str, object], str]:
    """The agent file's fields and body. Raises ValueError (a TOML or YAML problem)."""
    text = path.read_bytes().decode("utf-8")
    if fmt.suffix == ".toml":
        fields: dict[str, object] = dict(tomllib.loads(text))
        body = fields.pop(_BODY_KEY, "")
        return fields, body if isinstance(body, str) else ""
    try:
        front, body = split_frontmatter(text)
    except FrontmatterError as error:
        raise ValueError(str(error)) from None
    return dict(front), body


def portable_agent(harness: str, fmt: AgentFormat, path: Path) -> tuple[bytes, list[str]]:
    """The portable Markdown of the agent at `path`, and the keys it does not carry. Raises
    ValueError (with the reason) for a file that cannot be read as the harness's agent."""
    fields, body = _fields(path, fmt)
    name = fields.pop("name", path.stem)
    description = fields.pop("description", "")
    own: dict[str, object] = {}
    dropped: list[str] = []
    for key, value in fields.items():
        if fmt.fixed.get(key, ...) == value:
            continue
        if key in fmt.allowed:
            own[key] = value
        else:
            dropped.append(key)
    front: dict[str, object] = {"name": name, "description": description}
    if own:
        front["harness"] = {harness: own}
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000)
    text = f"---\n{head}---\n{body if body.endswith(chr(10)) or not body else body + chr(10)}"
    return text.encode(), dropped


def read_agents(harness: str, fmt: AgentFormat, loc: Location, owned: Owned,
                found: Found) -> None:
    """Each agent file of the harness's agents folder as a portable agent `agents/<path>.md`."""
    for path, inner in resource_files(fmt.folder(loc), fmt.suffix, owned):
        resource, source = inner[: -len(fmt.suffix)], loc.display(path)
        try:
            data, dropped = portable_agent(harness, fmt, path)
        except (OSError, UnicodeDecodeError, ValueError) as error:
            found.left.append(Left("agent", resource, source, f"cannot be read: {error}"))
            continue
        target = f"agents/{resource}.md"
        found.add(target, data)
        found.exported.append(Exported("agent", resource, source, target))
        found.left += [Left("agent", resource, source, f"key {key}: not a field uze carries for "
                            f"{harness} agents; not exported") for key in dropped]
