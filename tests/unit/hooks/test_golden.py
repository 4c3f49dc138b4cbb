"""Golden tests: a recorded native hook input per harness, through the delivered wrapper.

`golden/<harness>/pretooluse-shell.json` is the stdin the harness gives a PreToolUse hook for a
shell call. Claude Code 2.1.197, Codex 0.171.0 and Gemini CLI 0.61.0: recorded verbatim from
the real binaries (a scripted model asked for `git push --force origin main`; a project hook
ran `cat > file`). OpenCode: what the generated plugin sends, with `output.args` as the real
opencode 1.18.33 gives it (probes 5.4). Kimi Code and Antigravity: from harnesses.md 6.1 and
5.5 (unverified; no binary here). `golden/cases.json` holds one hook group per case;
`golden/<harness>/expected.json` the exact answer: exit code, stdout (JSON, or null for
nothing) and stderr, or `unsupported` with the reason delivery gives instead of a wrapper.
The wrapper is the one `deliver_hooks` produces, run as `python -I -S` (no uze importable).
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest

from uze.harnesses import REGISTRY
from uze.hooks.delivery import deliver_hooks
from uze.package.hooks import HooksFile

GOLDEN = Path(__file__).with_name("golden")
# The harnesses whose native input and answers are recorded here (a folder each).
HARNESSES = tuple(h for h in REGISTRY if (GOLDEN / h).is_dir())


@cache
def _json(rel: str) -> Any:
    return json.loads((GOLDEN / rel).read_text(encoding="utf-8"))


def _cases() -> list[tuple[str, str]]:
    return [(harness, case) for harness in HARNESSES for case in _json("cases.json")]


def test_the_recordings_are_of_harnesses_uze_delivers_hooks_to() -> None:
    recorded = {p.name for p in GOLDEN.iterdir() if p.is_dir()}
    assert recorded == set(HARNESSES) and len(recorded) >= 6
    assert all(REGISTRY[h].hooks is not None for h in HARNESSES)


def test_every_harness_has_an_expected_answer_for_every_case() -> None:
    for harness in HARNESSES:
        assert set(_json(f"{harness}/expected.json")) == set(_json("cases.json")), harness


@pytest.mark.parametrize(("harness", "case"), _cases())
def test_recorded_native_input_gives_the_exact_native_answer(
    tmp_path: Path, harness: str, case: str
) -> None:
    hooks = msgspec.convert({"hooks": {"PreToolUse": [_json("cases.json")[case]]}}, HooksFile)
    (delivered,) = deliver_hooks(harness, hooks, "pkg", tmp_path, tmp_path / "root")
    expected = _json(f"{harness}/expected.json")[case]
    if "unsupported" in expected:
        assert delivered.route == "unsupported" and delivered.wrapper is None
        assert expected["unsupported"] in delivered.reason
        return
    assert delivered.wrapper is not None, delivered.reason
    script = tmp_path / "wrapper.py"
    script.write_bytes(delivered.wrapper.data)
    stdin = (GOLDEN / harness / "pretooluse-shell.json").read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", "-S", str(script)], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)
    stdout = json.loads(done.stdout) if done.stdout else None
    assert (done.returncode, stdout, done.stderr) == (
        expected["code"], expected["stdout"], expected["stderr"]
    )
