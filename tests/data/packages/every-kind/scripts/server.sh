#!/bin/sh
# A stand-in MCP server for tests: it only proves the file is carried and executable.
exec cat
