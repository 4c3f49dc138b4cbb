#!/bin/sh
# Starts the server only when both settings arrived in its environment.
[ -n "$SETTINGS_TOKEN" ] && [ -n "$SETTINGS_LABEL" ] || exit 3
exec python3 "$(dirname "$0")/server.py"
