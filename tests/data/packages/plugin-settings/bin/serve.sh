#!/bin/sh
# Starts the server only when every setting arrived: the token and label from the environment,
# the region as its argument.
[ "$1" = "--region" ] && [ -n "$2" ] && [ -n "$SETTINGS_TOKEN" ] && [ -n "$SETTINGS_LABEL" ] || exit 3
exec python3 "$(dirname "$0")/server.py"
