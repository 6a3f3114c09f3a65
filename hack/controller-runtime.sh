#!/usr/bin/env bash
# Builds the widget operator of test/controllerruntime (our own program on
# the stock sigs.k8s.io/controller-runtime, fetched from the Go module
# proxy) into _output/bin/widget-operator and prints its path. The binary is
# cached: it is rebuilt only when the module's files change. Fails when the
# module cannot be fetched or built.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${KUBECORE_ROOT}/hack/lib/tool.sh"

module="${KUBECORE_ROOT}/test/controllerruntime"
kubecore::build_tool "${module}" . widget-operator "${module}"/*.go
