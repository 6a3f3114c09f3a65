#!/usr/bin/env bash
# Runs a pinned staticcheck over every module.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

STATICCHECK_VERSION=v0.8.2
kubecore::packages | xargs go run "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
