#!/bin/sh
# Deny force pushes: exit 3 denies, with stderr as the reason.
case "$HOOK_COMMAND" in *"push --force"*) echo "force push is not allowed" >&2; exit 3;; esac
exit 0
