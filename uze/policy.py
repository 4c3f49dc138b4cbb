"""Organisation policy: `$UZE_HOME/policy.toml`, or the file `UZE_POLICY` names (issue 28 item 9,
ADR 0060). An administrator places it; it only tightens what uze does:

```toml
[sources]
allow = ["git+https://github.com/acme/*", "*@acme-tools", "./plugins/*"]  # glob patterns
[powers]
deny = ["hooks", "mcp", "permissions", "tools"]
[pins]
required = true  # a git package is installed only at a commit someone chose
```

- `[sources] allow`: a package source (typed, declared in uze.toml, pinned in uze.lock, or a
  marketplace entry `plugin@marketplace`) and a marketplace's own source must match one pattern
  (`fnmatch`, case-sensitive) in its canonical form (`git+<url>[@ref]`, `./folder`,
  `plugin@market`), its form without the ref, or (a folder) its absolute path. No `allow`: any.
- `[powers] deny`: a package that would run or grant one of these classes is refused, whatever
  `--trust` says (the classes are POWER_CLASSES).
- `[pins] required`: a git source must name a full commit (`@<40 hex>`, a catalog entry's `sha`)
  or be installed from the lock's commit; `update` cannot move such a package to a newer one.

A refusal names the rule and the file (exit 1). A policy that cannot be read, is not TOML, or
holds an unknown table, key or class is an error naming the file: a mistyped rule never silently
allows. No file (and no `UZE_POLICY`) is no policy.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

import msgspec

from uze.errors import NothingToDeliver, RequirementUnmet, UzeError
from uze.nesting import OverLimit, parse_bounded
from uze.paths import Paths
from uze.patterns import compile_later
from uze.sources.spec import Source

if TYPE_CHECKING:
    from uze.plan.model import Plan
    from uze.trust import Execution

PowerClass = Literal["hooks", "mcp", "permissions", "tools", "lsp", "monitors", "bin", "shell"]
POWER_CLASSES: Final = ("hooks", "mcp", "permissions", "tools", "lsp", "monitors", "bin", "shell")
# A declared power is listed as `<resource> (<key> for <harness>)` (uze.trust._declared), a
# command's as `<command> (allowed-tools)` or `<command> (inline shell)`.
_KEY: Final = compile_later(r"\((\S+(?: \S+)?)(?: for \S+)?\)$")
_BY_KEY: Final = {
    "hooks": "hooks", "mcpServers": "mcp", "mcp_servers": "mcp", "allowed-tools": "tools",
    "permissionMode": "permissions", "approval_policy": "permissions",
    "sandbox_mode": "permissions", "permission": "permissions", "permissions": "permissions",
    "inline shell": "shell",
}
# A package tool runs behind its generated MCP server (adr/0083): `mcp` denies it too.
_BY_KIND: Final = {"hook": "hooks", "mcp": "mcp", "tool": "mcp", "lsp": "lsp",
                   "monitor": "monitors", "bin": "bin"}
_COMMIT: Final = compile_later(r"[0-9a-f]{40}")


class _Sources(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    allow: list[str] | None = None


class _Powers(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    deny: list[PowerClass] = []


class _Pins(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    required: bool = False


class _File(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    sources: _Sources = _Sources()
    powers: _Powers = _Powers()
    pins: _Pins = _Pins()


class Policy(msgspec.Struct, frozen=True):
    """The rules of one policy file (`file` "" and no rule: no policy)."""

    file: str = ""
    allow: tuple[str, ...] | None = None
    deny: frozenset[str] = frozenset()
    pins: bool = False

    def _refused(self, what: str, rule: str) -> UzeError:
        return UzeError(f"{what}: refused by the policy rule {rule} ({self.file})",
                        hint=f"the policy only tightens (--trust does not lift it); ask whoever "
                             f"manages {self.file}")

    def check_source(self, source: Source, cwd: Path, *, locked: bool = False) -> None:
        """Refuse `source` (a package's, or a marketplace's own) unless `[sources] allow`
        matches it; with `[pins] required`, a git source not at a full commit unless `locked`
        (the lock's commit is used). Raises UzeError naming the rule and the file."""
        if self.allow is not None and not _matches(self.allow, _forms(source, cwd)):
            raise self._refused(f"source {source.canonical()}",
                                f"[sources] allow = {_shown(self.allow)}")
        if self.pins and source.kind == "git" and not locked and not _COMMIT.fullmatch(source.ref):
            raise self._refused(f"source {source.canonical()} is not pinned to a commit "
                                "(name one: SOURCE@<40 hex>)", "[pins] required = true")

    def check_powers(self, package: str, found: Iterable[Execution]) -> None:
        """Refuse a package that would run or grant a class `[powers] deny` names."""
        if not self.deny:
            return
        for execution in found:
            power = power_class(execution)
            if power in self.deny:
                raise self._refused(f"{package}: {execution.kind} {execution.name} ({power})",
                                    f"[powers] deny = {_shown(sorted(self.deny))}")


def power_class(execution: Execution) -> str:
    """The POWER_CLASSES name of what `execution` runs or grants ("" for none of them)."""
    key = _KEY.search(execution.name)
    if key is not None and key.group(1) in _BY_KEY:
        return _BY_KEY[key.group(1)]
    return _BY_KIND.get(execution.kind, "")


def _shown(patterns: Iterable[str]) -> str:
    return "[" + ", ".join(f'"{p}"' for p in patterns) + "]"


def _forms(source: Source, cwd: Path) -> list[str]:
    """What an allow pattern may match: the canonical string, without its ref, and for a
    folder its absolute path."""
    forms = [source.canonical(), msgspec.structs.replace(source, ref="").canonical()]
    if source.kind == "folder" and not source.location.startswith("~"):
        forms.append((cwd / source.location).resolve().as_posix())
    return forms


def _matches(patterns: Iterable[str], forms: list[str]) -> bool:
    return any(fnmatchcase(form, pattern) for pattern in patterns for form in forms)


def policy_file(paths: Paths) -> Path:
    """The file `UZE_POLICY` names, else `$UZE_HOME/policy.toml`."""
    named = paths.env.get("UZE_POLICY", "")
    return Path(named).absolute() if named else paths.uze_home / "policy.toml"


def _invalid(path: Path, why: str) -> UzeError:
    return UzeError(f"policy {path}: {why}", hint=f"fix {path} (tables: [sources] allow, "
                    f"[powers] deny, [pins] required) or ask whoever manages it")


def load_policy(paths: Paths) -> Policy:
    """The policy in force: no policy when there is no file (and `UZE_POLICY` is unset).
    Raises UzeError naming the file when it cannot be read or holds anything unknown."""
    path = policy_file(paths)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if paths.env.get("UZE_POLICY"):
            raise _invalid(path, "UZE_POLICY names a file that does not exist") from None
        return Policy()
    except OSError as exc:
        raise _invalid(path, f"cannot read it: {exc.strerror}") from None
    import tomllib  # start-up: only a policy file that exists is read (ADR 0106)

    try:
        rules = msgspec.convert(parse_bounded(tomllib.loads, raw.decode("utf-8")), _File)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, OverLimit, msgspec.ValidationError) as exc:
        raise _invalid(path, str(exc)) from None
    allow = rules.sources.allow
    return Policy(str(path), tuple(allow) if allow is not None else None,
                  frozenset(rules.powers.deny), rules.pins.required)


def check_plan(plan: Plan) -> None:
    """Refuse a plan before anything asks or writes: NothingToDeliver where every route is
    unsupported, RequirementUnmet where its author required a
    native route a harness cannot give, then UzeError for what the policy denies (`--trust` and
    a stored consent cannot lift either)."""
    if plan.projections and all(p.route == "unsupported" for p in plan.projections):
        raise NothingToDeliver(plan.package.name, plan.harnesses, [
            f"{p.harness}: {p.kind} {p.resource}: {p.reason}" for p in plan.projections])
    unmet = plan.unmet_requirements()
    if unmet:
        raise RequirementUnmet(plan.package.name, [
            f"{p.harness}: {p.kind} {p.resource}: {p.route}: {p.reason}" for p in unmet])
    load_policy(plan.location.paths).check_powers(plan.package.name, plan.executions)
