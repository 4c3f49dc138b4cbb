"""A repository whose root is a marketplace of skill collections (issue 31 item 4, adr/0075),
on the real binaries, both scopes: `uze install git+<repo> --plugin office-skills` for Claude
Code, Codex, Gemini CLI and OpenCode at once, and each harness's own listing shows exactly the
two skills the entry lists, each once, and nothing else of the repository (not the skills of
the other entry, not the `template/` skill no entry names, not a skill under its bare name
from Claude Code's plugin copy).

The repository is written here in the shape of anthropics/skills (no copy of its files).
"""

from __future__ import annotations

import json

import pytest

from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import Lab, prepare_user_state, require
from tests.conformance.test_exactly_once import BINARIES, HARNESSES, LISTINGS
from tests.conftest import Sandbox
from tests.gitserve import Repo

pytestmark = pytest.mark.conformance
NAME = "office-skills"
ALL = ("sheet", "slides", "art", "brand")


def _skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: The {name} skill (uze collection probe).\n---\n" \
           f"Use {name}.\n"


def _repository(sandbox: Sandbox) -> Repo:
    repo = Repo(sandbox.root / "served" / "skills.git")
    catalog = {"name": "probe-skills", "owner": {"name": "Probe"}, "plugins": [
        {"name": NAME, "source": "./", "strict": False,
         "skills": ["./skills/sheet", "./skills/slides"]},
        {"name": "example-skills", "source": "./", "strict": False,
         "skills": ["./skills/art", "./skills/brand"]}]}
    repo.commit({".claude-plugin/marketplace.json": json.dumps(catalog),
                 "template/SKILL.md": _skill("template-skill"),
                 **{f"skills/{name}/SKILL.md": _skill(name) for name in ALL}})
    return repo


EXPECTED = {
    "claude_code": {f"{NAME}:sheet", f"{NAME}:slides"},
    "codex": {f"{NAME}-sheet", f"{NAME}-slides"},
    "gemini_cli": {f"{NAME}-sheet", f"{NAME}-slides"},
    "opencode": {f"{NAME}-sheet", f"{NAME}-slides"},
}


def _ours(counts: dict[str, int]) -> dict[str, int]:
    """The listed names that come from the repository: any of its skills, bare or labelled."""
    words = (*ALL, "template", NAME, "example-skills")
    return {name: n for name, n in counts.items() if any(w in name for w in words)}


@pytest.mark.parametrize("scope", ("project", "user"))
def test_a_collection_plugin_is_listed_exactly_as_its_entry_lists_it(
    sandbox: Sandbox, evidence: EvidenceRun, scope: str
) -> None:
    for binary in BINARIES.values():
        require(binary)
    prepare_user_state(sandbox)
    repo = _repository(sandbox)
    lab = Lab(sandbox, sandbox.root / "unused")
    lab.uze("install", f"git+{repo.url}", "--plugin", NAME, "--harness", ",".join(HARNESSES),
            "--scope", scope)
    for harness in HARNESSES:
        with evidence.check(harness, "skill.discovery", scope):
            seen = LISTINGS[harness](lab)
            assert _ours(dict(seen.counts)) == dict.fromkeys(EXPECTED[harness], 1), (
                f"{harness} should list {sorted(EXPECTED[harness])} once each and nothing else "
                f"of the repository\n{seen.evidence[:6000]}")
    lab.uze("uninstall", NAME, "--scope", scope)
    for harness in HARNESSES:
        assert not _ours(dict(LISTINGS[harness](lab).counts)), harness
