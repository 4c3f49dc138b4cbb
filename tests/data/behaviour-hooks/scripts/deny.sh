#!/bin/sh
# Deny shell calls that carry the deny marker: exit 3, stderr is the reason the model gets.
case "$HOOK_COMMAND" in
  *UZE_DENY_ME*) echo "UZE_DENY_REASON: the conformance deny hook blocked this call" >&2; exit 3;;
esac
exit 0
