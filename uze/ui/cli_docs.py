"""docs/cli.md, written from the command tree `uze.cli.command()` builds (issue 23 item 5).

Every command, subcommand, argument and option comes from the tree, so a command added to
`uze.cli` appears here without a change to this module; `EXAMPLES` and `EXIT_NOTES` add what a
definition cannot say. `scripts/gen-cli-docs.py` writes the file and
`tests/unit/test_cli_docs.py` fails when it differs from what this module makes.
Duck-typed on typer's objects (only `uze.cli` imports typer).
"""

from __future__ import annotations

import inspect
from typing import Any, Final

from uze.ui.cli_help import is_flag

EXIT_CODES: Final = (
    (0, "success (an uninstall that kept edited files did what was asked: 0 too)"),
    (1, "an error you can fix: invalid package, conflict, lock held, not installed, ..."),
    (2, "usage error: unknown option, missing argument, bad value"),
    (3, "a bug in uze: one line and the path of a traceback log"),
    (130, "interrupted (Ctrl-C): it says whether nothing was written or every change it "
          "committed stands whole"),
)

# Per command path (as typed after `uze`): example lines, each a command and what it does.
EXAMPLES: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "install": (
        ("uze install ./pkg", "into every harness detected for this project"),
        ("uze install ./pkg --harness claude_code,codex --dry-run", "print the plan only"),
        ("uze install ./pkg --scope user --trust", "into each harness's home; accept what it "
                                                   "runs without asking"),
        ("uze install ./pkg --json", "one JSON document for scripts"),
        ("uze install --frozen --trust --quiet", "in CI: uze.lock exactly, nothing printed but "
                                                  "errors"),
        ("uze install --from skills-lock.json", "the skills CLI's entries declared in uze.toml, "
                                                "installed and pinned; the rest reported"),
        ("uze install --from apm.yml", "apm's dependencies.apm declared; mcp entries reported"),
        ("uze install --from .claude/settings.json", "its extraKnownMarketplaces registered, "
                                                     "its enabledPlugins installed"),
    ),
    "uninstall": (
        ("uze uninstall hello", "remove what uze owns; keep every file you edited"),
        ("uze uninstall hello --force", "remove the edited files too"),
    ),
    "disable": (
        ("uze disable hello", "switch the package off in every harness it is installed for"),
        ("uze disable hello --harness claude_code", "only in Claude Code (its enabledPlugins)"),
        ("uze disable hello:review", "one skill (command, agent, MCP server) of it, everywhere"),
    ),
    "enable": (
        ("uze enable hello", "switch on again all that was switched off, from the store"),
        ("uze enable hello:review --harness codex", "one resource, in one harness"),
    ),
    "status": (
        ("uze status", "one row per package, a mark per harness, then problems and fixes"),
        ("uze status hello", "every projection of one package: route, state, target"),
        ("uze status --json | jq '.packages[].name'", "the document of docs/design.md"),
        ("uze status --check", "the CI gate: exit 1 on any difference from uze.toml + uze.lock"),
    ),
    "check": (
        ("uze check ./pkg", "validate a package; the route each resource would take"),
        ("uze check ./pkg --harness codex --json", "for one harness, as JSON"),
        ("uze check ./pkg --verbose", "the matrix: each resource by harness, each route"),
    ),
    "list": (("uze list", "installed packages, project and user scope, and what uze.toml "
                          "declares that is not installed here"),),
    "doctor": (
        ("uze doctor", "each harness: installed, version, evidence, skill roots"),
        ("uze doctor --probe", "also run each installed harness's own listings"),
    ),
    "export": (
        ("uze export --harness claude_code --out ../team-setup",
         "this project's own Claude Code setup as one package"),
        ("uze export --harness claude_code --scope user --name mine --out ~/mine --json",
         "your user-level setup; what was left out and why, as JSON"),
    ),
    "store verify": (("uze store verify", "re-hash every object; exit 1 if any is damaged"),),
    "store gc": (("uze store gc", "delete what no receipt references"),),
}

NOTES: Final[dict[str, str]] = {
    "export": "It reads the locations uze knows for the harness (skill folders, agent and "
              "command files, its MCP config, the hooks of its settings, its instructions file; "
              "another harness's agents, TOML commands and MCP dialect are translated into the "
              "portable format), leaves out everything a receipt of the scope says uze wrote "
              "(the region uze wrote in CLAUDE.md, its entries and hook groups, its plugin "
              "folders, `.uze/`), and writes `plugin.json`, `skills/`, `agents/`, `commands/`, "
              "`mcp.json`, `AGENTS.md` and, for Claude-protocol hooks, `hooks/hooks.json` beside"
              " `.claude-plugin/plugin.json`. Secret values of MCP servers (env and headers "
              "naming a key, token, secret or password, `Authorization`, credential-shaped "
              "arguments, URL passwords) become `${VARIABLE}` references, each named in the "
              "output, never the value. What the package cannot carry (settings such as "
              "`permissions`, a plugin folder, a folder without SKILL.md) is listed with the "
              "reason; what an exported item still needs from the project (an `@path` import, a "
              "hook running `$CLAUDE_PROJECT_DIR/...`) is noted. OUT is built in a temporary "
              "folder beside it and renamed into place once it reads back as `uze check` reads "
              "it; OUT must be absent or an empty folder. A harness whose setup holds something "
              "export cannot translate yet is refused whole, naming it (ADR 0095).",
    "status": "Without NAME, each harness column holds one mark: `✓` every delivered "
              "projection keeps its meaning (native or adapted), `~` something is degraded or "
              "not delivered, `-` nothing is delivered (unsupported), `·` nothing for that "
              "harness; `!` follows when something is not as uze wrote it (drifted, missing, "
              "conflict, blocked) and `?` when Codex hooks wait for trust. Problems are listed "
              "under the table, each with the command that fixes it. Status reads `uze.toml` "
              "and `uze.lock` too: on a fresh clone (`.uze/` is machine-local) it lists what "
              "they declare and `uze install`; after a pull that moved a pin it says \"uze.lock "
              "moved NAME to X: run `uze install`\"; an edit is named per file, with any "
              "`.uze-new` file waiting beside it. `--check` prints every difference (not "
              "installed, another pin, drifted, undeclared, consent missing, an unreadable "
              "uze.toml or uze.lock) with its fix; in CI run `uze install --frozen --trust`, "
              "then `uze status --check`.",
    "install": "It prints one line per harness (how many resources it gets, by route), then "
               "only what needs attention: each reason a resource is degraded or not "
               "delivered, once, with the resources it covers. `--verbose` (and `--dry-run`) "
               "print the table of every projection; `--quiet` prints nothing but errors. With "
               "no SOURCE it prints each declared package's line, the same lines per harness "
               "under it, then what needs attention once for all of them, each resource named "
               "with its package. A target already there byte for byte as the install would "
               "write it, that no other package owns, is adopted instead of refused: nothing is "
               "rewritten, the receipt records it, `uze uninstall` removes it, and the install "
               "names each one (`adopted` in `--json`); one that differs is refused naming both "
               "digests (ADR 0096). On a terminal, without `--json`, an install or uninstall "
               "that runs longer than half a second shows its steps on standard error.",
    "disable": "The package stays installed and pinned. Claude Code, which loads each package "
               "as the plugin `NAME@skills-dir`, is switched off by its own setting, "
               "`enabledPlugins.\"NAME@skills-dir\": false` in `.claude/settings.json` (user "
               "scope `~/.claude/settings.json`), with the package's MCP servers, hooks and "
               "instructions removed; one skill in Gemini CLI (both scopes) or Codex (user "
               "scope) is switched off by that harness's own switch, its folder kept: "
               "`skills.disabled` in the scope's `.gemini/settings.json`, `[[skills.config]] "
               "name = \"<skill>\" enabled = false` in `~/.codex/config.toml` (ADR 0098); "
               "elsewhere, and for one resource, uze removes what it owns there, keeping (and "
               "naming) every file you edited, as uninstall does. A file several harnesses "
               "read (`.agents/skills/...`) is otherwise switched off in all of them or none: "
               "name them together (`--harness codex,opencode`). The switch is "
               "kept in the receipt and in `uze.lock` (`disabled`), so `uze install` on a "
               "clone, every re-install and `uze update` keep it; `uze status` shows each "
               "projection switched off as `disabled` (ADR 0087).",
    "enable": "What is switched on again is written back from the stored package, byte for "
              "byte as it was installed; consent given at install still covers it (a disable "
              "never changes what the package may run).",
    "outdated": "A package is outdated when its own files changed: a commit to another plugin "
                "of its marketplace, or another package of its repository, leaves it current "
                "(its repository's new commit is checked out in a temporary folder to compare).",
    "update": "It moves only the pins of packages whose own files changed (as `outdated` "
              "says). "
              "It prints a line per pinned package (up to date, or old -> new); under each "
              "package it moved, one line per harness as `uze install` prints, then what needs "
              "attention once. `--verbose` prints the table of every projection of each "
              "package it moved; `--quiet` prints nothing but errors.",
}

EXIT_NOTES: Final[dict[str, str]] = {
    "export": "1 also when OUT is not empty, a config file does not parse, there is nothing "
              "to export, or the harness has something export cannot translate yet; nothing "
              "is written then.",
    "check": "1 also when a projection the author required native cannot be native.",
    "status": "1 with `--check` when the project differs from uze.toml + uze.lock in any way, "
              "each difference printed with its fix; 0 otherwise (`--json` too).",
    "store verify": "1 also when an object is corrupt or missing.",
}

HEAD: Final = """\
# uze command line

<!-- Generated by scripts/gen-cli-docs.py from the command definitions in uze/cli.py.
     Do not edit by hand: run `python scripts/gen-cli-docs.py` (a test fails when this
     file and the definitions differ). -->

Every command prints a human view on standard output, or one JSON document with `--json`.
The human view is drawn with tables and colour on a terminal, and is plain text (columns two
spaces apart) when standard output is a pipe, a file or a CI log (`FORCE_COLOR` or
`--color always` draw it as on a terminal).
Errors go to standard error as `uze: error: <what>` followed by `hint: <next step>`.
`NO_COLOR` turns colour off unless `--color always` is given. On a terminal, an install or
uninstall that runs longer than half a second draws its progress on standard error;
`UZE_PROGRESS_DELAY` sets that delay in seconds (0 draws at once). `UZE_LOCK_TIMEOUT` sets
how many seconds a command waits for another uze command's lock (default 10).
`UZE_GIT_TIMEOUT` sets how many seconds a git remote may stay silent before uze stops waiting
for it (default 30); the progress line names the remote being asked. `UZE_POLICY` names an
organisation policy file (default `$UZE_HOME/policy.toml`; docs/security.md, ADR 0060).

"""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|") or "-"


def _usage(command: Any, path: str) -> str:
    pieces = [f"uze {path}".rstrip()]
    if command.params or getattr(command, "commands", None) is None:
        pieces.append("[OPTIONS]")
    for param in command.params:
        if param.param_type_name == "argument":
            pieces.append(param.metavar if param.required else f"[{param.metavar}]")
    if getattr(command, "commands", None) is not None:
        pieces.append("COMMAND [ARGS]...")
    return " ".join(pieces)


def _default(param: Any) -> str:
    default = param.default
    if is_flag(param) or default is None or callable(default) or param.required:
        return ""
    return f"`{default}`"


def _params(command: Any, context: Any) -> list[str]:
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    help_option = command.get_help_option(context)
    if help_option is not None:
        options.append(help_option)
    out: list[str] = []
    if arguments:
        out += ["| argument | value | required | meaning |", "|---|---|---|---|"]
        out += [f"| `{p.metavar}` | {_value(p)} | {'yes' if p.required else 'no'} | "
                f"{_cell(p.help or '')} |" for p in arguments]
        out.append("")
    if options:
        out += ["| option | value | default | meaning |", "|---|---|---|---|"]
        for p in options:
            names = ", ".join(f"`{name}`" for name in (*p.opts, *p.secondary_opts))
            value = f"`{_cell(p.metavar)}`" if p.metavar else "-"
            out.append(f"| {names} | {value} | {_default(p) or '-'} | {_cell(p.help or '')} |")
        out.append("")
    return out


def _value(param: Any) -> str:
    shown = param.display_type_rich(None)
    return f"`{shown}`" if shown else "-"


def _section(command: Any, path: str, context: Any) -> list[str]:
    out = [f"## `{_usage(command, path)}`", ""]
    doc = inspect.cleandoc(command.help or "")
    if doc:
        out += [doc, ""]
    out += _params(command, context)
    if path in NOTES:
        out += [NOTES[path], ""]
    if path in EXAMPLES:
        out += ["Examples:", "", "```sh"]
        width = max(len(line) for line, _ in EXAMPLES[path])
        out += [f"{line.ljust(width)}  # {what}" for line, what in EXAMPLES[path]]
        out += ["```", ""]
    if path in EXIT_NOTES:
        out += [f"Exit codes as below; {EXIT_NOTES[path]}", ""]
    return out


def _walk(command: Any, path: str, parent: Any) -> list[str]:
    context = command.context_class(command, info_name=path.split(" ")[-1] or "uze",
                                    parent=parent)
    out = _section(command, path, context)
    for name, sub in (getattr(command, "commands", None) or {}).items():
        if not getattr(sub, "hidden", False):
            out += _walk(sub, f"{path} {name}".strip(), context)
    return out


def markdown(root: Any) -> str:
    """docs/cli.md for the command tree `root` (`uze.cli.command()`)."""
    lines = [HEAD.rstrip("\n"), ""]
    names = [name for name, sub in root.commands.items() if not getattr(sub, "hidden", False)]
    lines += ["Commands: " + ", ".join(f"`{name}`" for name in names) + ".", ""]
    lines += _walk(root, "", None)
    lines += ["## Exit codes", "", "| code | meaning |", "|---|---|"]
    lines += [f"| {code} | {meaning} |" for code, meaning in EXIT_CODES]
    return "\n".join(lines).rstrip("\n") + "\n"
