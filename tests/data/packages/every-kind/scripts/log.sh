#!/bin/sh
# Observe edits: append the edited path to a log.
echo "$HOOK_PATH" >> "${TMPDIR:-/tmp}/every-kind-edits.log"
