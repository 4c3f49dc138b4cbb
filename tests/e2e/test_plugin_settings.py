"""Plugin settings through the real `uze` command (adr/0078): `--set` values written where each
harness reads the server's configuration, a sensitive setting only ever as the variable the
harness expands, nothing of it in any file uze writes or prints; bad `--set` lines refused
with nothing written; at a terminal, a setting without a value is asked for; uninstall gives
every byte back."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.e2e.conftest import Uze, as_json, assert_ok, person, snapshot
from tests.e2e.test_sharp_edges import _at_a_terminal
from tests.gitserve import git
from tests.helpers import DATA, tree_bytes

pytestmark = pytest.mark.e2e

CLAUDE = DATA / "plugin-settings"
GEMINI = DATA / "gemini-settings"
SECRET = "s3cret-in-the-environment"  # uze's own environment holds it: it must not leak


def _everything(sandbox: Sandbox) -> bytes:
    return b"".join(path.read_bytes() for root in (sandbox.project, sandbox.home,
                                                    sandbox.uze_home)
                    for path in sorted(root.rglob("*")) if path.is_file())


def test_set_values_are_written_and_the_sensitive_one_is_a_variable_everywhere(
    uze: Uze, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SETTINGS_TOKEN", SECRET)
    before = snapshot(sandbox)

    done = assert_ok(uze("install", CLAUDE, "--harness", "claude_code,codex,opencode,gemini_cli",
                         "--set", "label=laptop", "--trust", "--json"))

    project = sandbox.project
    expected_env = {"SETTINGS_TOKEN": "${SETTINGS_TOKEN}", "SETTINGS_LABEL": "laptop"}
    for path in (".mcp.json", ".gemini/settings.json"):
        server = json.loads((project / path).read_text())["mcpServers"]["settings-probe"]
        assert (server["args"], server["env"]) == (["--region", "eu"], expected_env), path
    opencode = json.loads((project / "opencode.json").read_text())["mcp"]["settings-probe"]
    assert opencode["environment"] == {"SETTINGS_TOKEN": "{env:SETTINGS_TOKEN}",
                                       "SETTINGS_LABEL": "laptop"}
    codex = tomllib.loads((project / ".codex/config.toml").read_text())
    assert codex["mcp_servers"]["settings-probe"]["env_vars"] == ["SETTINGS_TOKEN"]
    hooks = json.loads((project / ".claude/settings.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "echo region eu"
    assert not (project / ".claude/skills/plugin-settings/.mcp.json").exists()  # projected
    assert SECRET.encode() not in _everything(sandbox)
    configs = [p for p in project.rglob("*") if p.is_file() and ".uze" not in p.parts]
    assert [p for p in configs if b"user_config" in p.read_bytes()] == []  # only the copy has it
    skills = sorted(p.relative_to(project).as_posix() for p in configs if p.name == "SKILL.md")
    assert skills == [".agents/skills/plugin-settings-status/SKILL.md",  # codex, opencode,
                      ".claude/skills/plugin-settings/skills/status/SKILL.md"]  # gemini; claude
    for rel in skills:  # text: the value where one is written, else the variable, as a shell
        text = (project / rel).read_text()  # reads it
        assert "in region eu and" in text and 'Authorization: ${SETTINGS_TOKEN}"' in text, rel
    document = as_json(done)
    assert SECRET not in done.stdout + done.stderr
    assert {s["key"]: (s["sensitive"], s["variable"], s["written"])
            for s in document["settings"]} == {"api_token": (True, "SETTINGS_TOKEN", False),
                                               "region": (False, "PLUGIN_SETTINGS_REGION", True),
                                               "label": (False, "SETTINGS_LABEL", True)}
    assert_ok(uze("uninstall", "plugin-settings"))
    after = snapshot(sandbox)  # uze's own home keeps the store and the consent
    assert (after["project"], after["home"]) == (before["project"], before["home"])


def test_a_gemini_extensions_settings_go_to_its_servers_environment(
    uze: Uze, sandbox: Sandbox
) -> None:
    assert_ok(uze("install", GEMINI, "--harness", "claude_code,gemini_cli", "--trust",
                  "--set", "SETTINGS_LABEL=desk"))

    for path in (".mcp.json", ".gemini/settings.json"):
        server = json.loads((sandbox.project / path).read_text())["mcpServers"]["gem-settings"]
        assert server["env"] == {"SETTINGS_TOKEN": "${SETTINGS_TOKEN}",
                                 "SETTINGS_LABEL": "desk"}, path


@pytest.mark.parametrize(("args", "code", "first"), [
    (("--set", "api_token=x"), 2, "uze: error: --set api_token: API token is sensitive: uze "
                                  "never takes or writes its value"),
    (("--set", "colour=red"), 2, "uze: error: --set colour: plugin-settings declares no such "
                                 "setting (its settings: api_token, label, region)"),
    (("--set", "label"), 2, "uze: error: --set 'label' is not KEY=VALUE"),
    (("--set", "label=a", "--set", "label=b"), 2, "uze: error: --set 'label=b' is given twice"),
    (("--set", "label=a\nb"), 2, "uze: error: --set 'label': the value is not one line of "
                                 "printable text"),
])
def test_a_bad_set_is_refused_and_writes_nothing(
    uze: Uze, sandbox: Sandbox, args: tuple[str, ...], code: int, first: str
) -> None:
    before = snapshot(sandbox)

    result = uze("install", CLAUDE, "--harness", "codex", "--trust", *args)

    assert (result.returncode, result.stderr.splitlines()[0]) == (code, first)
    assert result.stderr.splitlines()[1].startswith("hint: ")
    assert snapshot(sandbox) == before


@pytest.mark.parametrize(("answer", "label"), [(b"desk\n", "desk"),
                                               (b"\n", "${SETTINGS_LABEL}")])
def test_at_a_terminal_a_setting_without_a_value_is_asked_for(
    sandbox: Sandbox, answer: bytes, label: str
) -> None:
    code, shown = _at_a_terminal(["install", str(CLAUDE), "--harness", "claude_code", "--trust"],
                                 sandbox.project, answer, b"[$SETTINGS_LABEL]")

    assert code == 0, shown
    assert "plugin-settings has settings with no value" in shown
    assert "label: A name for this machine." in shown
    assert "API token" not in shown.split("Installed")[0]  # a sensitive one is never asked
    server = json.loads((sandbox.project / ".mcp.json").read_text())["mcpServers"]
    assert server["settings-probe"]["env"]["SETTINGS_LABEL"] == label


def _delivered(project: Path) -> dict[str, bytes | str]:
    """What the harnesses read in `project`, by bytes: everything but uze's own state and the
    package's source folder (a mode is left out: a file git checked out follows the umask)."""
    return {rel: data.rsplit(b"\0mode=", 1)[0] if isinstance(data, bytes) else data
            for rel, data in tree_bytes(project).items()
            if not rel.startswith((".uze", "uze.", "plugins"))}


def test_set_values_are_pinned_and_a_clone_delivers_the_same_bytes(
    uze: Uze, sandbox: Sandbox
) -> None:
    """A `--set` value is recorded in the receipt and uze.lock (adr/0103): a re-install without
    `--set` keeps it, a clone's `uze install` delivers byte for byte what the author's did
    (DESIGN invariant 11), and `outdated` sees the package current. The sensitive setting is
    in none of it."""
    mine = sandbox.project
    (mine / ".git").rmdir()
    git("init", "-q", ".", cwd=mine)
    shutil.copytree(CLAUDE, mine / "plugins" / "plugin-settings")
    harness = ("--harness", "claude_code,codex,opencode,gemini_cli")
    assert_ok(uze("install", "./plugins/plugin-settings", *harness, "--set", "label=laptop",
                  "--set", "region=us", "--trust"))
    lock = (mine / "uze.lock").read_text()
    assert 'settings = { "label" = "laptop", "region" = "us" }\n' in lock
    assert "api_token" not in lock
    delivered = _delivered(mine)
    server = json.loads((mine / ".mcp.json").read_text())["mcpServers"]["settings-probe"]
    assert (server["args"], server["env"]["SETTINGS_LABEL"]) == (["--region", "us"], "laptop")

    assert_ok(uze("install", "./plugins/plugin-settings", "--trust"))  # no --set: kept
    assert _delivered(mine) == delivered and (mine / "uze.lock").read_text() == lock
    drift = as_json(assert_ok(uze("outdated", "--json")))["packages"]
    assert [d["state"] for d in drift] == ["current"], drift

    git("add", "-A", cwd=mine)
    git("commit", "-q", "-m", "plugin settings", cwd=mine)
    theirs = sandbox.root / "mate" / "project"
    git("clone", "-q", mine, theirs, cwd=sandbox.root)
    mate = person(sandbox.root, "mate")
    assert_ok(uze("install", "--trust", cwd=theirs, env=mate))
    assert _delivered(theirs) == delivered
    assert_ok(uze("status", "--check", cwd=theirs, env=mate))
