#!/usr/bin/env bash
# Rewrites every Go file with gofmt.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

git ls-files --cached --others --exclude-standard '*.go' | xargs gofmt -w
