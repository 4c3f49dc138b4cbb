#!/bin/sh
# Claude protocol: answer with additional context for the session.
printf '%s\n' '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "claude-hooks context marker"}}'
