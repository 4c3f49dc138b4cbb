#!/usr/bin/env bash
# Install pinned versions of the four harness CLIs that run offline here (Claude Code, Codex,
# Gemini CLI, OpenCode) into .cache/harnesses (ignored by git), for tests/conformance.
#
# Idempotent: a harness whose pinned version is already installed and answers `--version` is
# skipped. The four npm installs run in parallel, each under a timeout. Each usable binary is
# linked as .cache/harnesses/bin/<name>; the conformance suite looks only there.
#
# Install scripts are not run (--ignore-scripts: npm's allowScripts policy may block them anyway,
# and gemini's node-pty would run node-gyp): each binary is taken from its platform package
# (e.g. opencode-linux-x64, then -baseline for CPUs without AVX2) or the package's own bin,
# whichever answers `--version` with the pinned version first.
#
# Exit 0 when all four are usable, 1 otherwise (the summary says which are missing).
# Env: UZE_HARNESS_CACHE overrides the folder; NPM_INSTALL_TIMEOUT (seconds, default 300).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST=${UZE_HARNESS_CACHE:-$ROOT/.cache/harnesses}
TIMEOUT=${NPM_INSTALL_TIMEOUT:-300}

# name | npm package | pinned version; tests/conformance/lab.py reads this array (read_pins)
PINS=(
  "claude|@anthropic-ai/claude-code|2.1.197"
  "codex|@openai/codex|0.171.0"
  "gemini|@google/gemini-cli|0.61.0"
  "opencode|opencode-ai|1.18.33"
)

case "$(uname -m)" in
  x86_64 | amd64) ARCH=x64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) ARCH=$(uname -m) ;;
esac
OS=$(uname -s | tr '[:upper:]' '[:lower:]')

# Candidate executables (relative to the install's node_modules), best first.
candidates() {
  case "$1" in
    claude) printf '%s\n' "@anthropic-ai/claude-code-$OS-$ARCH/claude" \
      "@anthropic-ai/claude-code-$OS-$ARCH-musl/claude" "@anthropic-ai/claude-code/bin/claude.exe" ;;
    codex) printf '%s\n' "@openai/codex/bin/codex.js" ;;
    gemini) printf '%s\n' "@google/gemini-cli/bundle/gemini.js" ;;
    opencode) printf '%s\n' "opencode-$OS-$ARCH/bin/opencode" \
      "opencode-$OS-$ARCH-baseline/bin/opencode" "opencode-$OS-$ARCH-musl/bin/opencode" \
      "opencode-$OS-$ARCH-baseline-musl/bin/opencode" "opencode-ai/bin/opencode.exe" ;;
  esac
}

# The version a binary reports, from a throwaway HOME so nothing real is read or written.
reported_version() {
  local home
  home=$(mktemp -d)
  HOME=$home NO_COLOR=1 timeout 60 "$1" --version </dev/null 2>/dev/null \
    | grep -Eo '[0-9]+\.[0-9]+\.[0-9]+' | head -1
  rm -rf "$home"
}

installed_version() {  # version field of node_modules/<pkg>/package.json, or nothing
  local manifest=$DEST/$1/node_modules/$2/package.json
  [ -f "$manifest" ] && node -e 'console.log(require(process.argv[1]).version)' "$manifest"
}

# Link bin/<name> to the first candidate that reports the pinned version.
link_binary() {
  local name=$1 version=$2 rel
  while read -r rel; do
    local path=$DEST/$name/node_modules/$rel
    [ -f "$path" ] || continue
    chmod +x "$path" 2>/dev/null
    if [ "$(reported_version "$path")" = "$version" ]; then
      ln -sfn "$path" "$DEST/bin/$name"
      return 0
    fi
  done < <(candidates "$name")
  rm -f "$DEST/bin/$name"
  return 1
}

install_one() {
  local name=$1 pkg=$2 version=$3
  if [ "$(installed_version "$name" "$pkg")" = "$version" ] && link_binary "$name" "$version"; then
    echo "$name: $pkg@$version already installed"
    return 0
  fi
  rm -rf "${DEST:?}/$name"
  mkdir -p "$DEST/$name"
  local start=$SECONDS
  if ! timeout "$TIMEOUT" npm install --prefix "$DEST/$name" --no-save --no-audit --no-fund \
      --no-package-lock --ignore-scripts --loglevel=error "$pkg@$version" \
      >"$DEST/$name.log" 2>&1; then
    echo "$name: npm install $pkg@$version FAILED or timed out (${TIMEOUT}s); see $DEST/$name.log"
    return 1
  fi
  echo "$name: installed $pkg@$version in $((SECONDS - start))s"
  link_binary "$name" "$version"
}

mkdir -p "$DEST/bin"
start=$SECONDS
pids=()
for pin in "${PINS[@]}"; do
  IFS='|' read -r name pkg version <<<"$pin"
  install_one "$name" "$pkg" "$version" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "install-harnesses: done in $((SECONDS - start))s; binaries in $DEST/bin:"

status=0
for pin in "${PINS[@]}"; do
  IFS='|' read -r name pkg version <<<"$pin"
  if [ -x "$DEST/bin/$name" ] && [ "$(reported_version "$DEST/bin/$name")" = "$version" ]; then
    echo "  usable   $name $version ($pkg)"
  else
    echo "  MISSING  $name $version ($pkg): the conformance tests for it will skip (fail under CI)"
    status=1
  fi
done
exit $status
