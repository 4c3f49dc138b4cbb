"""A plugin's own `<package>:<name>` references, rewritten to each harness's label (adr/0049).
Pure: the rewrite on text, and plans of packages read from trees written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import build_tree
from uze.harnesses import HARNESS_IDS, Location
from uze.package import Package, read_package
from uze.paths import Paths
from uze.plan import claude_plugin
from uze.plan.model import Plan, PlannedFile, PlannedRegion, PlannedTree
from uze.plan.planner import plan_install
from uze.plan.references import _shared, references, rewrite
from uze.plan.skill_roots import unlisted_elsewhere

LABELS = {(False, "kit:plan"): "kit-plan", (False, "kit:git:sync"): "kit-git-sync",
          (True, "kit:git:sync"): "/kit-git-sync", (False, "kit:plan-b"): "kit-plan-b"}
KNOWN = [(slashed, ref) for slashed, ref in LABELS]


@pytest.mark.parametrize("text", [
    "xkit:plan", "kit:plan_x", "skills/kit:plan", "https://h/kit:plan", "kit:plan.md",
    "kit:Plan", "other:plan", "kit:nope", "kit:plan:deeper", "/kit:plan", "kit:plan-",
    "kit:plané", "ékit:plan", ".kit:plan", ":kit:plan", "kit-plan", "kit:", "kit::plan",
])
def test_a_near_miss_is_left_as_written(text: str) -> None:
    data = f"Use {text} now.\n".encode()
    assert rewrite(data, "kit", LABELS) == (data, ())


def test_a_reference_in_prose_code_and_fences_is_rewritten_and_reported_once() -> None:
    text = (b"Use kit:plan. Then `kit:plan`, /kit:git:sync and kit:git:sync:\n"
            b"```dot\n\"Use kit:plan\" -> \"(kit:plan-b)\";\n```\n")
    out, pairs = rewrite(text, "kit", LABELS)
    assert out == (b"Use kit-plan. Then `kit-plan`, /kit-git-sync and kit-git-sync:\n"
                   b"```dot\n\"Use kit-plan\" -> \"(kit-plan-b)\";\n```\n")
    assert pairs == (("kit:plan", "kit-plan"), ("/kit:git:sync", "/kit-git-sync"),
                     ("kit:git:sync", "kit-git-sync"), ("kit:plan-b", "kit-plan-b"))


def test_one_text_rewritten_again_and_for_another_package_gives_the_same_answers() -> None:
    """The search for `<package>:` is remembered per bytes object and package (ADR 0052)."""
    text = b"Use kit:plan, not other:plan.\n"
    first = rewrite(text, "kit", LABELS)
    assert rewrite(text, "kit", LABELS) == first == (b"Use kit-plan, not other:plan.\n",
                                                     (("kit:plan", "kit-plan"),))
    other = {(False, "other:plan"): "other-plan"}
    assert rewrite(text, "other", other) == (b"Use kit:plan, not other-plan.\n",
                                             (("other:plan", "other-plan"),))
    assert rewrite(text, "none", LABELS) == (text, ())


@given(st.binary())
def test_text_naming_no_reference_is_unchanged_byte_for_byte(data: bytes) -> None:
    if b"kit:" in data:
        data = data.replace(b"kit:", b"kit;")
    assert rewrite(data, "kit", LABELS) == (data, ())


_EDGES = " \n\t`\"'()*>|,;"
_FILLER = st.builds(
    lambda left, body, right: left + body + right,
    st.sampled_from(_EDGES), st.text().filter(lambda t: "kit:" not in t), st.sampled_from(_EDGES),
)


@given(_FILLER, st.lists(st.tuples(st.sampled_from(KNOWN), _FILLER), max_size=8))
def test_every_reference_to_a_known_resource_becomes_the_label_and_nothing_else_moves(
    first: str, rest: list[tuple[tuple[bool, str], str]]
) -> None:
    written = first + "".join(("/" if s else "") + ref + after for (s, ref), after in rest)
    wanted = first + "".join(LABELS[(s, ref)] + after for (s, ref), after in rest)
    out, pairs = rewrite(written.encode(), "kit", LABELS)
    assert out == wanted.encode()
    assert {ref for ref, _ in pairs} == {("/" if s else "") + ref for (s, ref), _ in rest}


def test_a_reference_harnesses_sharing_one_file_list_differently_stays() -> None:
    per = {"a": {(False, "kit:x"): "kit-x", (False, "kit:y"): "kit-y"},
           "b": {(False, "kit:x"): "kit-x-command"}, "c": {}}
    assert _shared(("a", "b", "c"), per) == ({(False, "kit:y"): "kit-y"}, {(False, "kit:x")})


MANIFEST = json.dumps({"name": "kit", "version": "1.0.0"})
PLAN = "---\nname: plan\ndescription: After kit:brainstorm.\n---\nUse kit:brainstorm, then " \
       "/kit:git:sync and the kit:team:lead agent; not other:plan nor kit:nope.\n"
FILES = {
    ".claude-plugin/plugin.json": MANIFEST,
    "skills/plan/SKILL.md": PLAN,
    "skills/plan/more.md": "See kit:brainstorm.\n",
    "skills/plan/run.sh": "echo kit:brainstorm\n",
    "skills/brainstorm/SKILL.md": "---\nname: brainstorm\ndescription: Ideas.\n---\nNo refs.\n",
    "commands/git/sync.md": "---\ndescription: Sync\n---\nThen kit:plan.\n",
    "agents/team/planner.md": "---\nname: lead\ndescription: Leads.\n---\nRun kit:plan.\n",
}


def _plan(tmp_path: Path, files: dict[str, str], harnesses: tuple[str, ...] = HARNESS_IDS
          ) -> tuple[Package, Plan]:
    package = read_package(build_tree(tmp_path / "kit", files))
    paths = Paths(home=tmp_path / "home", uze_home=tmp_path / "uze", env={})
    loc = Location("project", tmp_path / "project", paths)
    return package, plan_install(package, "0" * 64, loc, harnesses)


def _expected(original: bytes, package: Package, plan: Plan, harness: str) -> bytes:
    """`original` with each known reference spelled as `harness`'s row labels it."""
    text = original.decode()
    rows = {(p.kind, p.resource): p.label for p in plan.projections if p.harness == harness}
    for (slashed, ref), (kind, resource) in sorted(references(package).items(),
                                                   key=lambda item: -len(item[0][1])):
        label = rows.get((kind, resource))
        if label:
            spelled = f"/{ref}" if slashed else ref
            text = text.replace(f" {spelled}", f" {'/' if slashed else ''}{label}")
    return text.encode()


def test_each_harness_gets_its_labels_and_claude_codes_plugin_copy_stays_verbatim(
    tmp_path: Path
) -> None:
    package, plan = _plan(tmp_path, FILES)
    plugin = next(a for a in plan.artifacts if isinstance(a, PlannedTree)
                  and a.path == claude_plugin.folder(plan.location, package))
    assert dict(plugin.files) == unlisted_elsewhere(  # references as written (adr/0070)
        {rel: f.data for rel, f in package.files.items()})
    skills = [a for a in plan.artifacts if isinstance(a, PlannedTree) and a.path.name == "kit-plan"]
    assert skills
    for tree in skills:
        harness = tree.harnesses[0]
        assert tree.files["SKILL.md"].endswith(_expected(PLAN.encode(), package, plan,
                                                         harness).split(b"---\n", 2)[2])
        assert b"kit-brainstorm" in tree.files["SKILL.md"].split(b"---\n", 2)[1]
        assert tree.files["more.md"] == b"See kit-brainstorm.\n"
        assert tree.files["run.sh"] == b"echo kit:brainstorm\n"  # not Markdown: a program
        assert b"other:plan nor kit:nope" in tree.files["SKILL.md"]
    rows = {(p.kind, p.resource, p.harness): p for p in plan.projections}
    for harness in HARNESS_IDS:
        row = rows[("skill", "plan", harness)]
        if harness == "claude_code":
            assert "rewritten" not in row.reason and row.route == "native"
            continue
        assert row.route != "native"
        assert "references rewritten to this harness's labels: kit:brainstorm as " \
               f"{rows[('skill', 'brainstorm', harness)].label}" in row.reason
        untouched = rows[("skill", "brainstorm", harness)]
        assert "rewritten" not in untouched.reason
    files = [a for a in plan.artifacts if isinstance(a, PlannedFile)]
    assert any(b"Run kit-plan." in f.data for f in files)  # agents
    assert any(b"Then kit-plan." in f.data for f in files)  # the OpenCode command
    assert not any(b"kit:plan" in f.data for f in files)


def test_instructions_are_rewritten_per_file_and_a_package_without_references_is_untouched(
    tmp_path: Path
) -> None:
    files = {"plugin.json": MANIFEST, "AGENTS.md": "Start with kit:plan.\n",
             "skills/plan/SKILL.md": "---\nname: plan\ndescription: Plan.\n---\nPlan.\n"}
    _, plan = _plan(tmp_path, files)
    rows = {(p.kind, p.harness): p for p in plan.projections}
    for region in (a for a in plan.artifacts if isinstance(a, PlannedRegion)):
        label = rows[("skill", region.harnesses[0])].label
        assert region.body == f"Start with {label}.\n".encode()
        for harness in region.harnesses:
            changed = label != "kit:plan"
            assert ("rewritten" in rows[("instructions", harness)].reason) == changed
    _, bare = _plan(tmp_path / "bare", {**files, "AGENTS.md": "Nothing named.\n"})
    assert all("rewritten" not in p.reason for p in bare.projections)
    assert all(a.body == b"Nothing named.\n" for a in bare.artifacts
               if isinstance(a, PlannedRegion))


def test_a_file_shared_with_a_harness_that_lists_the_reference_as_written_keeps_it_and_says_so(
    tmp_path: Path
) -> None:
    files = {"plugin.json": MANIFEST,
             "skills/a/SKILL.md": "---\nname: a\ndescription: A.\n---\nThen kit:b.\n",
             "skills/b/SKILL.md": "---\nname: b\ndescription: B.\n---\nB.\n"}
    _, plan = _plan(tmp_path, files, ("claude_code", "opencode", "codex"))
    rows = {(p.resource, p.harness): p for p in plan.projections if p.kind == "skill"}
    for harness in ("opencode", "codex"):
        row, claude = rows[("a", harness)], rows[("a", "claude_code")]
        tree = next(a for a in plan.artifacts if isinstance(a, PlannedTree) and a.path == row.path)
        text = b"".join(data for rel, data in tree.files.items() if rel.endswith("SKILL.md")
                        and b"Then " in data)
        own = rows[("b", harness)].label
        if row.path == claude.path and claude.label != own:  # one file, two labels
            assert b"Then kit:b." in text
            assert row.route == "degraded"
            assert f"its text names kit:b (listed here as {own})" in row.reason
            assert "kit:b" not in rows[("b", harness)].reason
        else:
            assert f"Then {own}.".encode() in text
            assert f"kit:b as {own}" in row.reason
