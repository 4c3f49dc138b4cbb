"""Trust: everything a package will run or allow, with the digest of each package file it runs.

Collected while planning (pure). Install asks before the first install and again when the set
or any file of the package changes (ADR 0021); a package with nothing executable asks nothing.
What is listed beyond MCP servers and hooks is one table, POWERS. Environment variables and
secret-looking arguments appear by name only: a value is never shown or stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Final

import msgspec

from uze.harnesses import REGISTRY
from uze.harnesses.base import INLINE_SHELL
from uze.package import McpServer, Package
from uze.package.tools import server_name
from uze.patterns import compile_later
from uze.projections.digest import content_digest

_INLINE_SHELL: Final = re.compile(r"!`([^`\n]+)`")
_PACKAGE_PATH: Final = compile_later(
    r"(?:\$\{(?:CLAUDE_)?PLUGIN_ROOT\}/|\$(?:CLAUDE_)?PLUGIN_ROOT/|^\./)([^\s\"']+)")


class Execution(msgspec.Struct, frozen=True):
    """One thing that will run or be allowed: an MCP server, a hook handler, or a key of POWERS.
    `args` hold no secret value (`hide_secrets`); `secret_names` name the hidden ones."""

    kind: str
    name: str
    command: str
    args: tuple[str, ...]
    cwd: str
    env_names: tuple[str, ...]
    files: tuple[tuple[str, str], ...]  # (package path, blake3 digest) of files it runs
    secret_names: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for a person: what runs, with which files and variable names."""
        line = " ".join([self.command, *self.args])
        parts = [f"{self.kind} {self.name}: {line}"]
        if self.cwd:
            parts.append(f"cwd {self.cwd}")
        if self.env_names:
            parts.append(f"env {', '.join(self.env_names)}")
        if self.secret_names:
            parts.append(f"secret args {', '.join(self.secret_names)}")
        parts += [f"{path} blake3:{digest[:16]}" for path, digest in self.files]
        return "; ".join(parts)


def run_files(package: Package, texts: list[str]) -> tuple[tuple[str, str], ...]:
    """(package path, digest) of each package file `texts` name (`${PLUGIN_ROOT}/x`, `./x`)."""
    found = {m.group(1) for text in texts for m in _PACKAGE_PATH.finditer(text)}
    return tuple(
        (rel, content_digest(package.files[rel].data))
        for rel in sorted(found) if rel in package.files
    )


_SECRET_WORDS: Final = frozenset({
    "token", "secret", "password", "passwd", "pwd", "pass", "apikey", "key", "auth",
    "authorization", "credential", "credentials", "bearer", "cookie",
})
_SECRET_VALUE: Final = compile_later(
    r"^(?:ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|sk-|xox[abpr]-|AKIA|Bearer\s)")
_NOT_A_VALUE: Final = frozenset({
    "file", "path", "dir", "type", "url", "env", "var", "name", "mode"})
HIDDEN: Final = "<hidden>"
_CAMEL_WORD: Final = compile_later(r"(?<=[a-z0-9])(?=[A-Z])")


def names_secret(name: str) -> bool:
    """Whether a key names a secret (`API_KEY`, `client-secret`, `Authorization`, `apiToken`):
    a word of it is in _SECRET_WORDS and its last word does not name a file, path, type,
    variable or mode (`KEY_FILE`, `token-env`). The rule of `hide_secrets` (ADR 0021), shared
    by `uze export` (ADR 0095)."""
    words = re.split(r"[-_\s]+", _CAMEL_WORD.sub("_", name).lower())
    return words[-1] not in _NOT_A_VALUE and any(word in _SECRET_WORDS for word in words)


def looks_secret(value: str) -> bool:
    """Whether a value starts like a well-known credential (`ghp_`, `sk-`, `Bearer `...)."""
    return _SECRET_VALUE.match(value) is not None


def _secret_option(option: str) -> bool:
    """`--api-key`, `--client_secret`, `--token`: a long option naming a secret (ADR 0021)."""
    return option.startswith("--") and names_secret(option[2:])


def hide_secrets(args: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The arguments with every secret-looking value replaced by HIDDEN, and the names of those
    values (the option, or `arg N` for a bare credential-shaped value). The rule (ADR 0021): the
    value after `--<name>` or in `--<name>=<value>` where a word of the name is in
    _SECRET_WORDS and the last word does not name a file, path, type, variable or mode
    (`--key-file`, `--token-env`), and any argument starting like a well-known credential
    (_SECRET_VALUE)."""
    shown: list[str] = []
    names: list[str] = []
    pending = ""
    for index, arg in enumerate(args):
        option, equals, value = arg.partition("=")
        if pending and not arg.startswith("--"):
            shown.append(HIDDEN)
            names.append(pending)
        elif equals and _secret_option(option) and value:
            shown.append(f"{option}={HIDDEN}")
            names.append(option)
        elif _SECRET_VALUE.match(arg):
            shown.append(HIDDEN)
            names.append(f"arg {index + 1}")
        else:
            shown.append(arg)
        pending = arg if not equals and _secret_option(arg) else ""
    return tuple(shown), tuple(dict.fromkeys(names))


def command_run(package: Package, kind: str, name: str, command: str,
                args: Sequence[str] = (), cwd: str = "",
                env_names: Sequence[str] = ()) -> Execution:
    """A command that will start: its secret-looking arguments hidden, its environment by
    variable name only, and the digest of each package file it names."""
    shown, secrets = hide_secrets(args)
    return Execution(kind, name, command, shown, cwd, tuple(sorted(env_names)),
                     run_files(package, [command, *args, cwd]), secrets)


def _server(package: Package, server: McpServer) -> Execution:
    return command_run(package, "mcp", server.name, server.command or "", server.args,
                       server.cwd or "", tuple(server.env))


def _tools(package: Package, delivered_mcp: set[str]) -> list[Execution]:
    """Each tool's command, where the package's tool server is delivered (adr/0083): the
    server runs it for the model, so it is listed like a server's command (kind `tool`)."""
    server = server_name(package.name)
    if server not in delivered_mcp:
        return []
    return [command_run(package, "tool", f"{tool.name} (MCP server {server})", tool.command,
                        tool.args or ()) for tool in package.tools]


def _handlers(package: Package, hooked: set[str]) -> list[Execution]:
    found: list[Execution] = []
    if package.hooks is None:
        return found
    for event, groups in package.hooks.hooks.items():
        for index, group in enumerate(groups):
            name = group.id or f"{event}-{index}"
            if name not in hooked:
                continue
            label = f"{name} ({event}, {group.effect}, {group.matcher or 'every tool'})"
            for h in group.hooks:
                if h.command is None:  # a prompt or agent handler: what the model is told
                    told = {k: v for k, v in msgspec.to_builtins(h).items() if v is not None}
                    line = json.dumps(told, sort_keys=True)
                    found.append(Execution("hook", label, line, (), "", (), ()))
                    continue
                args, secrets = hide_secrets(h.args or ())
                found.append(Execution("hook", label, h.command, args, "", (),
                                       run_files(package, [h.command, *(h.args or ())]), secrets))
    return found


def _claude_handlers(package: Package, hooked: set[str]) -> list[Execution]:
    """Each handler of each delivered Claude-protocol group: its command, or for a prompt,
    agent or http handler its whole JSON (what Claude Code will act on)."""
    found: list[Execution] = []
    groups = package.claude_hooks.groups if package.claude_hooks is not None else ()
    for group in groups:
        handlers = group.value.get("hooks")
        if group.name not in hooked or not isinstance(handlers, list):
            continue
        matcher = group.value.get("matcher") or "every tool"
        label = f"{group.name} ({group.event}, Claude protocol, {matcher})"
        for handler in handlers:
            command = handler.get("command") if isinstance(handler, dict) else None
            line = str(command) if command else json.dumps(handler, sort_keys=True)
            found.append(Execution("hook", label, line, (), "", (), run_files(package, [line])))
    return found


class Power(msgspec.Struct, frozen=True):
    """One place a package can make a harness run something or widen permissions (ADR 0021):
    a `uze.harnesses.base.Power` of the harness `harness`."""

    where: str
    harness: str
    key: str
    power: str
    source: str


# The rule, as data: every key a harness documents as executing or granting (ADR 0021),
# declared by each harness module (`Harness.trust.powers`), in registry order.
POWERS: Final = tuple(
    Power(p.where, h.id, p.key, p.power, p.source)
    for h in REGISTRY.values() for p in h.trust.powers
)


def shown(value: object) -> str:
    """A declared value as one line: a string as it is, anything else as sorted JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _declared(kind: str, name: str, power: Power, value: object) -> Execution:
    text = shown(value)
    command = text if power.power == "runs" else f"grants: {text}"
    return Execution(kind, f"{name} ({power.key} for {power.harness})", command, (), "", (), ())


def _skill_powers(package: Package, skills: Mapping[str, set[str]]) -> list[Execution]:
    """What a delivered skill's frontmatter and body make its harness run or allow."""
    found: list[Execution] = []
    for power in POWERS:
        if not power.where.startswith("skill"):
            continue
        for skill in package.skills:
            if skill.name not in skills.get(power.harness, set()):
                continue
            if power.key == INLINE_SHELL:
                data = package.files[skill.skill_md].data
                text = data.decode("utf-8", "replace")
                found += [_declared("skill", skill.name, power, m.group(1).strip())
                          for m in _INLINE_SHELL.finditer(text)]
            elif skill.frontmatter.get(power.key) not in (None, "", [], {}):
                found.append(_declared("skill", skill.name, power, skill.frontmatter[power.key]))
    return found


def _agent_powers(package: Package, agents: Mapping[str, set[str]],
                  written: Mapping[str, frozenset[str]]) -> list[Execution]:
    """What a delivered agent's `harness:` block makes its harness run or allow; `written` is
    the block keys uze writes per harness (the others are dropped, named in the route)."""
    found: list[Execution] = []
    for power in POWERS:
        if power.where != "agent" or power.key not in written.get(power.harness, frozenset()):
            continue
        for agent in package.agents:
            value = agent.harness.get(power.harness, {}).get(power.key)
            fmt = REGISTRY[power.harness].agents
            if value is None and fmt is not None and fmt.claude_keys:
                value = agent.frontmatter.get(power.key)  # it gets the file's own keys
            if agent.name in agents.get(power.harness, set()) and value not in (None, "", [], {}):
                found.append(_declared("agent", agent.name, power, value))
    return found


def executions(
    package: Package, delivered_mcp: set[str], hooked: set[str] = frozenset(),  # type: ignore[assignment]
    skills: Mapping[str, set[str]] | None = None,
    agents: Mapping[str, set[str]] | None = None,
    written: Mapping[str, frozenset[str]] | None = None,
    commands: set[str] | None = None,
) -> list[Execution]:
    """What the package will run or allow: MCP servers, the tools of its generated tool server,
    hook handlers, and every key of POWERS that a delivered skill or agent declares. `skills`
    and `agents`: the names delivered per harness; `written`: the agent keys uze writes per
    harness."""
    servers = [
        _server(package, server)
        for server in package.mcp_servers
        if server.command and server.name in delivered_mcp
    ]
    return (servers + _tools(package, delivered_mcp) + _handlers(package, set(hooked))
            + _claude_handlers(package, set(hooked))
            + _skill_powers(package, skills or {})
            + _agent_powers(package, agents or {}, written or {})
            + _command_lines(package, commands or set()))


def _command_lines(package: Package, commands: set[str]) -> list[Execution]:
    """A command file's `!`command`` lines run when the user invokes it (Claude Code and
    OpenCode), and its `allowed-tools` run without asking in Claude Code."""
    found: list[Execution] = []
    for command in package.commands:
        if command.name not in commands:
            continue
        found += [Execution("command", f"{command.name} (inline shell)", m.group(1).strip(),
                            (), "", (), ())
                  for m in _INLINE_SHELL.finditer(command.body)]
        granted = command.frontmatter.get("allowed-tools")
        if granted:
            tools = granted if isinstance(granted, str) else ", ".join(map(str, granted))  # type: ignore[call-overload]
            found.append(Execution("command", f"{command.name} (allowed-tools)",
                                   f"runs without asking: {tools}", (), "", (), ()))
    return found


def trust_digest(found: list[Execution], tree: str) -> str:
    """One digest of the whole set and of the package's tree (every file, ADR 0021): an upgrade
    asks again when either changes. "" when nothing runs."""
    if not found:
        return ""
    listed = [msgspec.structs.asdict(e) for e in found]
    return content_digest(json.dumps({"runs": listed, "tree": tree}, sort_keys=True).encode())
