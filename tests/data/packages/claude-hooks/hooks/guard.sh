#!/bin/sh
# Claude protocol: read the hook JSON on stdin, deny rm -rf with exit 2 and a reason on stderr.
input=$(cat)
case "$input" in
  *"rm -rf"*) echo "rm -rf is blocked by claude-hooks" >&2; exit 2 ;;
esac
exit 0
