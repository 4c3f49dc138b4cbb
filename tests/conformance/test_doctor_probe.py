"""`uze doctor --probe` with the four real harnesses: after `uze install` each harness's own
listings show every item doctor probes exactly once; a skill folder the user deleted shows as
missing, for the harness that reads it, and is kept as failed local evidence. Claude Code's
project plugin folder (adr/0048) loads only in a trusted workspace, and doctor lists in an
untrusted scratch copy: its skills and agents are reported not probed, with that reason."""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import pytest

from tests.conformance.lab import BIN_DIR, Lab, harness_env, prepare_user_state, require
from tests.conformance.oracles import REAL_HARNESSES
from tests.conformance.test_switches import NAME as SWITCH_KIT
from tests.conformance.test_switches import build_package as build_switch_package
from tests.conftest import Sandbox
from tests.helpers import run_uze
from uze.doctor import probes
from uze.doctor.probe_run import DOCTOR_PROBES

pytestmark = pytest.mark.conformance


def _doctor(lab: Lab) -> dict[str, Any]:
    env = harness_env(lab.sandbox)
    env["PATH"] = f"{BIN_DIR}{os.pathsep}{env['PATH']}"
    result = run_uze("doctor", "--probe", "--json", cwd=lab.sandbox.project, env=env)
    assert result.returncode == 0, result.stderr
    return {h["id"]: h for h in json.loads(result.stdout)["harnesses"]}


def _states(record: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(p["kind"], p["name"]): p["state"] for p in record["probe"]}


def test_doctor_probe_sees_each_item_uze_installed_and_a_deleted_skill_as_missing(
    lab: Lab,
) -> None:
    for harness in REAL_HARNESSES.values():
        require(harness.binary)
    lab.install(",".join(REAL_HARNESSES), "project")
    records = _doctor(lab)
    for harness in REAL_HARNESSES:
        record = records[harness]
        probed = {k for probe in DOCTOR_PROBES[harness] for k in probe.kinds}
        states = _states(record)
        assert {k for k, _ in states} >= probed, (harness, states)
        starts = {k for probe in DOCTOR_PROBES[harness] if probe.starts for k in probe.kinds}
        for (kind, name), state in states.items():
            # a listing that would start the project's servers runs in a scratch copy of what
            # cannot run, so the project's MCP servers and hooks stay unverified (ADR 0021)
            unprobed = kind not in probed or (kind in starts and kind in ("mcp", "hook"))
            in_plugin = harness == "claude_code" and kind in ("skill", "agent")
            expected = "unverified" if unprobed or in_plugin else "found"
            assert state == expected, (harness, kind, name, record["probe"])
            if in_plugin:
                (item,) = [p for p in record["probe"] if (p["kind"], p["name"]) == (kind, name)]
                assert "workspace the user trusted" in item["note"], item
        assert "not_discoverable" not in record["problems"], record
        assert record["discovery"] != "failed", record
    shared = lab.sandbox.project / ".agents/skills/every-kind-review"  # Codex reads it
    assert shared.is_dir()
    shutil.rmtree(shared)
    after = _doctor(lab)
    assert _states(after["codex"])[("skill", "every-kind-review")] == "missing"
    assert _states(after["codex"])[("skill", "every-kind-helper")] == "found"
    assert after["codex"]["discovery"] == "failed"
    assert after["codex"]["problems"][0] == "not_discoverable"
    assert _states(after["codex"])[("agent", "every-kind-reviewer")] == "found"
    local = json.loads((lab.sandbox.uze_home / "evidence" / "local.json").read_text())
    codex = {r["capability"]: r["result"] for r in local["records"]
             if r["harness"] == "codex" and r["scope"] == "project"}
    assert codex["skill.discovery"] == "failed" and codex["agent.discovery"] == "passed"


def test_doctor_probe_in_a_project_nobody_trusted_reads_denied_or_unverified_never_failed(
    lab: Lab,
) -> None:
    """Codex and Gemini CLI skip an untrusted project's items (probes 3.1, 4.1): doctor says so
    in their own words, `denied` or `unverified`, never `failed` or missing (CAP-004, CAP-021)."""
    for binary in ("codex", "gemini"):
        require(binary)
    lab.install("codex,gemini_cli", "project")
    (lab.sandbox.home / ".codex" / "config.toml").write_text("", encoding="utf-8")  # untrusted
    env = harness_env(lab.sandbox)
    del env["GEMINI_CLI_TRUST_WORKSPACE"]  # Gemini CLI's folder trust as installed: on
    env["PATH"] = f"{BIN_DIR}{os.pathsep}{env['PATH']}"
    result = run_uze("doctor", "--probe", "--json", cwd=lab.sandbox.project, env=env)
    assert result.returncode == 0, result.stderr
    records = {h["id"]: h for h in json.loads(result.stdout)["harnesses"]}
    words = {
        "codex": "To load project-local config, hooks, and exec policies, add "
                 f"{lab.sandbox.project} as a trusted project",
        "gemini_cli": "Skipping project agents due to untrusted folder.",
    }
    hidden = {"codex": {"agent", "mcp", "hook"}, "gemini_cli": {"skill"}}
    for harness, said in words.items():
        record = records[harness]
        assert "failed" not in json.dumps(record["checks"]), record["checks"]
        assert record["discovery"] in ("denied", "unverified"), record
        assert "not_discoverable" not in record["problems"], record
        assert "workspace_untrusted" in record["problems"], record
        states = {p["kind"]: p for p in record["probe"]}
        for item in record["probe"]:
            assert item["state"] in ("found", "denied", "unverified"), item
            if item["kind"] in hidden[harness]:
                assert item["state"] == "denied" and said in item["note"], item
        assert record["checks"]["discovery"]["status"] == "denied"
        assert said in record["checks"]["discovery"]["reason"]
        if harness == "codex":  # an untrusted project's skills and AGENTS.md still load
            assert states["skill"]["state"] == "found" and states["instructions"]["state"] == (
                "found")
    local = json.loads((lab.sandbox.uze_home / "evidence" / "local.json").read_text())
    for r in local["records"]:
        assert r["result"] in ("passed", "denied"), r
        if r["result"] == "denied":  # the permission state of the run is the harness's words
            assert words[r["harness"]] in r["permission"], r


def test_doctor_probe_reports_a_skill_codex_switched_off_as_disabled_not_found(
    sandbox: Sandbox,
) -> None:
    """`uze disable NAME:hello --harness codex` in user scope writes Codex's own switch
    (`[[skills.config]] enabled = false`, adr/0098): the real codex lists the skill with
    `enabled: false` and offers it to no model. doctor --probe says so (`disabled`), never
    `found`, and the switched-off skill fails no discovery; its sibling is still found."""
    require("codex")
    prepare_user_state(sandbox)
    lab = Lab(sandbox, build_switch_package(sandbox.root / "packages" / SWITCH_KIT))
    lab.uze("install", str(lab.package), "--harness", "codex", "--scope", "user")
    lab.uze("disable", f"{SWITCH_KIT}:hello", "--harness", "codex", "--scope", "user")
    params: dict[str, object] = {"cwds": [str(sandbox.project)], "forceReload": True}
    (listed,) = lab.rpc("codex", probes.CODEX_APP_SERVER, [("skills/list", params)])
    enabled = {s["name"]: s.get("enabled") for s in listed["data"][0]["skills"]  # type: ignore[index]
               if s["name"].startswith(SWITCH_KIT)}
    assert enabled == {f"{SWITCH_KIT}-hello": False, f"{SWITCH_KIT}-bye": True}, enabled

    record = _doctor(lab)["codex"]

    states = _states(record)
    assert states[("skill", f"{SWITCH_KIT}-hello")] == "disabled", record["probe"]
    assert states[("skill", f"{SWITCH_KIT}-bye")] == "found", record["probe"]
    (item,) = [p for p in record["probe"] if p["name"] == f"{SWITCH_KIT}-hello"]
    assert "uze disable" in item["note"], item
    assert "not_discoverable" not in record["problems"], record
    assert record["discovery"] != "failed", record
