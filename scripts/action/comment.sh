#!/usr/bin/env bash
# The action's pull-request step: what the change does to the leaderboard, as one comment posted or updated with gh.
# The body is `evalboard diff` of the published site (PUBLISHED_URL) and this build (_site/), or, where there is no
# published site to compare with yet, the recomputed scores. COMMENT_FILE, if set, also keeps the body there.
set -euo pipefail
marker="<!-- evalboard: what this change does to the leaderboard -->"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
{
  echo "$marker"
  if [ -n "${PUBLISHED_URL:-}" ] && evalboard diff "$PUBLISHED_URL" _site --format markdown >"$work/diff.md" 2>"$work/why"; then
    cat "$work/diff.md"
  else
    echo "## evalboard: the scores with this change"
    echo
    if [ -n "${PUBLISHED_URL:-}" ]; then
      echo "Not compared with the published site: $(head -n 1 "$work/why")"
    else
      echo "No published site to compare with (the action's published-url input is empty)."
    fi
    echo
    echo '```text'
    evalboard scores --content "${CONTENT:-content}" --runs "${RUNS:-runs}"
    echo '```'
  fi
} >"$work/body.md"
if [ -n "${COMMENT_FILE:-}" ]; then
  cp "$work/body.md" "$COMMENT_FILE"
fi
repo="${GITHUB_REPOSITORY:?}"
existing="$(gh api "repos/$repo/issues/${PULL_REQUEST:?}/comments" --paginate \
  --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -n 1)"
if [ -n "$existing" ]; then
  gh api -X PATCH "repos/$repo/issues/comments/$existing" -F "body=@$work/body.md" >/dev/null
else
  gh api -X POST "repos/$repo/issues/$PULL_REQUEST/comments" -F "body=@$work/body.md" >/dev/null
fi
