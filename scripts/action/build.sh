#!/usr/bin/env bash
# The action's build step: the site into _site/, served from /<repository name>/ unless BASE_PATH says otherwise.
set -euo pipefail
base="${BASE_PATH:-/${GITHUB_REPOSITORY#*/}/}"
evalboard --strict --content "${CONTENT:-content}" --runs "${RUNS:-runs}" --base-path "$base"
