"""The skills inside a marketplace's plugins, so `uze search` finds a plugin by one of its
skills (issue 31 item 4). Built when a marketplace is added or updated, from its checkout:
for each entry whose folder is inside the marketplace, the skills its `skills` list names
(a skill folder, or a folder of them), else its `skills/<name>/SKILL.md` and a root
`SKILL.md`; an entry fetched from elsewhere contributes the folder names its list gives. Each
skill by its frontmatter `name` (else its folder) and `description`. Kept beside the cached
catalog as `$UZE_HOME/marketplaces/<name>.skills.json`; searching reads no network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from uze.sources.catalog import Catalog, Entry
from uze.sources.spec import Source

_SKILL: Final = "SKILL.md"
_MAX_BYTES: Final = 256 * 1024  # a SKILL.md's frontmatter is near its top
Index = dict[str, list[dict[str, str]]]


def _listed(value: Any) -> list[str]:
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.removeprefix("./").rstrip("/") for item in items
            if isinstance(item, str) and ".." not in item.split("/")
            and not item.startswith("/")]


def _describe(skill_md: Path) -> dict[str, str]:
    """A skill's name and description from its frontmatter (its folder's name when unread)."""
    from uze.package.frontmatter import FrontmatterError, split_frontmatter

    name, description = skill_md.parent.name, ""
    try:
        with skill_md.open("rb") as handle:
            text = handle.read(_MAX_BYTES).decode("utf-8", errors="replace")
        front, _body = split_frontmatter(text)
    except (OSError, FrontmatterError):
        return {"name": name, "description": description}
    found = front.get("name")
    text_name = found if isinstance(found, str) and found.strip() else name
    given = front.get("description")
    return {"name": text_name.strip(), "description": given.strip() if isinstance(given, str)
            else ""}


def _skill_files(folder: Path, entry: Entry) -> list[Path]:
    """The SKILL.md files of the plugin at `folder` (see the module docstring), sorted."""
    listed = _listed(entry.lists.get("skills"))
    roots = [folder / rel for rel in listed] if listed else [folder / "skills"]
    found: set[Path] = set()
    for root in roots:
        if (root / _SKILL).is_file():
            found.add(root / _SKILL)
        elif root.is_dir() and not root.is_symlink():
            found.update(p for p in root.glob(f"*/{_SKILL}") if p.is_file())
    if not listed and (folder / _SKILL).is_file():
        found.add(folder / _SKILL)
    return sorted(found)


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def build(root: Path, catalog: Catalog) -> Index:
    """The skills of each entry of `catalog`, read at `root` (the marketplace's checkout;
    `catalog` parsed against `Source("folder", root)`); links out of `root` are not followed."""
    index: Index = {}
    for entry in catalog.entries:
        own = entry.source
        if own is not None and own.kind == "folder" and _inside(Path(own.location), root):
            skills = [_describe(p) for p in _skill_files(Path(own.location), entry)
                      if _inside(p, root)]
        else:
            skills = [{"name": Path(rel).name, "description": ""}
                      for rel in _listed(entry.lists.get("skills")) if rel]
        if skills:
            index[entry.name] = skills
    return index


def local_base(root: Path) -> Source:
    """The base to parse a catalog against so its entries inside `root` are folders."""
    return Source("folder", str(root))


def dumps(index: Index) -> bytes:
    """The index file's bytes."""
    return (json.dumps({"schema": 1, "plugins": index}, indent=2, sort_keys=True) + "\n").encode()


def loads(raw: bytes) -> Index:
    """An index file read back ({} for one that does not read as an index: it is a cache)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        return {}
    return {name: [s for s in skills if isinstance(s, dict)
                   and isinstance(s.get("name"), str) and isinstance(s.get("description"), str)]
            for name, skills in plugins.items() if isinstance(skills, list)}
