#!/usr/bin/env bash
# Runs the unit tests of every module (everything but test/integration and
# test/e2e), with the race detector. WHAT narrows it to some packages.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [ -n "${WHAT:-}" ]; then
  pkgs=${WHAT}
else
  pkgs=$(kubecore::packages | grep -v -e '^kubecore.io/kubecore/test/integration' -e '^kubecore.io/kubecore/test/e2e')
fi
go test -race -count=1 -timeout 10m ${pkgs} ${TESTFLAGS:-}
