#!/usr/bin/env bash
# Runs a pinned staticcheck over every module.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

STATICCHECK_VERSION=v0.8.2
if ! kubecore::packages | xargs go run "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"; then
  echo "staticcheck found the problems above; fix them by hand, then run: hack/verify-staticcheck.sh" >&2
  exit 1
fi
