"""Read Claude-native MCP servers as their portable equivalents.

Claude-protocol hooks are not translated here: they keep their protocol (`claude_hooks`).
"""

from __future__ import annotations


def portable_server(body: dict[str, object]) -> dict[str, object]:
    """Drop an explicit `"type": "stdio"` from a command server (portable omits it)."""
    if "command" in body and body.get("type") == "stdio":
        return {key: value for key, value in body.items() if key != "type"}
    return body
