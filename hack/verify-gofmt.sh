#!/usr/bin/env bash
# Fails when a Go file is not gofmt'd.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

bad=$(git ls-files --cached --others --exclude-standard '*.go' | xargs gofmt -l)
if [ -n "${bad}" ]; then
  echo "${bad}"
  echo "these files are not gofmt'd; run: hack/update-gofmt.sh (or make update, which runs every update script)" >&2
  exit 1
fi
