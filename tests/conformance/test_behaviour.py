"""Behaviour contracts with the scripted model (issue 7, item 4), per real harness and scope.

After `uze install` of the behaviour package (lab.build_behaviour_package) the real harness runs
one turn against tests/conformance/model_server.py, which answers with one scripted shell call:

* the model request carries the instructions, the skills and agents offered to the model and
  the MCP tools, each exactly once; after `uze uninstall` none of them;
* each hook group uze reports delivered proves its effect on that call: `observe` sees it and
  lets it run, `deny` blocks it and its reason reaches the model, `transform` runs the rewritten
  call, `ask` asks the (scripted) user, who approves; after uninstall nothing intercepts it.

What to check comes from `uze status --json`, never from a list here: every delivered cell
(route other than `unsupported`) must be proven, an unsupported one must carry a reason. Every
absence assertion follows a presence assertion in the same test. Each capability proven or
failed is recorded through the `evidence` fixture (`<kind>.request`, `hook.<effect>`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import pytest

from tests.conformance.behaviour import DRIVERS, Driver, Offered, main_request
from tests.conformance.evidence import EvidenceRun
from tests.conformance.lab import (
    MARKER,
    PACKAGE,
    Lab,
    asked_log,
    build_behaviour_package,
    hook_log,
    model_run,
    prepare_user_state,
    require,
)
from tests.conformance.mcp_probe import TOOL
from tests.conformance.model_server import (
    ModelServer,
    Request,
    Script,
    has_tool_result,
    model_server,
)
from tests.conformance.oracles import REAL_HARNESSES, RealHarness
from tests.conftest import Sandbox
from uze.package.model import Package
from uze.package.reader import read_package

pytestmark = pytest.mark.conformance
SCOPES = ("project", "user")
PROMPT = "Run the scripted shell command."
PLAIN = "touch uze-plain"
DENIED = "touch uze-UZE_DENY_ME"
TRANSFORMED = ("touch uze-UZE_TRANSFORM_ME", "uze-UZE_TRANSFORMED")  # command, file it makes
ASKED = "touch uze-UZE_ASK_ME"
AFTER = "touch uze-after-UZE_DENY_ME-UZE_TRANSFORM_ME-UZE_ASK_ME"  # every hook's marker
REQUEST_KINDS = ("instructions", "skill", "agent", "mcp")
DENY_REASON = "UZE_DENY_REASON"  # what tests/data/behaviour-hooks/scripts/deny.sh prints


@dataclass(frozen=True)
class Cell:
    """One projection of the package for one harness, as `uze status --json` reports it."""

    kind: str
    resource: str
    route: str
    reason: str
    target: str
    label: str = ""

    @property
    def delivered(self) -> bool:
        return self.route != "unsupported"

    @property
    def installed_name(self) -> str:
        """The name a skill or agent is listed under: its label (Claude Code: `<package>:<name>`
        from its plugin folder, adr/0048), else the folder name or file stem uze wrote."""
        return self.label or PurePosixPath(self.target.partition("#")[0]).stem


@dataclass
class Verdicts:
    """The capabilities one test must prove, with the failures seen while checking them.

    `expect` registers a capability the status claims; `check` collects an assertion failure
    under it; `finish` records each one (failed if any check failed or none ran) and fails the
    test with every message at once.
    """

    evidence: EvidenceRun
    harness: str
    scope: str
    failures: dict[str, list[str]] = field(default_factory=dict)
    proven: set[str] = field(default_factory=set)

    def expect(self, capability: str) -> None:
        self.failures.setdefault(capability, [])

    @contextmanager
    def check(self, capability: str) -> Iterator[None]:
        self.expect(capability)
        try:
            yield
        except AssertionError as exc:
            self.failures[capability].append(str(exc))
        else:
            self.proven.add(capability)

    def finish(self, interrupted: BaseException | None) -> None:
        for capability, failed in sorted(self.failures.items()):
            if not failed and capability not in self.proven:
                failed.append(f"never checked: {interrupted!r}")
            result = "failed" if failed else "passed"
            self.evidence.record(self.harness, capability, self.scope, result, "\n".join(failed))
        messages = [f"{c}: {m}" for c, failed in sorted(self.failures.items()) for m in failed]
        if messages and interrupted is None:
            pytest.fail("\n\n".join(messages), pytrace=False)


@pytest.fixture
def model() -> Iterator[ModelServer]:
    """The scripted model server for this test only."""
    with model_server() as server:
        yield server


@pytest.fixture
def behaviour_lab(sandbox: Sandbox, mcp_url: str) -> Lab:
    """The lab with the behaviour package (one hook group per effect) built outside it."""
    prepare_user_state(sandbox)
    return Lab(sandbox, build_behaviour_package(sandbox.root / "packages" / PACKAGE, mcp_url))


def status_cells(lab: Lab, harness: str, scope: str, name: str = PACKAGE) -> list[Cell]:
    """The package's projections for `harness` in `scope`, from `uze status --json`."""
    status = json.loads(lab.uze("status", name, "--json", "--scope", scope).stdout)
    (package,) = [p for p in status["packages"] if p["name"] == name]
    return [
        Cell(p["kind"], p["resource"], p["route"], p["reason"], p["target"], p["label"])
        for p in package["projections"]
        if p["harness"] == harness
    ]


def turn(lab: Lab, harness: RealHarness, model: ModelServer, command: str,
         extra: dict[str, str] | None = None) -> list[Request]:
    """One non-interactive turn in which the model asks for `command` (`extra` added to the
    harness's environment); the requests it got."""
    model.clear()
    model.script = Script(command)
    args, env = model_run(lab, harness.binary, model.url, PROMPT)
    lab.run(harness.binary, *args, env={**env, **(extra or {})})
    return model.logged()


def observed(lab: Lab, harness: str, command: str) -> int:
    """How often the `observe-shell` group logged `command` for `harness`."""
    log = hook_log(lab.sandbox)
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return lines.count(f"observe\t{harness}\t{command}")


def asked_commands(lab: Lab) -> list[str]:
    """The commands the scripted user was asked about, in order."""
    log = asked_log(lab.sandbox)
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [str((json.loads(line).get("input") or {}).get("command")) for line in lines]


def exists(lab: Lab, name: str) -> bool:
    return (lab.sandbox.project / name).exists()


# --- request contracts -----------------------------------------------------------------------
def offered_as(cell: Cell, driver: Driver, package: Package) -> tuple[str, bool]:
    """(name in the request, whether the model must be offered it) for one delivered cell.

    A user-only skill is kept from the model where uze claims its policy holds (native,
    adapted) and offered where uze says it is lost (degraded: "the model can still ...").
    """
    if cell.kind == "mcp":
        return driver.mcp_tool(cell.resource, TOOL["name"]), True
    if cell.kind == "skill":
        (skill,) = [s for s in package.skills if s.name == cell.resource]
        return cell.installed_name, skill.invoke.model or cell.route == "degraded"
    if cell.kind == "agent":
        return cell.installed_name, True
    return MARKER, True


def listed(offered: Offered, kind: str, name: str) -> int:
    """How often the request offers `name` of `kind`."""
    if kind == "instructions":
        return offered.instructions.count(name)
    return {"skill": offered.skills, "agent": offered.agents, "mcp": offered.tools}[kind][name]


def requested(cells: list[Cell]) -> list[Cell]:
    """The delivered cells whose resource the model request carries (every kind but hooks)."""
    return [c for c in cells if c.delivered and c.kind in REQUEST_KINDS]


def check_offered(offered: Offered, cells: list[Cell], driver: Driver, package: Package,
                  verdicts: Verdicts) -> None:
    """Each delivered cell's name offered once (or, kept from the model, not at all)."""
    plans = [(c, *offered_as(c, driver, package)) for c in requested(cells)]
    for cell, name, wanted in sorted(plans, key=lambda plan: not plan[2]):  # presence first
        with verdicts.check(f"{cell.kind}.request"):
            count = listed(offered, cell.kind, name)
            assert count == (1 if wanted else 0), (
                f"{name} ({cell.kind}, {cell.route}) is in the model request {count}x, "
                f"expected {'once' if wanted else 'never'}: offered {_summary(offered)}"
            )


def check_gone(offered: Offered, cells: list[Cell], driver: Driver, package: Package,
               verdicts: Verdicts) -> None:
    """After uninstall: no delivered cell's name in the request."""
    for cell in requested(cells):
        name, _ = offered_as(cell, driver, package)
        with verdicts.check(f"{cell.kind}.request"):
            count = listed(offered, cell.kind, name)
            assert count == 0, (
                f"{name} ({cell.kind}) still in the model request after uninstall "
                f"({count}x): offered {_summary(offered)}"
            )


def _summary(offered: Offered) -> str:
    return (
        f"skills={dict(offered.skills)} agents={dict(offered.agents)} "
        f"tools={sorted(offered.tools)}"
    )


# --- hook contracts --------------------------------------------------------------------------
def hook_effects(cells: list[Cell], package: Package) -> dict[str, Cell]:
    """effect -> the delivered hook cell with it; unsupported ones must say why."""
    assert package.hooks is not None
    effects = {
        (group.id or ""): group.effect
        for groups in package.hooks.hooks.values()
        for group in groups
    }
    delivered = {}
    for cell in (c for c in cells if c.kind == "hook"):
        if cell.delivered:
            delivered[effects[cell.resource]] = cell
        else:
            assert cell.reason.strip(), f"hook {cell.resource} is unsupported without a reason"
    return delivered


def tool_results(requests: list[Request], api: str) -> str:
    """The text of the requests that carry a tool result (the model's next turn)."""
    return "\n".join(
        r.text() for r in requests if r.api == api and isinstance(r.body, dict)
        and has_tool_result(api, r.body)
    )


def check_deny(lab: Lab, harness: RealHarness, driver: Driver, model: ModelServer) -> None:
    requests = turn(lab, harness, model, DENIED)
    assert not exists(lab, DENIED.split()[1]), f"`{DENIED}` ran although deny-marked blocks it"
    results = tool_results(requests, driver.api)
    assert DENY_REASON in results, (
        f"the deny reason {DENY_REASON} did not reach the model; tool results: {results[:3000]}"
    )


def check_transform(lab: Lab, harness: RealHarness, model: ModelServer) -> None:
    command, made = TRANSFORMED
    turn(lab, harness, model, command)
    assert exists(lab, made), f"the rewritten call did not run: no {made}"
    assert not exists(lab, command.split()[1]), f"`{command}` ran as the model asked, unrewritten"


def check_ask(lab: Lab, harness: RealHarness, driver: Driver, model: ModelServer) -> None:
    assert driver.user, f"{harness.id} claims `ask`: give its driver a scripted user to ask"
    turn(lab, harness, model, ASKED)
    asked = asked_commands(lab)
    assert ASKED in asked, f"the user was not asked about `{ASKED}`; asked: {asked}"
    assert exists(lab, ASKED.split()[1]), f"`{ASKED}` did not run after the user approved"
    assert PLAIN not in asked, f"the user was asked about an unmarked call too: {asked}"


HOOK_CHECKS = ("deny", "transform", "ask")


def assert_hook_gone(lab: Lab, harness: str, effect: str) -> None:
    """After uninstall the call carrying every marker ran as asked, seen by no hook."""
    assert exists(lab, AFTER.split()[1]), f"`{AFTER}` did not run as asked after uninstall"
    if effect == "observe":
        assert observed(lab, harness, AFTER) == 0, "observe-shell still saw a call"
    if effect == "ask":
        assert AFTER not in asked_commands(lab), "the user was still asked"


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("harness", list(REAL_HARNESSES.values()), ids=lambda h: h.id)
def test_scripted_model_sees_the_package_and_its_hooks_act_on_a_scripted_shell_call(
    behaviour_lab: Lab, model: ModelServer, evidence: EvidenceRun, harness: RealHarness,
    scope: str,
) -> None:
    lab = behaviour_lab
    driver = DRIVERS.get(harness.id)
    assert driver is not None, f"{harness.id} has no behaviour driver: add it to behaviour.py"
    require(harness.binary)
    package = read_package(lab.package)
    lab.install(harness.id, scope)
    cells = status_cells(lab, harness.id, scope)
    verdicts = Verdicts(evidence, harness.id, scope)
    interrupted: BaseException | None = None
    try:
        for cell in cells:
            if cell.kind != "hook" and not cell.delivered:
                assert cell.reason.strip(), f"{cell.kind} {cell.resource}: unsupported, no reason"
        hooks = hook_effects(cells, package)
        for effect in hooks:
            verdicts.expect(f"hook.{effect}")
        driver.prepare(lab, scope)

        # 1. a plain call: it runs; the request offers the package; observe sees the call
        requests = turn(lab, harness, model, PLAIN)
        assert exists(lab, PLAIN.split()[1]), f"the scripted call `{PLAIN}` did not run"
        offered = driver.read(main_request(requests, driver.api).body)
        check_offered(offered, cells, driver, package, verdicts)
        if "observe" in hooks:
            with verdicts.check("hook.observe"):
                assert observed(lab, harness.id, PLAIN) == 1, "observe-shell did not see it once"

        # 2. each blocking effect uze claims, on a call carrying its marker
        checks = {
            "deny": lambda: check_deny(lab, harness, driver, model),
            "transform": lambda: check_transform(lab, harness, model),
            "ask": lambda: check_ask(lab, harness, driver, model),
        }
        for effect in (e for e in HOOK_CHECKS if e in hooks):
            with verdicts.check(f"hook.{effect}"):
                checks[effect]()

        # 3. after uninstall: the same kind of call runs untouched, the request is clean
        lab.uninstall(scope)
        requests = turn(lab, harness, model, AFTER)
        for effect in hooks:
            with verdicts.check(f"hook.{effect}"):
                assert_hook_gone(lab, harness.id, effect)
        check_gone(driver.read(main_request(requests, driver.api).body), cells, driver,
                   package, verdicts)
    except BaseException as exc:
        interrupted = exc
        raise
    finally:
        verdicts.finish(interrupted)
