"""MCP servers: one owned entry per server in each harness's own config file, nothing else."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Sandbox
from tests.helpers import DATA, run_uze, tree_bytes
from uze.projections.config_entry import read_document

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def every_kind_without_hooks(sandbox: Sandbox) -> None:
    """every-kind minus hooks.json and its user-only skill: these tests look at MCP entries only
    (Gemini keeps hooks in the same settings file; OpenCode keeps a user-only skill from its
    model with an entry in opencode.json, adr/0084)."""
    global EVERY_KIND
    EVERY_KIND = Path(shutil.copytree(DATA / "every-kind", sandbox.root / "every-kind"))
    (EVERY_KIND / "hooks.json").unlink()
    shutil.rmtree(EVERY_KIND / "skills" / "ship")


EVERY_KIND = DATA / "every-kind"

JSON_DOC = (b'{\n    "theme": "dark",\n    "CONTAINER": {\n        "mine": {"command": "mine", '
            b'"env": {"SECRET": "s3cret"}}\n    }\n}')
JSONC_DOC = (b'// my settings\r\n{\r\n\t"theme": "dark", /* keep */\r\n\t"CONTAINER": {\r\n'
             b'\t\t"mine": {"command": "mine", "env": {"SECRET": "s3cret"}},\r\n\t},\r\n}\r\n')
TOML_DOC = (b'# my codex config\nmodel = "o4"  # the default\n\n[projects."/somewhere"]\n'
            b'trust_level = "trusted"\n\n[mcp_servers.mine]\ncommand = "mine"\n'
            b'env = { SECRET = "s3cret" }\n')

# harness -> (format, container key, project file, user file relative to HOME)
TARGETS = {
    "claude_code": ("json", "mcpServers", ".mcp.json", ".claude.json"),
    "codex": ("toml", "mcp_servers", ".codex/config.toml", ".codex/config.toml"),
    "opencode": ("jsonc", "mcp", "opencode.json", ".config/opencode/opencode.json"),
    "gemini_cli": ("jsonc", "mcpServers", ".gemini/settings.json", ".gemini/settings.json"),
    "antigravity": ("json", "mcpServers", ".agents/mcp_config.json",
                    ".gemini/config/mcp_config.json"),
    "kimi_code": ("json", "mcpServers", ".kimi-code/mcp.json", ".kimi-code/mcp.json"),
}
CASES = [(h, s) for h in TARGETS for s in ("project", "user")]


def _config(sandbox: Sandbox, harness: str, scope: str) -> Path:
    fmt, container, project_file, user_file = TARGETS[harness]
    path = sandbox.project / project_file if scope == "project" else sandbox.home / user_file
    doc = {"json": JSON_DOC, "jsonc": JSONC_DOC, "toml": TOML_DOC}[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(doc.replace(b"CONTAINER", container.encode()))
    return path


def _install(sandbox: Sandbox, harness: str, scope: str) -> None:
    done = run_uze("install", EVERY_KIND, "--harness", harness, "--scope", scope, "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("harness", "scope"), CASES)
def test_the_config_file_gains_only_the_owned_entries_and_uninstall_restores_it(
    sandbox: Sandbox, harness: str, scope: str
) -> None:
    fmt, container = TARGETS[harness][:2]
    path = _config(sandbox, harness, scope)
    before_bytes = path.read_bytes()
    before = read_document(before_bytes, fmt)  # type: ignore[arg-type]
    _install(sandbox, harness, scope)
    after = read_document(path.read_bytes(), fmt)  # type: ignore[arg-type]
    assert isinstance(after, dict) and isinstance(before, dict)
    servers = dict(after[container])
    assert set(servers) == {"mine", "docs", "search"}
    assert servers["mine"] == before[container]["mine"]
    assert {k: v for k, v in after.items() if k != container} == {
        k: v for k, v in before.items() if k != container}
    assert "s3cret" in path.read_text()  # the user's secret stays where it was...
    receipts = (sandbox.project / ".uze/receipts" if scope == "project"
                else sandbox.uze_home / "receipts")
    assert "s3cret" not in (receipts / "every-kind.json").read_text()  # ...and never in a receipt
    assert run_uze("uninstall", "every-kind", "--scope", scope, cwd=sandbox.project).returncode == 0
    assert path.read_bytes() == before_bytes


@pytest.mark.parametrize(("harness", "scope"), [("claude_code", "project"), ("codex", "user"),
                                                ("opencode", "project"), ("gemini_cli", "user")])
def test_a_user_edit_to_an_owned_entry_survives_uninstall_and_is_reported(
    sandbox: Sandbox, harness: str, scope: str
) -> None:
    fmt, container = TARGETS[harness][:2]
    path = _config(sandbox, harness, scope)
    _install(sandbox, harness, scope)
    text = path.read_text()
    edited = text.replace("https://search.example.com/mcp", "https://search.example.com/v2")
    assert edited != text
    path.write_text(edited)
    status = json.loads(run_uze("status", "every-kind", "--json", cwd=sandbox.project).stdout)
    search = next(p for p in status["packages"][0]["projections"] if p["resource"] == "search")
    assert search["state"] == "drifted"
    done = run_uze("uninstall", "every-kind", "--scope", scope, cwd=sandbox.project)
    assert done.returncode == 0
    assert "kept" in done.stdout and "search" in done.stdout
    after = read_document(path.read_bytes(), fmt)  # type: ignore[arg-type]
    assert isinstance(after, dict) and set(after[container]) == {"mine", "search"}


def test_reformatting_by_a_harness_is_not_an_edit(sandbox: Sandbox) -> None:
    _install(sandbox, "claude_code", "project")
    path = sandbox.project / ".mcp.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=7, sort_keys=True))
    status = json.loads(run_uze("status", "every-kind", "--json", cwd=sandbox.project).stdout)
    states = {p["state"] for p in status["packages"][0]["projections"] if p["kind"] == "mcp"}
    assert states == {"matched"}


def test_a_config_file_that_does_not_parse_stops_the_install_before_any_write(
    sandbox: Sandbox,
) -> None:
    path = sandbox.project / ".mcp.json"
    path.write_bytes(b'{"mcpServers": {,}')
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 1
    assert ".mcp.json" in done.stderr and "does not parse" in done.stderr
    assert "hint: fix the syntax error at the line:column shown" in done.stderr
    assert "uze:begin" not in done.stderr
    assert path.read_bytes() == b'{"mcpServers": {,}'
    assert not (sandbox.project / ".uze").exists()


def test_a_config_that_stops_parsing_after_install_is_named_as_such_on_reinstall(
    sandbox: Sandbox,
) -> None:
    """Not as broken region markers: the entry's file is a JSON file (tests/e2e/test_hooks.py
    has the same for a hook's settings file)."""
    file = ".mcp.json"
    assert run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project).returncode == 0
    (sandbox.project / file).write_bytes(b'{"mcpServers": {,}')
    before = tree_bytes(sandbox.project)
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 1
    assert f"cannot safely edit {file}: it does not parse (1:17: " in done.stderr
    assert "hint: fix the syntax error at the line:column shown" in done.stderr
    assert "markers" not in done.stderr and "Traceback" not in done.stderr
    assert tree_bytes(sandbox.project) == before


def test_a_foreign_entry_with_the_same_name_is_a_conflict_found_while_planning(
    sandbox: Sandbox,
) -> None:
    path = sandbox.project / ".mcp.json"
    path.write_bytes(b'{"mcpServers": {"docs": {"command": "theirs"}}}\n')
    done = run_uze("install", EVERY_KIND, "--harness", "claude_code", "--trust",
                   cwd=sandbox.project)
    assert done.returncode == 1
    assert ".mcp.json#mcpServers.docs" in done.stderr and "did not write" in done.stderr
    assert not (sandbox.project / ".uze").exists()


def test_plugin_root_commands_run_from_a_copy_the_receipt_owns(sandbox: Sandbox) -> None:
    _install(sandbox, "codex", "project")
    config = tomllib.loads((sandbox.project / ".codex/config.toml").read_text())
    written = config["mcp_servers"]["docs"]["command"]  # relative to the project (adr/0039)
    assert written == "./.uze/packages/every-kind/scripts/server.sh"
    command = sandbox.project / written
    assert command.read_bytes() == (EVERY_KIND / "scripts/server.sh").read_bytes()
    assert command.stat().st_mode & 0o111
    assert run_uze("uninstall", "every-kind", cwd=sandbox.project).returncode == 0
    assert not (sandbox.project / ".uze").exists()


def test_a_disabled_server_is_written_disabled_or_not_at_all(sandbox: Sandbox) -> None:
    pkg = sandbox.root / "pkg"
    (pkg / "scripts").mkdir(parents=True)
    (pkg / "plugin.json").write_text('{"name": "quiet"}')
    (pkg / "mcp.json").write_text(
        '{"mcpServers": {"later": {"command": "npx", "args": ["x"], "enabled": false}}}')
    done = run_uze("install", pkg, "--harness", "claude_code,codex,opencode", "--trust", "--json",
                   cwd=sandbox.project)
    assert done.returncode == 0, done.stderr
    rows = {p["harness"]: p for p in json.loads(done.stdout)["projections"] if p["kind"] == "mcp"}
    assert rows["claude_code"]["route"] == "unsupported"
    assert "disabled" in rows["claude_code"]["reason"]
    assert not (sandbox.project / ".mcp.json").exists()
    codex = tomllib.loads((sandbox.project / ".codex/config.toml").read_text())
    assert codex["mcp_servers"]["later"]["enabled"] is False
    opencode = json.loads((sandbox.project / "opencode.json").read_text())
    assert opencode["mcp"]["later"]["enabled"] is False
