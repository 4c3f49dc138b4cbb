#!/bin/sh
# Ask before shell calls that carry the ask marker: exit 3, stderr is the question's reason.
case "$HOOK_COMMAND" in
  *UZE_ASK_ME*) echo "UZE_ASK_REASON: the conformance ask hook wants a confirmation" >&2; exit 3;;
esac
exit 0
