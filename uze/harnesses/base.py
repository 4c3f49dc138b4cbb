"""What a harness module provides: where things go in that harness and how to dialect them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from uze.harnesses.skill_switches import SkillOff, SkillSwitch
from uze.location import Location
from uze.paths import Paths
from uze.vocabulary import ConfigFormat, Route

if TYPE_CHECKING:
    from uze.package import Command, InvokePolicy


class Capability(msgspec.Struct, frozen=True):
    """How one harness carries one feature of one resource kind: a route, why, and the section
    of docs/reference (or the test) the row rests on."""

    route: Route
    reason: str
    source: str


def cap(route: Route, reason: str, source: str) -> Capability:
    """A capability row (shorthand for the tables in the harness modules)."""
    return Capability(route, reason, source)


# The reason of a command delivered as a user-only skill, where a harness has no command files.
# What the skill loses is said per command, only where it has it (uze.plan.commands.skill_losses).
AS_SKILL: Final = ("{harness} has no command files uze writes: delivered as a skill only the "
                   "user invokes")


class HookEvent(msgspec.Struct, frozen=True):
    """One portable event in one harness (adr/0089). `native` is None where the harness lacks
    it, or uze has not seen its real binary run it: `why_not` says which, naming what was
    tried. `limit`, when set, is what the real binary does not keep of the event's meaning
    (the group is delivered `degraded` with it). `handler_types`: the handler types it runs
    there (`command`: uze's wrapper; `prompt`, `agent`: the harness's own model)."""

    native: str | None
    can_block: bool
    handler_types: tuple[str, ...]
    why_not: str = ""
    limit: str = ""


# Portable event -> native name, for harnesses that use Claude Code's names.
SAME_EVENTS: Final[Mapping[str, str | None]] = {
    "PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse", "Stop": "Stop",
    "SessionStart": "SessionStart",
}
# The capability map's other events (adr/0089): each harness says per event what it does.
MORE_EVENTS: Final = ("UserPromptSubmit", "SubagentStop", "SessionEnd", "PreCompact",
                      "Notification")


def hook_events(names: Mapping[str, str | None], blocking: set[str], types: tuple[str, ...],
                *, why_not: Mapping[str, str] | None = None,
                limits: Mapping[str, str] | None = None,
                typed: Mapping[str, tuple[str, ...]] | None = None) -> dict[str, HookEvent]:
    """Each portable event's native form: `blocking` lists those that can block, `types` the
    handler types each runs (`typed` per event where they differ); an event `names` leaves
    out, or maps to None, is absent with `why_not[event]`; `limits[event]` degrades one."""
    why, limit, each = why_not or {}, limits or {}, typed or {}
    return {
        portable: HookEvent(native, portable in blocking and native is not None,
                            each.get(portable, types) if native else (),
                            "" if native else why.get(portable, ""), limit.get(portable, ""))
        for portable in (*SAME_EVENTS, *MORE_EVENTS) if portable in names or portable in why
        for native in (names.get(portable),)
    }


def unclaimed_events(harness: str, why: str) -> dict[str, str]:
    """`why_not` for each of MORE_EVENTS on a harness whose real binary uze cannot run."""
    return {event: f"{harness}: {event} not claimed: {why}" for event in MORE_EVENTS}


class SkillDialect(msgspec.Struct, frozen=True):
    """Harness-specific additions to a skill: frontmatter keys and extra generated files."""

    frontmatter: Mapping[str, object] = msgspec.field(default_factory=dict)
    extra_files: Mapping[str, Callable[[bytes | None], bytes]] = msgspec.field(default_factory=dict)


class AgentFormat(msgspec.Struct, frozen=True):
    """How a harness reads agents: file per agent, Markdown or TOML, and the keys it accepts.

    `fixed` keys are always written (e.g. OpenCode `mode: subagent`); `name_key` is False where
    the file name is the identity; `allowed` lists the `harness:` block keys the harness reads.
    `claude_keys`: the harness reads a Claude agent file as it is (every key kept). Else a
    Claude tool allowlist (`tools`) and denylist (`disallowedTools`) are translated into a
    `map` (`{"*": false, name: true}`) or a `list` where `allow`/`deny` say so, and lost
    otherwise; `claude_tool_names`: the harness also reads Claude's own tool names.
    """

    folder: Callable[[Location], Path]
    suffix: Literal[".md", ".toml"] = ".md"
    name_key: bool = True
    fixed: Mapping[str, object] = msgspec.field(default_factory=dict)
    allowed: frozenset[str] = frozenset()
    claude_keys: bool = False
    allow: Literal["map", "list"] | None = None
    deny: Literal["map", "list"] | None = None
    claude_tool_names: bool = False


class McpTarget(msgspec.Struct, frozen=True):
    """Where a harness keeps MCP servers: one config file, its format, the key of an entry,
    and its dialect (portable server -> `uze.harnesses.mcp.Translated`). `expands_defaults`:
    the harness expands `${NAME:-default}` itself; elsewhere the defaults are dropped and named
    in a degraded reason (`uze.harnesses.mcp.without_defaults`)."""

    file: Callable[[Location], Path]
    fmt: ConfigFormat
    key: Callable[[Location, str], tuple[str, ...]]
    dialect: Callable[[Any], Any]
    expands_defaults: bool = False
    # The inverse of `dialect` for `uze export` (ADR 0095): an entry of the config back in
    # portable keys, noting what it changed; None where uze reads the harness's servers with
    # the reader of its own package format (uze.exporting.harness), or cannot yet.
    portable: Callable[[dict[str, object], list[str]], dict[str, object]] | None = None


# The Claude protocol's tool names and the portable aliases each stands for (harnesses.md 1.6):
# Claude Code's own table, and what Claude-format hooks and agent `tools` lists name.
CLAUDE_TOOLS: Final[Mapping[str, tuple[str, ...]]] = {
    "Bash": ("shell",),
    "Read": ("file.read",),
    "Write": ("file.write",),
    "Edit": ("file.edit",),
    "MultiEdit": ("file.edit",),
    "NotebookEdit": ("file.edit",),
    "Glob": ("search.files",),
    "Grep": ("search.files",),
    "WebSearch": ("search.web",),
    "WebFetch": ("search.web",),
    "Task": ("agent.spawn",),
    "Agent": ("agent.spawn",),
}

HookLayout = Literal["nested", "flat", "named", "plugin"]
# How a hook wrapper answers (`ANSWERS` in uze/hooks/wrapper_script.py) and what its input is.
HookAnswer = Literal["", "claude", "gemini", "exit2_pretool", "exit2", "throw", "decision"]
HookInput = Literal["common", "tool_call"]


class HookTarget(msgspec.Struct, frozen=True):
    """Where and how a harness runs uze's hook wrappers (uze/hooks/delivery.py builds them).

    `file` is the hook config per scope (None: the harness reads none in that scope); for the
    `plugin` layout it is the folder the package's generated plugin goes to. `role` names the
    file in a `HookElement`. `layout`: `nested` = `hooks.<Event>` arrays of `{matcher, hooks:
    [handler]}`; `flat` = one `[[hooks]]` table per group with exactly event, matcher, command,
    timeout; `named` = one named entry per group; `plugin` = a generated plugin runs the wrappers.
    `effects` are those PreToolUse can express (`effect_why`: why not, per effect); timeouts are
    seconds times `timeout_unit`; `names_handler` gives each handler `name: <package>/<group>`.
    Notes, in the order a reason lists them: `note` (every group; `{plugin}` is the plugin
    file), `transform_note` (a transform), `trust_note` (last). `shell_gap`, when set, is why a
    PreToolUse guard on shell calls is degraded.
    """

    file: Callable[[Location], Path | None]
    role: str
    fmt: ConfigFormat
    effects: frozenset[str]
    layout: HookLayout = "nested"
    timeout_unit: int = 1
    names_handler: bool = False
    effect_why: Mapping[str, str] = msgspec.field(default_factory=dict)
    note: str = ""
    transform_note: str = ""
    trust_note: str = ""
    shell_gap: str = ""


class CommandSurface(msgspec.Struct, frozen=True):
    """A harness's own command files: the folder per scope, the suffix, and `render` (the
    command, its original bytes -> bytes, route, reason). Harnesses without one get each
    command as a skill only the user invokes."""

    folder: Callable[[Location], Path]
    suffix: str
    render: Callable[[Command, bytes], tuple[bytes, Route, str]]


class Power(msgspec.Struct, frozen=True):
    """A key that makes the harness run something or widen permissions (adr/0021): `where` is
    "agent" (a key of the agent's `harness.<id>` block, listed only when uze writes it: in the
    harness's `AgentFormat.allowed`), "skill" (a SKILL.md frontmatter key) or "skill body"
    (`key` is `uze.trust.INLINE_SHELL`); `power` is "runs" or "grants"."""

    where: str
    key: str
    power: str
    source: str


INLINE_SHELL: Final = "inline shell"  # a Power key: the `!`cmd`` lines of a skill body

# Why doctor cannot check a harness whose binary is not installable offline (adr/0035).
NO_OFFLINE_BINARY: Final = ("not one of the four CLIs installable offline here from npm "
                            "(issue 7): no real binary has been run")


class ProjectForms(msgspec.Struct, frozen=True):
    """How a project-scope entry names a file of the project without an absolute path, as the
    real binary was measured to accept (adr/0039). None: no form proven; the entry keeps this
    machine's absolute path and its route is `degraded`.

    `mcp`: what a stdio server's command, args, cwd and env write for the project root (`.`:
    relative to the folder the harness starts servers in, which is the folder it was started
    in). `hook`: what a hook command writes for the project root (`${CLAUDE_PROJECT_DIR}`: a
    variable the harness sets for hooks; `.`: relative to the hook's working folder; for
    OpenCode, relative to the plugin file). `source`: where the measurement is.
    """

    mcp: str | None = None
    hook: str | None = None
    source: str = ""


NO_PROJECT_FORMS: Final = ProjectForms()


class Envelope(msgspec.Struct, frozen=True):
    """The harness's own package format, which a package may ship beside the one uze reads and
    uze does not install whole (ADRs 0043-0045): uze/plan/envelopes.py names in a warning
    whatever it carries that no resource uze reads covers.

    `manifest`: its JSON manifest at the package root ("": none; with one, nothing is named
    unless it is there); `keys`: its keys uze does not read, unless `read_anyway[key]` is the
    only folder the value names (uze reads that folder anyway); `contexts`: it names context
    files (Gemini's `contextFileName`, read by uze.package.context). `folders` + `suffixes`:
    files the harness loads from it that uze does not deliver (`nested`: in subfolders too),
    each named as a `label` that is not `verb`. `reason`: why uze does not deliver it whole.
    """

    reason: str
    manifest: str = ""
    keys: tuple[str, ...] = ()
    read_anyway: Mapping[str, str] = msgspec.field(default_factory=dict)
    contexts: bool = False
    folders: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    nested: bool = False
    label: str = ""
    verb: str = "installed"


class ClaudePlugins(msgspec.Struct, frozen=True):
    """How a harness loads a Claude-native package whole as its own plugin (adr/0041): each
    `<package>/` folder of `root` (per scope) holding `.claude-plugin/plugin.json` is loaded as
    the plugin `<package>@skills-dir`; `project_note` is what a project-scope route adds (when
    the harness waits for something before it loads a project's plugins)."""

    root: Callable[[Location], Path]
    project_note: str = ""
    # The settings file whose `enabledPlugins."<package>@skills-dir": false` switches such a
    # plugin off (ADR 0087), per scope; None when the harness has no such switch.
    switch: Callable[[Location], Path] | None = None


def _no_policy(_policy: InvokePolicy) -> SkillDialect:
    return SkillDialect()


class Instructions(msgspec.Struct, frozen=True):
    """Where a harness reads its instructions: uze keeps one region per file."""

    file: Callable[[Location], Path]  # its own instructions file per scope (the region's home)
    also_reads: Callable[[Location], tuple[Path, ...]] = lambda _loc: ()  # others it reads
    # besides its own (DeepSeek reads CLAUDE.md): uze keeps their regions apart


class Skills(msgspec.Struct, frozen=True):
    """Where a harness reads skills and what it adds to one (uze/plan/planner.py reads it)."""

    roots: Callable[[Location], tuple[Path, ...]]  # every root it reads per scope, preferred first
    dedupes: bool = False  # seen listing a name once though it sat in two of its roots
    dialect: Callable[[InvokePolicy], SkillDialect] = _no_policy  # frontmatter keys + extra files
    user_only: SkillSwitch | None = None  # how a user-only skill is kept from the model, where
    # no frontmatter key of the skill can say so
    off: SkillOff | None = None  # `uze disable`'s native switch of one skill (ADR 0098)


class HookProtocol(msgspec.Struct, frozen=True):
    """How a harness's hooks speak: events, tool names, the wrapper's answer, and how it reads
    Claude-protocol hook groups (uze/hooks: wrapper_script.py answers, claude.py translates)."""

    events: Mapping[str, HookEvent] = msgspec.field(default_factory=dict)  # portable event ->
    # its native event, whether it can block, the handler types it runs
    tools: Mapping[str, tuple[str, ...]] = msgspec.field(default_factory=dict)  # native tool ->
    # the portable aliases it stands for (the first is the wrapper's `HOOK_TOOL`)
    answer: HookAnswer = ""  # the wrapper's answer style (`ANSWERS`); "": no wrapper
    input: HookInput = "common"  # the shape of its hook input: common or tool_call
    claude_verbatim: bool = False  # reads Claude-protocol hook groups as its own
    claude_events: Mapping[str, str] = msgspec.field(default_factory=dict)  # Claude event ->
    # the native event a translating wrapper runs on (when not verbatim)
    claude_refused: Mapping[str, str] = msgspec.field(default_factory=dict)  # event -> why not
    claude_limits: Mapping[str, str] = msgspec.field(default_factory=dict)  # event -> a Claude
    # answer the real binary was seen not to honour there (the group is `degraded`)
    claude_tools: Mapping[str, str] = msgspec.field(default_factory=dict)  # native -> Claude's
    handler_why: Mapping[str, str] = msgspec.field(default_factory=dict)  # handler type ->
    # why a portable group of it is not run there (prompt, agent: adr/0089)


NO_HOOK_PROTOCOL: Final = HookProtocol()


class TrustFacts(msgspec.Struct, frozen=True):
    """What in a harness runs or widens permissions, and what it asks the user to trust."""

    powers: tuple[Power, ...] = ()  # keys it documents as running or granting (uze.trust)
    hook_trust: Callable[[Paths], set[str]] | None = None  # hook files the user has trusted,
    # where it gates hooks on trust (`uze status` names the others); None: no gate


NO_TRUST: Final = TrustFacts()


class DoctorFacts(msgspec.Struct, frozen=True):
    """How `uze doctor` checks a harness against its real binary (uze/doctor resolves names)."""

    probes: tuple[str, ...] = ()  # names of its real binary's listings (doctor's `PROBES`)
    not_runnable: str = ""  # why no probe can run here (no real binary offline); "": they can


NO_DOCTOR: Final = DoctorFacts()


class Harness(msgspec.Struct, frozen=True, kw_only=True):
    """One harness: everything uze knows about it, as data (ADR 0035, 0053). A new harness is
    one module + one registry line. Identity is flat; the rest comes in sub-structures, each
    field with its contract. None: the harness has none of that which uze writes.
    """

    # --- identity: who it is and how uze sees it is there ---
    id: str  # the canonical id: the module's name and its line in HARNESS_IDS
    binary: str  # the command on PATH (detection, `uze doctor`)
    markers: tuple[str, ...]  # project-root names that show it is used here
    home: Callable[[Paths], Path]  # its user-level folder (its own env override honoured)
    column: str = ""  # its label in `uze status` (default: the id)

    # --- where each kind goes ---
    instructions: Instructions  # its instructions file and the others it reads
    skills: Skills  # its skill roots, whether it dedupes, its dialect
    agents: AgentFormat | None = None  # its agent files: folder, format, keys, tool lists
    commands: CommandSurface | None = None  # its command files; None: commands go as skills
    mcp: McpTarget | None = None  # its MCP config: file, format, key, dialect
    hooks: HookTarget | None = None  # where wrappers are registered; None: unsupported["hook"]
    hook_protocol: HookProtocol = NO_HOOK_PROTOCOL  # events, tools, answer, Claude groups
    project_forms: ProjectForms = NO_PROJECT_FORMS  # how project entries name the root (0039)

    # --- what it can do: `uze check`'s rows ---
    capabilities: Mapping[tuple[str, str], Capability] = msgspec.field(default_factory=dict)
    # (kind, feature) -> route, reason, source; a kind with no row is unsupported
    unsupported: Mapping[str, str] = msgspec.field(default_factory=dict)  # kind -> why not

    # --- trust and doctor ---
    trust: TrustFacts = NO_TRUST  # powers (uze.trust) and its hook-trust gate (`uze status`)
    doctor: DoctorFacts = NO_DOCTOR  # its probes by name, or why none can run

    # --- its own package formats ---
    claude_plugins: ClaudePlugins | None = None  # loads a Claude plugin folder whole (0041)
    envelope: Envelope | None = None  # its own package format, read around (plan/envelopes)

    def detect(self, loc: Location) -> bool:
        """Whether the harness shows in the project, in the user's home or on PATH."""
        import shutil  # start-up: shutil (bz2, lzma: about 3 ms) loads only to detect (ADR 0106)

        return (
            any((loc.project / marker).exists() for marker in self.markers)
            or self.home(loc.paths).is_dir()
            or shutil.which(self.binary, path=loc.paths.env.get("PATH", "")) is not None
        )


def invoke_feature(policy: InvokePolicy) -> str:
    """The capability feature an invocation policy needs."""
    if not policy.model:
        return "invoke.user_only"
    if not policy.user:
        return "invoke.model_only"
    return "base"
