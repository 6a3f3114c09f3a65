#!/usr/bin/env bash
# Builds the stock metrics-server (sigs.k8s.io/metrics-server, the version
# test/metricsserver pins) from the Go module proxy into
# _output/bin/metrics-server and prints its path. The binary is cached:
# it is rebuilt only when test/metricsserver/go.mod or go.sum change.
# Fails when the module cannot be fetched or built.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${KUBECORE_ROOT}/hack/lib/tool.sh"

kubecore::build_tool "${KUBECORE_ROOT}/test/metricsserver" \
  sigs.k8s.io/metrics-server/cmd/metrics-server metrics-server
