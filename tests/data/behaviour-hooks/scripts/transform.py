#!/usr/bin/env python3
"""Rewrite shell calls that carry the transform marker: UZE_TRANSFORM_ME -> UZE_TRANSFORMED."""
import json
import os
import sys

tool_input = json.loads(sys.stdin.read() or "{}")
command = os.environ.get("HOOK_COMMAND", "")
if "UZE_TRANSFORM_ME" in command:
    for key in ("command", "cmd"):
        if isinstance(tool_input.get(key), str):
            tool_input[key] = tool_input[key].replace("UZE_TRANSFORM_ME", "UZE_TRANSFORMED")
    print(json.dumps(tool_input))
