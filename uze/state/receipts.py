"""Receipts: what uze wrote for one package in one scope, the root of ownership and of GC.

A receipt lists every projection (kind, resource, harness, route, reason, target) and every
artifact with the digest of exactly the bytes uze wrote. It never holds file contents or secret
values. Project scope: `<project>/.uze/receipts/<name>.json`; user scope:
`$UZE_HOME/receipts/<name>.json`.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Literal

import msgspec

from uze import canonical
from uze.containment import relpath_problem
from uze.errors import LinkRefused, ReceiptRefused, ReceiptUnreadable
from uze.names import name_problem
from uze.patterns import compile_later
from uze.vocabulary import ConfigFormat, Kind, Route, Scope

if TYPE_CHECKING:
    from uze.containment import Roots

SCHEMA_VERSION: Final = 1
# \Z, not $: msgspec searches with Python's re, where $ also matches before a final newline.
Digest = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}\Z")]


class _Model(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Receipt records are msgspec Structs, not pydantic models (ADR 0015): importing pydantic
    was most of `uze status` and `uze uninstall`. Same rules: unknown keys refused,
    frozen, every field typed and checked on load and before every dump."""


class ProjectionRecord(_Model, frozen=True, kw_only=True):
    """One (resource, harness) pair: how it was routed and which artifact delivers it."""

    kind: Kind
    resource: str
    harness: str
    route: Route
    reason: str = ""
    target: str = ""
    label: str = ""  # what a user types in that harness to invoke it (ADR 0041)


class _Artifact(_Model, frozen=True, tag_field="type"):
    """An artifact record; its JSON `type` tag names the class, and each class repeats it as
    the class variable `type`, typed as a Literal, so that comparing `.type` narrows the
    `Artifact` union for the type checker (tests/unit/test_receipts.py checks they agree)."""


class TreeArtifact(_Artifact, frozen=True, tag="tree", kw_only=True):
    """A folder uze created whole; `files` maps each relative path to the digest written."""

    type: ClassVar[Literal["tree"]] = "tree"

    target: str
    files: dict[str, Digest]
    executables: list[str] = []
    harnesses: list[str]


class RegionArtifact(_Artifact, frozen=True, tag="region", kw_only=True):
    """A delimited region in a text file; `digest` is of the body with CRLF read as LF."""

    type: ClassVar[Literal["region"]] = "region"

    target: str
    region: str
    digest: Digest
    lead: str = ""
    harnesses: list[str]


class FileArtifact(_Artifact, frozen=True, tag="file", kw_only=True):
    """A whole file uze created (an agent definition); `digest` of exactly what was written."""

    type: ClassVar[Literal["file"]] = "file"

    target: str
    digest: Digest
    harnesses: list[str]


class EntryArtifact(_Artifact, frozen=True, tag="entry", kw_only=True):
    """One entry at `key_path` in a harness config file; `digest` of its canonical JSON value.

    `add_info` tells the remover what else the add created (never a value: no secrets here).
    """

    type: ClassVar[Literal["entry"]] = "entry"

    target: str
    format: ConfigFormat
    key_path: list[str]
    digest: Digest
    add_info: dict[str, Any]
    seq: int = 0
    harnesses: list[str]


class ElementArtifact(_Artifact, frozen=True, tag="element", kw_only=True):
    """One element uze appended to an array (a hook group in a harness's hook config).

    `marker` is the wrapper command it runs: how an edited element is still recognised.
    """

    type: ClassVar[Literal["element"]] = "element"

    target: str
    format: ConfigFormat
    key_path: list[str]
    group: str
    digest: Digest
    marker: str
    info: dict[str, Any]
    seq: int = 0
    harnesses: list[str]


Artifact = TreeArtifact | RegionArtifact | FileArtifact | EntryArtifact | ElementArtifact


class Off(_Model, frozen=True, kw_only=True):
    """What `uze disable` switched off (ADR 0087): one resource ("" = the whole package) in one
    harness ("" = every harness the package is installed for)."""

    resource: str = ""
    harness: str = ""

    def covers(self, resource: str, harness: str) -> bool:
        """Whether the (resource, harness) pair is off by this switch."""
        return self.resource in ("", resource) and self.harness in ("", harness)

    def locked(self) -> str:
        """As uze.lock keeps it: `RESOURCE[@HARNESS]`, `*` for the whole package."""
        return (self.resource or "*") + (f"@{self.harness}" if self.harness else "")

    @classmethod
    def from_lock(cls, text: str) -> Off:
        """The switch uze.lock spells `text` (checked there by `uze.sources.lockfile`)."""
        resource, _, harness = text.partition("@")
        return cls(resource="" if resource == "*" else resource, harness=harness)

    def spelled(self, package: str) -> str:
        """As a user types it: `NAME[:RESOURCE]`, with ` in HARNESS` when it names one."""
        what = f"{package}:{self.resource}" if self.resource else package
        return what + (f" in {self.harness}" if self.harness else "")


class Receipt(_Model, frozen=True, kw_only=True):
    """Everything uze wrote for one package version in one scope."""

    schema_version: int = SCHEMA_VERSION
    name: str
    version: str
    tree: Digest
    scope: Scope
    harnesses: list[str]
    status: Literal["pending", "complete"] = "complete"
    projections: list[ProjectionRecord]
    artifacts: list[Artifact]
    trust: str = ""
    executions: list[str] = []
    # Keys of artifacts whose bytes are a committed edit this user never accepted, in a package
    # that runs something (ADR 0064): `status --check` fails on them; `install --force` puts the
    # accepted bytes back. Left out of the file when empty.
    unconsented: list[str] = []
    # What `uze disable` switched off (ADR 0087), kept by every re-install and update. Left out
    # of the file when empty.
    disabled: list[Off] = []
    # The setting values the user gave (`--set`, the terminal, uze.lock; never a sensitive one
    # or an author's default), kept by re-installs and updates and pinned in uze.lock (ADR
    # 0103). Left out of the file when empty.
    settings: dict[str, str] = {}


class KeptReceipt(msgspec.Struct, array_like=True, frozen=True):
    """A receipt as `uze.state.receipt_cache` keeps it: decoded and checked, with the stat of
    the file it was read from (ADR 0101)."""

    stat: tuple[int, int, int, int, int]
    receipt: Receipt


class KeptReceipts(msgspec.Struct, array_like=True):
    """The body of a receipt cache file: the uze version that checked them, the scope's root
    and HOME they were checked against, and each kept receipt by file name."""

    schema: int
    version: str
    root: str
    receipts: dict[str, KeptReceipt]


def dump_receipt(receipt: Receipt) -> bytes:
    """Canonical bytes: UTF-8 JSON, indent 2, sorted keys, trailing newline.

    The data is validated first (a Struct's constructor does not check types): a receipt uze
    could not read back is never written.
    """
    data = msgspec.to_builtins(receipt)
    msgspec.convert(data, Receipt)
    for key in ("unconsented", "disabled", "settings"):  # every other receipt stays byte-identical
        if not data[key]:
            del data[key]
    return canonical.dumps(data)


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older receipt up to SCHEMA_VERSION (schema 1 is the first: nothing to do)."""
    return data


_AT = compile_later(r"^(?P<msg>.*) - at `\$(?P<where>[^`]*)`$", re.DOTALL)


def _located(error: msgspec.ValidationError) -> str:
    """msgspec's "Expected `str`, got `int` - at `$.artifacts[0].target`" as
    "artifacts.0.target: Expected `str`, got `int`" (the `location: message` form of STYLE.md)."""
    text = str(error)
    found = _AT.match(text)
    if found is None:
        return text
    # `[0]` is a list index; `[...]` a value in a mapping (msgspec does not name the key).
    where = re.sub(r"\[(\d+)\]", r".\1", found["where"]).replace("[...]", ".<key>").lstrip(".")
    return f"{where}: {found['msg']}" if where else found["msg"]


def load_receipt(path: Path) -> Receipt:
    """Parse one receipt. Raises ReceiptUnreadable for bad JSON, bad shape or a newer schema."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReceiptUnreadable(path, str(exc)) from None
    return parse_receipt(raw, path)


def parse_receipt(raw: bytes, path: Path) -> Receipt:
    """`load_receipt` for bytes already read from `path` (named in errors).

    msgspec decodes a well-formed receipt of this schema straight into the Struct (ADR 0079:
    a fifth of json.loads + convert); anything it refuses, or a newer schema, takes the path
    below, whose messages say what is wrong."""
    try:
        fast = msgspec.json.decode(raw, type=Receipt)
    except (msgspec.DecodeError, RecursionError):
        pass
    else:
        if fast.schema_version <= SCHEMA_VERSION:
            return fast
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ReceiptUnreadable(path, str(exc)) from None
    except RecursionError:
        raise ReceiptUnreadable(path, "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise ReceiptUnreadable(path, "not a JSON object")
    version = data.get("schema_version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise ReceiptUnreadable(
            path, f"written by a newer uze (schema {version})", hint="upgrade uze"
        )
    try:
        return msgspec.convert(migrate(data), Receipt)
    except msgspec.ValidationError as exc:
        raise ReceiptUnreadable(path, _located(exc)) from None


def check_receipt(receipt: Receipt, path: Path, roots: Roots, *, links: bool = True,
                  own: bool = True) -> Receipt:
    """Return `receipt` if it may be acted on: its name is its file's and a valid package name,
    its scope is `roots`' scope, and every artifact names a place uze writes there, reached
    through no symbolic link in a project (ADR 0020). Else raise ReceiptRefused listing every
    problem, located: a receipt is refused whole, so nothing it names is touched.

    `links=False` leaves out the link checks (the file system's, not the receipt's): for a
    receipt whose targets the command neither reads nor writes (ADR 0079). `own=False` does
    only the link checks: for a receipt whose very bytes passed the others before (kept by
    its file's stat, ADR 0101)."""

    if not own:
        problems = [f"artifacts.{index}.target: {why}"
                    for index, record in enumerate(receipt.artifacts)
                    if (why := _link_problem(record, roots))] if links else []
        if problems:
            raise ReceiptRefused(path, problems)
        return receipt
    problems = []
    if receipt.name != path.name.removesuffix(".json"):
        problems.append(f"name: {receipt.name!r} is not this file's package name")
    elif (why := name_problem(receipt.name)) is not None:
        problems.append(f"name: {why}")
    if receipt.scope != roots.scope:
        problems.append(f"scope: {receipt.scope!r} in a {roots.scope}-scope receipts folder")
    for index, record in enumerate(receipt.artifacts):
        problems += [f"artifacts.{index}.{why}"
                     for why in _artifact_problems(record, roots, links)]
    if problems:
        raise ReceiptRefused(path, problems)
    return receipt


# The relative paths inside folders repeat from package to package (SKILL.md, references/...):
# each is checked once per process.
_relpath_problem = functools.lru_cache(maxsize=4096)(relpath_problem)


def _artifact_problems(record: Artifact, roots: Roots, links: bool) -> list[str]:
    whole = not isinstance(record, TreeArtifact | FileArtifact)
    why = roots.file_problem(record.target) if isinstance(record, FileArtifact) \
        else roots.target_problem(record.target, whole_file=whole)
    if why is not None:
        return [f"target: {why}"]
    out = []
    if isinstance(record, TreeArtifact):
        out += [f"files: {why}" for rel in record.files if (why := _relpath_problem(rel))]
        out += [f"executables: {why}" for rel in record.executables
                if (why := _relpath_problem(rel))]
    if links and (why := _link_problem(record, roots)) is not None:
        out.append(f"target: {why}")
    return out


def _link_problem(record: Artifact, roots: Roots) -> str | None:
    try:
        roots.check_target_links(record.target)
    except LinkRefused as refused:
        return f"{refused.path} is a symbolic link"
    return None


def receipt_path(folder: Path, name: str) -> Path:
    """Where the receipt of package `name` lives in a receipts folder."""
    return folder / f"{name}.json"


def list_receipts(folder: Path) -> list[Receipt]:
    """Every receipt in `folder`, sorted by package name."""
    if not folder.is_dir():
        return []
    # iterdir, not glob: glob reads a folder it may not list as empty (PermissionError)
    return [load_receipt(path) for path in sorted(p for p in folder.iterdir()
                                                  if p.name.endswith(".json"))]
