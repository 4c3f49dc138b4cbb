"""A Gemini CLI extension read as published: `gemini-extension.json` and its folders.

Read as Gemini CLI 0.61.0 reads an extension (its bundle: `loadExtensionConfig`,
`recursivelyHydrateStrings`, `FileCommandLoader`; adr/0068):

- `name` and `version` (both required by Gemini CLI) name the package; a name that breaks uze's
  rule is made valid with a warning; `description` is kept.
- `mcpServers`: each server, with `${extensionPath}` as the package root (`${PLUGIN_ROOT}`),
  `${/}` and `${pathSeparator}` as `/`, and `${workspacePath}` (the folder Gemini CLI runs
  in) as `.` in arguments and `cwd`, where a server starts in that folder. `httpUrl` is a
  streamable HTTP server, `url` an SSE one; Gemini-only keys (`timeout`, `trust`,
  `includeTools`, ...) are warnings (uze.package.servers).
- `commands/**/*.toml` (`prompt`, `description`): commands named by their path below
  `commands/` (`a/b.toml` is `/a:b`), translated to Claude Code's command text: `{{args}}` as
  `$ARGUMENTS`, `!{cmd}` as `` !`cmd` ``, `@{path}` as `@path`.
- `contextFileName` is the package's instructions (uze.package.context); `skills/` and
  `agents/` are read as for every package, each agent marked as naming Gemini CLI's tools
  (`Agent.tools_from`; the planner translates them, uze.plan.agent_tools).
- `settings` are the package's settings (uze.package.settings, adr/0078): each stdio server
  gets each one as the variable Gemini CLI sets for it.
- `excludeTools`, `hooks/hooks.json` (Gemini's own hook format), `policies/` and any other key
  are warnings naming what uze does not install. Pure.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Final

import msgspec

from uze.package.issues import issue
from uze.package.layout import GEMINI_MANIFEST, word_name
from uze.package.manifest import McpServer
from uze.package.model import Command, Manifest, Setting
from uze.package.names import name_problem, version_problem
from uze.package.servers import Dialect, read_servers
from uze.package.settings import gemini_server_env, read_gemini_settings
from uze.package.tree import Tree
from uze.package.validate import resource_text
from uze.patterns import compile_later

COMMANDS: Final = "commands/"
READ_KEYS: Final = frozenset({"name", "version", "description", "mcpServers", "contextFileName",
                             "settings"})
NOT_INSTALLED: Final = {
    "excludeTools": "Gemini CLI hides these tools while the extension is loaded; uze installs "
                    "the extension resource by resource, so no harness gets the exclusion",
}
_FOLDERS: Final = {
    "hooks/hooks.json": "Gemini CLI's own hook format, not read",
    "policies/": "Gemini CLI's policy rules, not read",
}
_WORKSPACE: Final = "${workspacePath}"


class Extension(msgspec.Struct, frozen=True):
    """What the extension's manifest and folders give: its identity, servers and commands."""

    manifest: Manifest
    servers: tuple[McpServer, ...]
    commands: tuple[Command, ...]
    settings: tuple[Setting, ...] = ()


def read_extension(tree: Tree, issues: list[str], warnings: list[str]) -> Extension | None:
    """The extension read from `tree`; None (with an issue) when its manifest names nothing."""
    raw = tree.json_object(GEMINI_MANIFEST, issues)
    if raw is None:
        return None
    manifest = _manifest(raw, issues, warnings)
    for key in sorted(raw):
        if key in READ_KEYS or raw[key] in (None, "", [], {}):
            continue
        why = NOT_INSTALLED.get(key, "unknown key; ignored")
        warnings.append(issue(GEMINI_MANIFEST, key, f"not installed ({why})" if key in
                              NOT_INSTALLED else why))
    for path, why in _FOLDERS.items():
        if path in tree.seen or any(seen.startswith(path) for seen in tree.seen):
            warnings.append(issue(path.rstrip("/"), f"not installed ({why})"))
    servers = read_servers(raw.get("mcpServers", {}), GEMINI_MANIFEST, ["mcpServers"],
                           GEMINI_SERVERS, warnings)
    settings = read_gemini_settings(raw.get("settings"), GEMINI_MANIFEST, warnings)
    if manifest is None:
        return None
    commands = read_commands(tree, warnings)
    return Extension(manifest, gemini_server_env(tuple(sorted(servers, key=lambda s: s.name)),
                                                 settings), commands, settings)


def _manifest(raw: dict[str, object], issues: list[str], warnings: list[str]) -> Manifest | None:
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        issues.append(issue(GEMINI_MANIFEST, "name", "required: the extension's name"))
        return None
    if name_problem(name) is not None:
        slug = word_name(name)
        if slug is None:
            issues.append(issue(GEMINI_MANIFEST, "name", f"{name_problem(name)}"))
            return None
        warnings.append(issue(GEMINI_MANIFEST, "name", f"{name_problem(name)}; installed as "
                              f"{slug!r}"))
        name = slug
    version = raw.get("version", "0.0.0")
    if version_problem(version) is not None:
        warnings.append(issue(GEMINI_MANIFEST, "version", f"{version_problem(version)}; "
                              "recorded as 0.0.0"))
        version = "0.0.0"
    description = raw.get("description")
    return Manifest(name=name, version=str(version),
                    description=description if isinstance(description, str) else None)


def _gemini_server(body: dict[str, object], notes: list[str]) -> dict[str, object]:
    """A Gemini CLI server body in portable keys, its variables resolved as Gemini CLI does."""
    hydrated = _hydrated(body, notes)
    body = hydrated if isinstance(hydrated, dict) else body
    if "httpUrl" in body:
        body = {**{k: v for k, v in body.items() if k != "httpUrl"}, "url": body["httpUrl"],
                "type": "http"}
    elif "url" in body and "type" not in body:
        body = {**body, "type": "sse"}
    return body


def _hydrated(value: object, notes: list[str], key: str = "") -> object:
    """`value` with Gemini CLI's variables in strings replaced (see the module docstring)."""
    if isinstance(value, dict):
        return {k: _hydrated(v, notes, key or k) for k, v in value.items()}
    if isinstance(value, list):
        return [_hydrated(item, notes, key) for item in value]
    if not isinstance(value, str):
        return value
    text = value.replace("${extensionPath}", "${PLUGIN_ROOT}")
    text = text.replace("${/}", "/").replace("${pathSeparator}", "/")
    if _WORKSPACE in text:
        if key in ("args", "cwd"):
            text = text.replace(_WORKSPACE, ".")
        else:
            notes.append(f"{key}: ${{workspacePath}} is only resolved in args and cwd; left as "
                         "written")
    return text


GEMINI_SERVERS: Final = Dialect(translate=_gemini_server)


def read_commands(tree: Tree, warnings: list[str]) -> tuple[Command, ...]:
    """Every `commands/**/*.toml` as a command in Claude Code's terms, sorted by its label."""
    found: dict[tuple[str, ...], Command] = {}
    for relpath in sorted(p for p in tree.files if p.startswith(COMMANDS) and p.endswith(".toml")):
        command = _command(tree, relpath, warnings)
        if command is None:
            continue
        key = (*command.subdirs, command.name)
        if key in found:
            warnings.append(issue(relpath, f"command {':'.join(key)!r} is already read from "
                                  f"{found[key].relpath}; skipped"))
            continue
        found[key] = command
    return tuple(found[key] for key in sorted(found))


def _command(tree: Tree, relpath: str, warnings: list[str]) -> Command | None:
    text = resource_text(tree, relpath, warnings)
    if text is None:
        return None
    import tomllib  # start-up: only a package with Gemini commands is read so (ADR 0106)

    try:
        raw = tomllib.loads(text)
    except (ValueError, RecursionError) as error:  # TOMLDecodeError, or a number too long
        warnings.append(issue(relpath, f"not TOML ({error}); skipped"))
        return None
    prompt, description = raw.get("prompt"), raw.get("description")
    if not isinstance(prompt, str):
        warnings.append(issue(relpath, "prompt", "required text (Gemini CLI skips the command "
                              "too); skipped"))
        return None
    parts = PurePosixPath(relpath[len(COMMANDS):-len(".toml")]).parts
    names = [part if name_problem(part) is None else word_name(part) for part in parts]
    if any(name is None for name in names):
        warnings.append(issue(relpath, "its path is not made of valid names; skipped"))
        return None
    if names != list(parts):
        warnings.append(issue(relpath, f"installed as {':'.join(map(str, names))!r} (uze's "
                              "naming rule)"))
    front = {"description": description} if isinstance(description, str) else {}
    return Command(str(names[-1]), relpath, front, claude_prompt(prompt),
                   tuple(str(name) for name in names[:-1]), converted=GEMINI_NOTE)


GEMINI_NOTE: Final = ("a Gemini CLI TOML command, as Claude Code's command text ({{args}} as "
                      "$ARGUMENTS, !{...} as !`...`, @{...} as @path)")
_TRIGGER: Final = compile_later(r"([!@])\{")


def claude_prompt(prompt: str) -> str:
    """A Gemini CLI prompt in Claude Code's command syntax; an unbalanced `!{`/`@{` stays."""
    out, last = [], 0
    for match in _TRIGGER.finditer(prompt):
        if match.start() < last:
            continue
        end = _closing(prompt, match.end())
        if end is None:
            continue
        inner = prompt[match.end():end]
        out.append(prompt[last:match.start()])
        out.append(f"!`{inner}`" if match.group(1) == "!" else f"@{inner}")
        last = end + 1
    out.append(prompt[last:])
    return "".join(out).replace("{{args}}", "$ARGUMENTS")


def _closing(text: str, start: int) -> int | None:
    """The index of the brace closing the one opened just before `start` (balanced)."""
    depth = 1
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return None


_CLAUDE_SHELL: Final = compile_later(r"!`([^`\n]+)`")
_POSITIONAL: Final = compile_later(r"\$[0-9]")
# A Claude command's frontmatter keys a Gemini CLI command has no place for, and the loss.
_GEMINI_DROPS: Final = {
    "model": "it runs on the session's model, not {value!r}",
    "allowed-tools": "its allowed-tools ({value}) are not granted: Gemini CLI asks as usual",
    "argument-hint": "its argument hint is not shown",
}


def gemini_prompt(command: Command) -> tuple[str, list[str], list[str]]:
    """A Claude command's body as a Gemini CLI prompt (`$ARGUMENTS` as `{{args}}`, `` !`cmd` ``
    as `!{cmd}`), with what it loses (degraded) and notes."""
    prompt = _CLAUDE_SHELL.sub(lambda m: "!{" + m.group(1) + "}", command.body)
    prompt = prompt.replace("$ARGUMENTS", "{{args}}")
    lost = (["its body uses $1...$9, which Gemini CLI has no form for ({{args}} is the whole "
             "argument text)"] if _POSITIONAL.search(command.body) else [])
    notes: list[str] = []
    for key, why in _GEMINI_DROPS.items():
        value = command.frontmatter.get(key)
        if value not in (None, "", []):
            shown = ", ".join(map(str, value)) if isinstance(value, list) else value
            (lost if key == "model" else notes).append(why.format(value=shown))
    return prompt, lost, notes