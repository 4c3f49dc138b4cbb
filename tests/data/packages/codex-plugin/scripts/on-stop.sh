#!/bin/sh
echo "stop" >> "${CX_HOOK_LOG:-/dev/null}"
