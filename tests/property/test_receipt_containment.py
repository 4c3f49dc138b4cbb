"""No receipt, valid or hostile, makes a command touch a path outside the places uze writes.

Hypothesis generates receipts (names, targets, kinds; digests that match the victims' bytes, so
that a trusted receipt would remove them) and runs uninstall, uninstall --force, status and an
install of the same-named package on each. Every path the `fs` layer is asked to write, remove,
rename or create is recorded and must lie in the allowed roots (the project's uze places and
$UZE_HOME); and every byte outside them is unchanged (ADR 0020).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import build_tree, tree_bytes
from uze import fs
from uze.commands.install import install
from uze.commands.status import status
from uze.commands.uninstall import uninstall
from uze.containment import PROJECT_FILES, PROJECT_FOLDERS
from uze.errors import UzeError
from uze.paths import Paths
from uze.projections.statcache import DigestCache

VICTIMS = {  # relative to the world root: files no receipt may make uze touch
    "home/.bashrc": "export PATH=$HOME/bin:$PATH\n",
    "home/.claude/settings.json": '{"theme": "dark"}\n',
    "outside/keep.txt": "mine\n",
    "project/package.json": '{"private": true}\n',
    "project/src/main.py": "print('hi')\n",
    "project/.git/config": "[core]\n",
    "project/AGENTS.md": "# the team's\n",
}
TARGETS = [  # valid places first, then everything a hostile receipt might name
    ".claude/skills/tidy-x", ".agents/skills/tidy-x", ".claude/agents/tidy.md", "AGENTS.md",
    ".mcp.json", ".codex/config.toml", ".uze/packages/tidy",
    "~/.bashrc", "~/.claude/settings.json", "../outside", "../outside/keep.txt", "/WORLD/outside",
    "package.json", "src", "src/main.py", ".git", ".git/config", ".", "", "..", ".claude/skills",
    ".claude/skills/../../package.json", "AGENTS.md/../package.json", "./AGENTS.md",
    ".claude/skills/a/b", "~", "~/", ".uze", ".uze/receipts/tidy.json",
]
NAMES = ["tidy", "../../package", "../tidy", "tidy/../tidy", "Tidy", "", "other",
         "../../../home/.bashrc"]
PACKAGE = {"plugin.json": '{"name": "tidy", "version": "1.0.0"}', "AGENTS.md": "Be tidy.\n"}


def _digest_of(world: Path, target: str) -> str:
    """The digest of the victim a target would reach (any digest if none): a trusted receipt
    would find it "matched" and remove it."""
    for rel in VICTIMS:
        path = world / rel
        if rel.endswith(target.lstrip("~/.").split("/")[-1]) and path.is_file():
            return DigestCache(None).digest(path, path.lstat())
    return "0" * 64


def _artifact(world: Path, kind: str, target: str, files: list[str]) -> dict[str, Any]:
    target = target.replace("/WORLD", str(world))
    digest = _digest_of(world, target)
    common = {"target": target, "harnesses": ["codex"]}
    if kind == "tree":
        return {**common, "type": "tree", "files": dict.fromkeys(files, digest), "executables": []}
    if kind == "file":
        return {**common, "type": "file", "digest": digest}
    if kind == "region":
        return {**common, "type": "region", "region": "tidy", "digest": digest}
    shape = {"format": "json", "key_path": ["mcpServers", "tidy"], "digest": digest}
    if kind == "entry":
        return {**common, **shape, "type": "entry",
                "add_info": {"mode": "member", "first_new_key": 1}}
    return {**common, **shape, "type": "element", "group": "g", "marker": "m",
            "info": {"mode": "element"}}


artifacts = st.lists(
    st.tuples(st.sampled_from(["tree", "file", "region", "entry", "element"]),
              st.sampled_from(TARGETS),
              st.lists(st.sampled_from(["SKILL.md", "../../package.json", "a/b.md", "..", ""]),
                       max_size=2, unique=True)),
    max_size=4,
)


@contextmanager
def _recorded(touched: list[Path]) -> Iterator[None]:
    """Record every path handed to the fs layer's writers while the block runs."""
    names = ("atomic_write", "remove_file", "remove_tree", "rename", "make_dir",
             "remove_dir_if_empty", "remove_read_only", "append_durable", "replace_unsynced")
    real = {name: getattr(fs, name) for name in names}

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            touched.extend(a for a in args if isinstance(a, Path))
            return function(*args, **kwargs)
        return call

    for name in names:
        setattr(fs, name, wrap(real[name]))
    try:
        yield
    finally:
        for name in names:
            setattr(fs, name, real[name])


def _allowed(world: Path, path: Path) -> bool:
    project, uze_home = world / "project", world / "uze-home"
    if path.is_relative_to(uze_home):
        return True
    if not path.is_relative_to(project):
        return False
    rel = path.relative_to(project).as_posix()
    places = (*PROJECT_FILES, *PROJECT_FOLDERS, ".uze")
    return any(rel == p or rel.startswith(p + "/") or p.startswith(rel + "/") for p in places)


def _outside(world: Path) -> dict[str, bytes | str]:
    return {rel: v for rel, v in tree_bytes(world).items() if not _allowed(world, world / rel)}


@given(name=st.sampled_from(NAMES), scope=st.sampled_from(["project", "user"]),
       records=artifacts)
def test_no_command_touches_a_path_outside_the_allowed_roots(
    name: str, scope: str, records: list[tuple[str, str, list[str]]]
) -> None:
    world = Path(tempfile.mkdtemp(prefix="uze-contain-"))
    try:
        build_tree(world, VICTIMS)
        build_tree(world / "pkg", PACKAGE)
        project = world / "project"
        paths = Paths.from_env({"HOME": str(world / "home"), "UZE_HOME": str(world / "uze-home")})
        receipt = {"artifacts": [_artifact(world, *r) for r in records], "harnesses": ["codex"],
                   "name": name, "projections": [], "schema_version": 1, "scope": scope,
                   "status": "complete", "tree": "0" * 64, "version": "1.0.0"}
        build_tree(project / ".uze/receipts", {"tidy.json": json.dumps(receipt)})
        before = _outside(world)
        touched: list[Path] = []
        commands: list[Callable[[], object]] = [
            lambda: status(paths, cwd=project),
            lambda: uninstall(paths, "tidy", cwd=project),
            lambda: uninstall(paths, "tidy", force=True, cwd=project),
            lambda: install(paths, world / "pkg", harness="codex", cwd=project),
        ]
        for command in commands:
            # Refused or not: the property is about what was touched, not the verdict.
            with _recorded(touched), contextlib.suppress(UzeError):
                command()
            escaped = [p for p in touched if not _allowed(world, p)]
            assert not escaped, escaped
            assert _outside(world) == before
    finally:
        shutil.rmtree(world)
