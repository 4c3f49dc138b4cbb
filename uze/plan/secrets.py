"""Secret values in a server definition become environment references (ADR 0095).

A package is meant to be shared: a token in it would be published with it. So every value that
names or looks like a secret is replaced by `${VARIABLE}`, which the harnesses expand from the
environment they run in (`uze install` carries the reference; the user sets the variable):

- `env.NAME` whose NAME names a secret (`uze.trust.names_secret`: `API_KEY`, `GITHUB_TOKEN`,
  `DB_PASSWORD`...) or whose value starts like a credential (`uze.trust.looks_secret`) becomes
  `${NAME}`;
- `headers.NAME` likewise becomes `${<SERVER>_<NAME>}` (an `Authorization: Bearer x` keeps
  its scheme: `Bearer ${<SERVER>_AUTHORIZATION}`);
- an argument `hide_secrets` hides (`--api-key X`, `--token=X`, `ghp_...`) becomes
  `${<SERVER>_<OPTION>}` (`${<SERVER>_ARG_<N>}` for a bare credential);
- a URL's password and its query values whose names name a secret (`?api_key=X`) become
  `${<SERVER>_<NAME>}`.

A value that already holds a `${...}` reference is kept as it is. Only names are reported,
never values. Export writes a package's servers so (ADR 0095), and adoption compares a server
already there in this form with the package's (uze.plan.server_form, ADR 0096).
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

import msgspec

from uze.trust import HIDDEN, hide_secrets, looks_secret, names_secret


class Secret(msgspec.Struct, frozen=True):
    """A value of a server definition written as an environment reference: the server, the
    field (`env.API_KEY`, `headers.Authorization`, `args[2]`, `url`) and the variable that
    now holds it where the package is installed. Never the value."""

    server: str
    field: str
    variable: str

    def to_json(self) -> dict[str, Any]:
        """Its `--json` object (a line of the export's report)."""
        return msgspec.to_builtins(self)  # type: ignore[no-any-return]

_SCHEMES: Final = ("Bearer ", "Basic ", "Token ", "token ", "bearer ")
_NOT_VARIABLE: Final = re.compile(r"[^A-Za-z0-9_]+")
_VARIABLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def variable(*parts: str) -> str:
    """An environment variable name made of `parts`: upper case, words joined by `_`."""
    name = "_".join(_NOT_VARIABLE.sub("_", part).strip("_") for part in parts if part)
    name = name.upper() or "SECRET"
    return name if _VARIABLE.fullmatch(name) else f"_{name}"


def _is_reference(value: str) -> bool:
    return "${" in value


def _secret(name: str, value: object) -> bool:
    return isinstance(value, str) and bool(value) and not _is_reference(value) and (
        names_secret(name) or looks_secret(value))


def _env(server: str, env: dict[str, object], found: list[Secret]) -> dict[str, object]:
    out = dict(env)
    for name, value in env.items():
        if _secret(name, value):
            var = name if _VARIABLE.fullmatch(name) else variable(server, name)
            out[name] = f"${{{var}}}"
            found.append(Secret(server, f"env.{name}", var))
    return out


def _headers(server: str, headers: dict[str, object], found: list[Secret]) -> dict[str, object]:
    out = dict(headers)
    for name, value in headers.items():
        if not _secret(name, value):
            continue
        assert isinstance(value, str)  # _secret: only text is a secret
        scheme = next((s for s in _SCHEMES if value.startswith(s)), "")
        var = variable(server, name)
        out[name] = f"{scheme}${{{var}}}"
        found.append(Secret(server, f"headers.{name}", var))
    return out


def _args(server: str, args: list[object], found: list[Secret]) -> list[object]:
    texts = [arg for arg in args if isinstance(arg, str)]
    if len(texts) != len(args):
        return args
    shown, _names = hide_secrets(texts)
    out: list[object] = []
    previous = ""
    for index, (arg, seen) in enumerate(zip(texts, shown, strict=True)):
        if seen == arg or _is_reference(arg):
            out.append(arg)
        elif seen == HIDDEN:
            named = previous.startswith("--") and names_secret(previous[2:])
            option = previous if named else f"arg-{index + 1}"
            var = variable(server, option.lstrip("-"))
            out.append(f"${{{var}}}")
            found.append(Secret(server, f"args[{index}]", var))
        else:
            option = arg.partition("=")[0]
            var = variable(server, option.lstrip("-"))
            out.append(f"{option}=${{{var}}}")
            found.append(Secret(server, f"args[{index}]", var))
        previous = arg
    return out


def _url(server: str, url: str, found: list[Secret]) -> str:
    if _is_reference(url):
        return url
    parts = urlsplit(url)
    if parts.password:
        var = variable(server, "password")
        url = url.replace(f":{parts.password}@", f":${{{var}}}@", 1)
        found.append(Secret(server, "url", var))
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and names_secret(name) and f"{name}={value}" in url:
            var = variable(server, name)
            url = url.replace(f"{name}={value}", f"{name}=${{{var}}}", 1)
            found.append(Secret(server, f"url?{name}", var))
    return url


def referenced(server: str, body: dict[str, object]) -> tuple[dict[str, object], list[Secret]]:
    """The portable server `body` with every secret value replaced by a `${VARIABLE}`
    reference, and one Secret per replacement."""
    found: list[Secret] = []
    out = dict(body)
    if isinstance(out.get("env"), dict):
        out["env"] = _env(server, out["env"], found)  # type: ignore[arg-type]
    if isinstance(out.get("headers"), dict):
        out["headers"] = _headers(server, out["headers"], found)  # type: ignore[arg-type]
    if isinstance(out.get("args"), list):
        out["args"] = _args(server, out["args"], found)  # type: ignore[arg-type]
    if isinstance(out.get("url"), str):
        out["url"] = _url(server, out["url"], found)  # type: ignore[arg-type]
    return out, found
