#!/bin/sh
# gem-tools server: the conformance suite replaces this with its probe server.
exec "${GEM_TOOLS_PYTHON:-python3}" "$(dirname "$0")/server.py" "$@"
