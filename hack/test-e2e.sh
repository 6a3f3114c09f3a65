#!/usr/bin/env bash
# Builds kubecore and runs the end-to-end suite against the binary, driven
# by the stock kubectl (/usr/bin/kubectl) and the bundled CLI.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

WHAT=cmd/kubecore "${KUBECORE_ROOT}/hack/build.sh"
export KUBECORE_BIN="${KUBECORE_OUTPUT}/bin/kubecore"
# The whole suite needs the stock tools built from test-only modules: build
# them (cached) before the tests' timeout starts. A WHAT subset builds
# what its tests need from within them (framework.BuildTool).
if [[ -z "${WHAT:-}" ]]; then
  "${KUBECORE_ROOT}/hack/helm.sh" >/dev/null
  "${KUBECORE_ROOT}/hack/metrics-server.sh" >/dev/null
  "${KUBECORE_ROOT}/hack/controller-runtime.sh" >/dev/null
fi
go test -count=1 -timeout 20m ${WHAT:-./test/e2e/...} ${TESTFLAGS:-}
