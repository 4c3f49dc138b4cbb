"""ADR 0049 on the real binaries: a package's Gemini CLI context (its `gemini-extension.json`
`contextFileName`, with an `@` import) reaches the scripted model as standing instructions in
Codex, Gemini CLI and OpenCode, with its import inlined and its reference to the
package's own skill spelled as the label that harness lists (`uze status --json`), and after
uninstall it reaches none. Claude Code, which gets the package whole as its own plugin, does not
get it: a Claude plugin names no context, and Claude Code installing the plugin itself loads
none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.behaviour import DRIVERS
from tests.conformance.lab import Lab, model_run, prepare_user_state, require
from tests.conformance.model_server import Request, Script, model_server
from tests.conformance.oracles import REAL_HARNESSES
from tests.conftest import Sandbox
from tests.helpers import build_tree

pytestmark = pytest.mark.conformance

NAME = "ctx"
MARK = "Context marker 7f3a: plan with"
IMPORTED = "Imported guide marker 91c2."


def _package(dest: Path) -> Path:
    return build_tree(dest, {
        ".claude-plugin/plugin.json": json.dumps({"name": NAME, "version": "1.0.0"}),
        "gemini-extension.json": json.dumps({"name": NAME, "version": "1.0.0"}),
        "GEMINI.md": f"{MARK} {NAME}:plan first.\n@./docs/guide.md\n",
        "docs/guide.md": f"{IMPORTED}\n",
        "AGENTS.md": "Contributor notes marker 5d1e.\n",
        "skills/plan/SKILL.md": "---\nname: plan\ndescription: Plans the work.\n---\nPlan.\n",
    })


def _turn(lab: Lab, binary: str, url: str) -> None:
    args, env = model_run(lab, binary, url, "Say hello.")
    lab.run(binary, *args, env=env)


def _texts(requests: list[Request], api: str) -> str:
    return "\n".join(r.text() for r in requests if r.api == api)


@pytest.mark.parametrize("harness_id", ["claude_code", "codex", "gemini_cli", "opencode"])
def test_the_context_reaches_the_model_with_the_harness_label(
    sandbox: Sandbox, harness_id: str
) -> None:
    harness, driver = REAL_HARNESSES[harness_id], DRIVERS[harness_id]
    require(harness.binary)
    prepare_user_state(sandbox)
    lab = Lab(sandbox, _package(sandbox.root / "packages" / NAME))
    lab.uze("install", str(lab.package), "--harness", harness_id, "--trust")
    rows = json.loads(lab.uze("status", NAME, "--json").stdout)["packages"][0]["projections"]
    label = next(r["label"] for r in rows if r["kind"] == "skill")
    # Claude Code gets the package whole as its own plugin, which names no context (as when
    # Claude Code installs the plugin itself); every other harness gets the context
    whole = harness_id == "claude_code"
    assert [r["route"] == "unsupported" if whole else r["state"] == "matched"
            for r in rows if r["kind"] == "instructions"] == [True]
    driver.prepare(lab, "project")

    with model_server() as model:
        model.script = Script(None)
        _turn(lab, harness.binary, model.url)
        seen = _texts(model.logged(), driver.api)
        assert seen, "the harness sent no model request"
        if whole:
            assert MARK not in seen and IMPORTED not in seen, seen[:2000]
        else:
            assert f"{MARK} {label} first." in seen, seen[:2000]
            assert IMPORTED in seen and "@./docs/guide.md" not in seen
        assert "Contributor notes marker 5d1e." not in seen

        lab.uze("uninstall", NAME)
        model.clear()
        _turn(lab, harness.binary, model.url)
        assert MARK not in _texts(model.logged(), driver.api)
