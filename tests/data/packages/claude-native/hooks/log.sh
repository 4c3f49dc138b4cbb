#!/bin/sh
# Log the shell command Claude is about to run.
cat >> "${TMPDIR:-/tmp}/claude-native-hooks.log"
