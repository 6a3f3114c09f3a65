#!/usr/bin/env bash
# Builds kubecore and runs the end-to-end suite against the binary, driven
# by the stock kubectl (/usr/bin/kubectl) and the bundled CLI.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

WHAT=cmd/kubecore "${KUBECORE_ROOT}/hack/build.sh"
export KUBECORE_BIN="${KUBECORE_OUTPUT}/bin/kubecore"
go test -count=1 -timeout 20m ${WHAT:-./test/e2e/...} ${TESTFLAGS:-}
