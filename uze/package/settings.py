"""Plugin settings as published (adr/0078): Claude Code's `userConfig` and a Gemini CLI
extension's `settings` read into one list, and the package made ready to deliver, each
`${user_config.KEY}` in its MCP servers and hook commands replaced.

- A setting has a key (what `--set KEY=VALUE` names and `${user_config.KEY}` references), a
  title and description, `sensitive`, a default, and `env`: the environment variable every
  harness reads in its place where no value is written.
- Claude Code's `userConfig` (2.1.197's schema): keys are identifiers; each option has `type`
  (`string`, `number`, `boolean`, `directory`, `file`), `title`, `description` and optionally
  `required`, `default`, `multiple`, `sensitive`, `min`, `max`. Its `env` is the server `env`
  key that takes the whole value (`"API_KEY": "${user_config.api_key}"`: the server reads
  `API_KEY`), else `<PACKAGE>_<KEY>` in capitals.
- Gemini CLI's `settings` (0.61.0): `[{name, description, envVar, sensitive}]`. Gemini CLI
  gives each value to the extension's stdio servers as the variable `envVar`
  (`getExtensionEnvironment`), so each stdio server gets `env[envVar]` =
  `${user_config.<envVar>}`; the key is `envVar`.
- A value is written only for a non-sensitive setting the user gave (`--set`) or the author
  defaulted; everywhere else (a sensitive one always) the harness gets `${ENV}`, which each
  harness's MCP dialect turns into its own reference (uze.harnesses.mcp). A sensitive value
  never passes through uze. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from uze.errors import UsageError
from uze.package.issues import issue
from uze.package.model import McpServer, Package, Setting
from uze.patterns import compile_later

PLACEHOLDER: Final = compile_later(r"\$\{user_config\.([^}]*)\}")
IDENTIFIER: Final = compile_later(r"^[A-Za-z_][A-Za-z0-9_]*$")
TYPES: Final = frozenset({"string", "number", "boolean", "directory", "file"})
_OPTION_KEYS: Final = frozenset({"type", "title", "description", "required", "default",
                                 "multiple", "sensitive", "min", "max"})
_GEMINI_KEYS: Final = frozenset({"name", "description", "envVar", "sensitive"})
_Fill = Callable[[str, set[str]], str]


def _text(value: object) -> str:
    """A default as Claude Code substitutes it (JavaScript's `String(value)`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(map(_text, value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _whole_env_keys(servers: tuple[McpServer, ...], key: str) -> set[str]:
    whole = f"${{user_config.{key}}}"
    return {name for server in servers for name, value in server.env.items() if value == whole}


def read_user_config(raw: object, package: str, servers: tuple[McpServer, ...], location: str,
                     warnings: list[str]) -> tuple[Setting, ...]:
    """The options of a Claude manifest's `userConfig` (see the module docstring); an option
    Claude Code's schema refuses is a warning and is not read."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        warnings.append(issue(location, "userConfig", "must be an object of options; ignored"))
        return ()
    found: list[Setting] = []
    for key, option in raw.items():
        at = issue(location, f"userConfig.{key}")
        problem = _option_problem(str(key), option)
        if problem:
            warnings.append(f"{at}: {problem}; not read")
            continue
        assert isinstance(option, dict)
        whole = _whole_env_keys(servers, key)
        env = next(iter(whole)) if len(whole) == 1 else re.sub(
            r"[^A-Z0-9_]", "_", f"{package}_{key}".upper())
        default = option.get("default")
        found.append(Setting(key, option["title"], option["description"],
                             option.get("sensitive") is True, env,
                             None if default is None else _text(default), "userConfig"))
    return tuple(found)


def _option_problem(key: str, option: object) -> str:
    if not IDENTIFIER.match(key):
        return "the key must be an identifier (letters, digits, _; no leading digit)"
    if not isinstance(option, dict):
        return "must be an object"
    unknown = sorted(set(option) - _OPTION_KEYS)
    if unknown:
        return f"unknown key {unknown[0]!r} (Claude Code refuses it)"
    if option.get("type") not in TYPES:
        return f"type must be one of {', '.join(sorted(TYPES))}"
    if not all(isinstance(option.get(k), str) for k in ("title", "description")):
        return "title and description are required text"
    if option.get("sensitive") not in (None, True, False):
        return "sensitive must be true or false"
    return ""


def read_gemini_settings(raw: object, location: str, warnings: list[str]
                         ) -> tuple[Setting, ...]:
    """The `settings` of a gemini-extension.json (see the module docstring); one Gemini CLI
    would not load is a warning and is not read."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        warnings.append(issue(location, "settings", "must be a list of settings; ignored"))
        return ()
    found: dict[str, Setting] = {}
    for index, item in enumerate(raw):
        at = issue(location, f"settings[{index}]")
        env = item.get("envVar") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not (
                isinstance(env, str) and IDENTIFIER.match(env)):
            warnings.append(f"{at}: needs a name and an envVar that is a variable name; not read")
            continue
        if env in found:
            warnings.append(f"{at}: envVar {env!r} is already a setting; not read")
            continue
        for key in sorted(set(item) - _GEMINI_KEYS):
            warnings.append(f"{at}.{key}: unknown key; ignored")
        description = item.get("description")
        found[env] = Setting(env, item["name"], description if isinstance(description, str)
                             else "", item.get("sensitive") is True, env, None, "settings")
    return tuple(found.values())


def gemini_server_env(servers: tuple[McpServer, ...], settings: tuple[Setting, ...]
                      ) -> tuple[McpServer, ...]:
    """Each stdio server with every setting as the variable Gemini CLI sets for it (a key the
    server's own `env` already sets is left as written)."""
    if not settings:
        return servers
    return tuple(server if server.url else msgspec.structs.replace(server, env={
        **{s.env: f"${{user_config.{s.key}}}" for s in settings}, **server.env})
        for server in servers)


def undeclared(servers: tuple[McpServer, ...], settings: tuple[Setting, ...], location: str,
               warnings: list[str]) -> tuple[McpServer, ...]:
    """The servers whose every `${user_config.KEY}` names a setting; the others are skipped
    with a warning (Claude Code refuses to start them: "Plugin option ... isn't set")."""
    declared = {s.key for s in settings}
    kept = []
    for server in servers:
        missing = sorted(set(PLACEHOLDER.findall(msgspec.json.encode(server).decode()))
                         - declared)
        if missing:
            warnings.append(issue(location, f"mcpServers.{server.name}", f"uses "
                                  f"${{user_config.{missing[0]}}}, which no setting declares; "
                                  "the server is skipped"))
            continue
        kept.append(server)
    return tuple(kept)


def kept_values(package: Package, recorded: Mapping[str, str]) -> dict[str, str]:
    """The values a receipt or uze.lock recorded (`recorded`) that still apply to `package`:
    those of settings it still declares, never a sensitive one (ADR 0103)."""
    usable = {s.key for s in package.settings if not s.sensitive}
    return {key: value for key, value in recorded.items()
            if key in usable and len(value) <= 4096 and value.isprintable()}


def given_values(package: Package, given: Mapping[str, str]) -> dict[str, str]:
    """The values written for delivery: each `--set` value, else the author's default, for the
    non-sensitive settings. UsageError for a key the package does not declare or a sensitive
    one (uze never takes, writes or shows a sensitive value)."""
    by_key = {s.key: s for s in package.settings}
    for key in given:
        setting = by_key.get(key)
        if setting is None:
            known = ", ".join(sorted(by_key)) or "none"
            raise UsageError(f"--set {key}: {package.name} declares no such setting "
                             f"(its settings: {known})", hint="`uze check SOURCE` lists them")
        if setting.sensitive:
            raise UsageError(f"--set {key}: {setting.title} is sensitive: uze never takes or "
                             "writes its value", hint=f"set {setting.env} in the environment "
                             "your harnesses run in; each reads it from there")
    values = {s.key: s.default for s in package.settings
              if not s.sensitive and s.default is not None}
    return {**values, **given}


def ready(package: Package, values: Mapping[str, str],
          given: Mapping[str, str] | None = None) -> Package:
    """The package with each `${user_config.KEY}` of its servers and Claude hook commands
    replaced: by `values[KEY]`, else by `${ENV}` (the setting's variable); each server names
    the variables it now reads (`McpServer.settings`). Each setting in `given` (the values the
    user gave, not the author's defaults) keeps its value as `Setting.given`: the receipt and
    uze.lock record it, so a clone delivers the same bytes (ADR 0103)."""
    if not package.settings:
        return package
    by_key = {s.key: s for s in package.settings}

    def fill(text: str, used: set[str]) -> str:
        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            if key in values:
                return values[key]
            setting = by_key.get(key)
            if setting is None:  # no setting declares it (a server naming one was skipped)
                return match.group(0)
            used.add(f"{key} from ${setting.env}" + (" (sensitive)" if setting.sensitive
                                                     else ""))
            return f"${{{setting.env}}}"
        return PLACEHOLDER.sub(one, text)

    given = given or {}
    settings = tuple(msgspec.structs.replace(s, written=s.key in values, given=given.get(s.key))
                     for s in package.settings)
    package = _texts(package, fill)
    servers = tuple(_server(server, fill) for server in package.mcp_servers)
    hooks = package.claude_hooks
    if hooks is not None:
        hooks = msgspec.structs.replace(hooks, groups=tuple(
            msgspec.structs.replace(g, value=_filled(g.value, fill, set()))
            for g in hooks.groups))
    return msgspec.structs.replace(package, mcp_servers=servers, claude_hooks=hooks,
                                   settings=settings)


_MARK: Final = b"${user_config."


def _texts(package: Package, fill: _Fill) -> Package:
    """The package with `${user_config.KEY}` filled in the text every harness reads as it is
    (each skill's, command's and agent's UTF-8 files, agent and command bodies, the
    instructions): as Claude Code substitutes a value into skill and agent content, and, where
    no value is written (a sensitive setting, one without a value), as `${VAR}`, the variable a
    shell the harness runs expands; the placeholder itself reaches no harness."""
    rels = {rel for skill in package.skills for rel in skill.files}
    rels |= {c.relpath for c in package.commands} | {a.relpath for a in package.agents}
    files = dict(package.files)
    for rel in sorted(rels):
        found = files.get(rel)
        if found is None or _MARK not in found.data:
            continue
        try:
            text = found.data.decode()
        except UnicodeDecodeError:
            continue
        files[rel] = msgspec.structs.replace(found, data=fill(text, set()).encode())
    agents = tuple(msgspec.structs.replace(a, body=fill(a.body, set())) for a in package.agents)
    commands = tuple(msgspec.structs.replace(c, body=fill(c.body, set()))
                     for c in package.commands)
    instructions = package.instructions
    if instructions is not None and _MARK in instructions.text:
        instructions = msgspec.structs.replace(instructions, text=fill(
            instructions.text.decode(errors="surrogateescape"), set()).encode(
            errors="surrogateescape"))
    return msgspec.structs.replace(package, files=files, agents=agents, commands=commands,
                                   instructions=instructions)


def _server(server: McpServer, fill: _Fill) -> McpServer:
    used: set[str] = set()
    done = msgspec.structs.replace(
        server, command=fill(server.command, used) if server.command else server.command,
        args=[fill(a, used) for a in server.args],
        env={k: fill(v, used) for k, v in server.env.items()},
        cwd=fill(server.cwd, used) if server.cwd else server.cwd,
        url=fill(server.url, used) if server.url else server.url,
        headers={k: fill(v, used) for k, v in server.headers.items()})
    return msgspec.structs.replace(done, settings=tuple(sorted(used))) if used else done


def _filled(value: object, fill: _Fill, used: set[str]) -> object:
    if isinstance(value, str):
        return fill(value, used)
    if isinstance(value, list):
        return [_filled(item, fill, used) for item in value]
    if isinstance(value, Mapping):
        return {k: _filled(v, fill, used) for k, v in value.items()}
    return value

