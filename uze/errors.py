"""The UzeError tree: every error a user can fix. Exceptions never print; cli.py renders them.

A URL in a message may carry a credential (`https://user:token@host/...`, or git's scp-like
`user:token@host:path`); `redacted` takes it out of any text before it is shown (ADR 0057).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from uze.patterns import compile_later


class UzeError(Exception):
    """An error the user can fix (exit 1). `hint` names the next step; `details` are the lines
    printed before the message, so the message and its hint end the output (fixed when the
    error is built: a tuple, never appended to)."""

    def __init__(self, message: str, *, hint: str | None = None,
                 details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details: tuple[str, ...] = tuple(details)


class UsageError(UzeError):
    """A command-line argument is wrong (exit 2)."""


class PackageInvalid(UzeError):
    """The package has one or more problems; `issues` holds every `location: message` line."""

    def __init__(self, source: Path, issues: Sequence[str]) -> None:
        count = len(issues)
        noun = "problem" if count == 1 else "problems"
        super().__init__(
            f"invalid package {source}: {count} {noun}",
            hint="fix every problem listed above, then run the command again",
            details=issues,
        )
        self.issues = list(issues)


class Conflict(UzeError):
    """Two claims on one target, or a target someone else owns."""

    def __init__(self, target: str, owner: str, *, hint: str | None = None,
                 details: Sequence[str] = ()) -> None:
        super().__init__(
            f"conflict at {target}: {owner}",
            hint=hint or "rename or move the existing item, or uninstall the package that owns it",
            details=details,
        )
        self.target = target
        self.owner = owner


class ForeignFile(Conflict):
    """uze wants to write where a file it does not own already is."""

    def __init__(self, target: str) -> None:
        super().__init__(
            target,
            "exists and was not written by uze",
            hint="move or rename it yourself; uze never overwrites a file it does not own",
        )


class LockBusy(UzeError):
    """Another uze command holds a lock."""

    def __init__(self, path: Path, holder: str = "") -> None:
        who = f" (held by {holder})" if holder else ""
        super().__init__(
            f"another uze command is running: lock {path} is busy{who}",
            hint="wait for it to finish, then run the command again",
        )


class StoreCorrupt(UzeError):
    """A store object does not hash to its name."""

    def __init__(self, digest: str, path: Path) -> None:
        super().__init__(
            f"store object {digest} is corrupt ({path})",
            hint="run `uze store verify`, then reinstall the package",
        )


class ReceiptUnreadable(UzeError):
    """A receipt cannot be parsed or was written by a newer uze."""

    def __init__(self, path: Path, why: str, *, hint: str | None = None) -> None:
        super().__init__(
            f"cannot read receipt {path}: {why}",
            hint=hint or "restore the file from version control, or remove it and reinstall",
        )


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """"did you mean 'x'? " when `known` holds a name close to `name` (a typo), else ""."""
    import difflib  # start-up: difflib loads only to suggest a name in an error

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


class UnknownHarness(UsageError):
    """A harness id that is not one of the canonical seven (nor an alias of one)."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        super().__init__(
            f"unknown harness {name!r}",
            hint=f"{did_you_mean(name, [*known, 'all'])}use one of: {', '.join(known)}, or all",
        )


class NotInstalled(UzeError):
    """The named package has no receipt in this scope; `known` are the installed names, the
    closest of which the hint suggests."""

    def __init__(self, name: str, scope: str, where: str, known: Iterable[str] = ()) -> None:
        super().__init__(
            f"package {name!r} is not installed in {scope} scope ({where})",
            hint=f"{did_you_mean(name, known)}run `uze list` to see what is installed",
        )


class SettingsWanted(UzeError):
    """The package has settings nobody gave a value (no `--set`, no default), and the command
    may ask at a terminal (adr/0078). `wanted`: (key, title, description, variable) of each;
    the terminal asks for each, the answers go in as `--set`."""

    def __init__(self, package: str, wanted: Sequence[tuple[str, str, str, str]]) -> None:
        super().__init__(f"{package} has settings with no value: "
                         f"{', '.join(key for key, *_ in wanted)}",
                         hint="give each with --set KEY=VALUE, or set its variable where the "
                              "harness runs")
        self.package = package
        self.wanted = tuple(wanted)


class TrustRequired(UzeError):
    """The package will run commands the user has not accepted yet. `digests` are the consent
    digests of exactly what `lines` show (each package's bytes included, ADR 0021): a yes at
    the question accepts those and nothing else (ADR 0056). `package` names what is asked for;
    `hidden`: where its text hides instructions from a reader (uze.package.hidden), listed after
    what runs."""

    def __init__(self, lines: list[str], changed: bool, *, package: str = "",
                 digests: tuple[str, ...] = (), hidden: Sequence[str] = ()) -> None:
        what = "changes what it runs" if changed else "runs commands on your machine"
        notes = ["Its text hides instructions from a reader:", *(f"  {h}" for h in hidden)]
        super().__init__(
            f"this package {what}; not installed without your consent",
            hint="read the list above; run again on a terminal to answer, or pass --trust",
            details=["It will run:", *(f"  {line}" for line in lines), *(notes if hidden else [])],
        )
        self.package = package
        self.digests = digests


class ConsentRequired(TrustRequired):
    """Several packages of one command run commands the user has not accepted: every question,
    asked at once before anything is written (a converge, ADR 0064)."""

    def __init__(self, asked: Sequence[tuple[str, TrustRequired]]) -> None:
        names = [name for name, _needed in asked]
        UzeError.__init__(
            self,
            f"{len(names)} packages run commands on your machine ({', '.join(names)}); nothing "
            "was installed without your consent",
            hint="read the lists above; run again on a terminal to answer once for all, or pass "
                 "--trust",
            details=[line for name, needed in asked
                     for line in (f"{name}:", *(f"  {d}" for d in needed.details))],
        )
        self.package = ", ".join(names)
        self.names = tuple(names)
        self.digests = tuple(d for _n, needed in asked for d in needed.digests)


class RequirementUnmet(UzeError):
    """The package requires native routes that some targeted harnesses cannot give."""

    def __init__(self, package: str, unmet: Sequence[str]) -> None:
        super().__init__(
            f"{package} requires native routes that {len(unmet)} projection(s) cannot have",
            hint="leave out those harnesses with --harness, "
                 "or ask the author to relax the requirement",
            details=unmet,
        )


class NothingToDeliver(UzeError):
    """Every route the package would take to the targeted harnesses is unsupported: installing
    it would write nothing but a receipt (adr/0069)."""

    def __init__(self, package: str, harnesses: Sequence[str], reasons: Sequence[str]) -> None:
        super().__init__(
            f"nothing to deliver: {package} has no route to {', '.join(harnesses)}",
            hint="choose other harnesses with --harness (`uze check SOURCE --harness all` "
                 "shows every route)",
            details=reasons,
        )


class Blocked(UzeError):
    """A file uze must edit cannot be edited safely. Raise a subclass: each names the cause
    and carries the hint that fixes it."""

    def __init__(self, target: str, why: str, *, hint: str) -> None:
        super().__init__(f"cannot safely edit {target}: {why}", hint=hint)
        self.target = target


class MarkersBroken(Blocked):
    """A text file's uze region markers do not pair up."""

    def __init__(self, target: str, why: str) -> None:
        super().__init__(
            target, why,
            hint="repair the file by hand (each uze:begin needs its uze:end), then run again",
        )


class ConfigBroken(Blocked):
    """A JSON or TOML config file uze must edit does not parse."""

    def __init__(self, target: str, why: str) -> None:
        super().__init__(
            target, why,
            hint="fix the syntax error at the line:column shown (or move the file aside), "
                 "then run again",
        )


class ValueInTheWay(Blocked):
    """The config's value on uze's key path is not one uze can add to without risking the
    user's bytes (a value where a table or list belongs, or an edit that would not undo)."""

    def __init__(self, target: str, why: str) -> None:
        super().__init__(
            target, why,
            hint="move that value aside by hand, or leave out that harness with --harness, "
                 "then run again",
        )


class ConfigShape(UzeError):
    """A harness config holds something other than an object where uze adds its entry."""

    def __init__(self, target: str, where: str, found: str, key: str) -> None:
        super().__init__(
            f"cannot add {key} to {target}: {where} is {found}, not an object",
            hint=f"fix {where} in {target} by hand (the harness expects an object there), "
                 "or leave out that harness with --harness; nothing was written",
        )


class AccessDenied(UzeError):
    """The operating system refused uze access to a file or folder (EACCES, EPERM)."""

    def __init__(self, path: str, why: str = "permission denied") -> None:
        super().__init__(
            f"{why.lower()}: {path}",
            hint="give your user access to it (see ls -l), or leave out what needs it, then run "
                 "the command again; what this command changed was put back",
        )
        self.path = path


class DiskFull(UzeError):
    """A write failed because the file system is full (ENOSPC) or the quota is used up (EDQUOT)."""

    def __init__(self, path: Path, why: str = "no space left on device") -> None:
        super().__init__(
            f"{why.lower()} while writing {path}",
            hint="free some space on that file system, then run the command again; what this "
                 "command changed was put back (or is, by the next uze command)",
        )
        self.path = path


class LinkRefused(UzeError):
    """A folder on the way to a place uze would read or write in a project is a symbolic link."""

    def __init__(self, link: Path, path: Path) -> None:
        super().__init__(
            f"refusing to go through a symbolic link: {link} (on the way to {path})",
            hint="uze never follows a link in a project; replace the link with a real folder "
                 "or remove it, then run again (nothing was changed)",
        )
        self.path = link


class Escape(UzeError):
    """uze was about to write outside the places it writes for this scope (a bug or hostile
    state that got past validation): refused, never done."""

    def __init__(self, path: Path, scope: str) -> None:
        super().__init__(
            f"refusing to write {path}: outside the places uze writes in {scope} scope",
            hint="nothing was changed; report this at https://github.com/uze-dev/uze/issues",
        )


class ReceiptRefused(ReceiptUnreadable):
    """A receipt names something other than itself and the places uze writes (ADR 0020)."""

    def __init__(self, path: Path, problems: Sequence[str]) -> None:
        count = len(problems)
        super().__init__(
            path, f"{count} {'entry names' if count == 1 else 'entries name'} a place uze "
            "does not write, or the wrong package; nothing was changed",
            hint="uze acts only on receipts it could have written; restore the file from "
                 "version control, or delete it and install the package again",
        )
        self.details = tuple(problems)


class StateUnreadable(UzeError):
    """One of uze's own state files is damaged or is not what uze writes."""

    def __init__(self, path: Path, why: str, hint: str) -> None:
        super().__init__(f"cannot read {path}: {why}", hint=hint)
        self.path = path


class WriteFailed(UzeError):
    """A write the system or the file's permissions refused (EACCES, EROFS, a file where a
    folder goes): the path and why, never a traceback."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(
            f"cannot write {path}: {why}",
            hint="check who owns it and its folder and that you may write them (ls -ld), then "
                 "run again; what this command changed was put back (or is, by the next "
                 "uze command)",
        )
        self.path = path


# `scheme://userinfo@`: everything up to the last `@` before the path is the user information.
_USERINFO: Final = compile_later(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<info>[^/\s'\"]*)@")
# git's scp-like form with a password: `user:secret@host:path` (git itself would send the
# secret to host `user` as part of the path).
_SCP_SECRET: Final = compile_later(
    r"(?P<user>[^\s/:@'\"]+):(?P<secret>[^\s/@'\"]+)@(?P<host>[A-Za-z0-9.-]+):")


def _userinfo(match: re.Match[str]) -> str:
    scheme, info = match["scheme"], match["info"]
    if "ssh" in scheme.lower():  # an ssh user name is not a secret; its password is
        user, colon, _ = info.partition(":")
        return f"{scheme}{user}{':***' if colon else ''}@"
    return f"{scheme}***@"


def redacted(text: str) -> str:
    """`text` with the credentials of every URL in it replaced by `***`: the user information
    of a `scheme://user:password@host` URL (all of it, but an ssh user name), and the password
    of an scp-like `user:password@host:path`."""
    if "@" not in text:
        return text
    text = _USERINFO.sub(_userinfo, text)
    return _SCP_SECRET.sub(r"\g<user>:***@\g<host>:", text)
