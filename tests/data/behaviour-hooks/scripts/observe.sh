#!/bin/sh
# Observe every shell call: one line "observe <harness> <command>" in the conformance hook log.
printf 'observe\t%s\t%s\n' "$HOOK_HARNESS" "$HOOK_COMMAND" >> "${UZE_CONFORMANCE_HOOK_LOG:-/dev/null}"
