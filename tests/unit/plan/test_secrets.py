"""Secret values of a server definition become `${VARIABLE}` references (ADR 0095): which
values, which variable, and that values which are not secrets, or are references already,
stay as they are."""

from __future__ import annotations

import pytest

from uze.plan.secrets import Secret, referenced, variable


@pytest.mark.parametrize(("body", "out", "secrets"), [
    ({"command": "srv", "env": {"API_KEY": "k1", "LEVEL": "debug", "KEY_FILE": "/etc/k"}},
     {"command": "srv", "env": {"API_KEY": "${API_KEY}", "LEVEL": "debug",
                                "KEY_FILE": "/etc/k"}},
     [Secret("s", "env.API_KEY", "API_KEY")]),
    ({"command": "srv", "env": {"GH": "ghp_0123456789abcdef", "DB_PASSWORD": "${DB_PASSWORD}"}},
     {"command": "srv", "env": {"GH": "${GH}", "DB_PASSWORD": "${DB_PASSWORD}"}},
     [Secret("s", "env.GH", "GH")]),
    ({"command": "srv", "env": {"client-secret": "x"}},
     {"command": "srv", "env": {"client-secret": "${S_CLIENT_SECRET}"}},
     [Secret("s", "env.client-secret", "S_CLIENT_SECRET")]),
    ({"url": "https://h/mcp", "headers": {"Authorization": "Bearer abc", "X-Api-Key": "k",
                                          "Accept": "json"}},
     {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${S_AUTHORIZATION}",
                                          "X-Api-Key": "${S_X_API_KEY}", "Accept": "json"}},
     [Secret("s", "headers.Authorization", "S_AUTHORIZATION"),
      Secret("s", "headers.X-Api-Key", "S_X_API_KEY")]),
    ({"command": "srv", "args": ["--token", "t1", "--api-key=k2", "sk-live", "--port", "80"]},
     {"command": "srv", "args": ["--token", "${S_TOKEN}", "--api-key=${S_API_KEY}",
                                 "${S_ARG_4}", "--port", "80"]},
     [Secret("s", "args[1]", "S_TOKEN"), Secret("s", "args[2]", "S_API_KEY"),
      Secret("s", "args[3]", "S_ARG_4")]),
    ({"url": "https://me:pw@h/mcp?api_key=zz&page=2"},
     {"url": "https://me:${S_PASSWORD}@h/mcp?api_key=${S_API_KEY}&page=2"},
     [Secret("s", "url", "S_PASSWORD"), Secret("s", "url?api_key", "S_API_KEY")]),
    ({"command": "srv", "args": ["--verbose"], "env": {"MODE": "fast"}},
     {"command": "srv", "args": ["--verbose"], "env": {"MODE": "fast"}}, []),
])
def test_secret_values_become_references_named_by_field(
        body: dict[str, object], out: dict[str, object], secrets: list[Secret]) -> None:
    assert referenced("s", body) == (out, secrets)


def test_variable_names_are_upper_case_words_joined_by_underscores() -> None:
    assert variable("my-server", "x.api key") == "MY_SERVER_X_API_KEY"
    assert variable("9lives", "token") == "_9LIVES_TOKEN"
