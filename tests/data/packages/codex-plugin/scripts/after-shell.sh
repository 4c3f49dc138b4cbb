#!/bin/sh
echo "after shell" >> "${CX_HOOK_LOG:-/dev/null}"
