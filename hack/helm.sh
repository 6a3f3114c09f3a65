#!/usr/bin/env bash
# Builds the stock Helm 4 CLI (helm.sh/helm/v4, the version test/helm pins)
# from the Go module proxy into _output/bin/helm and prints its path. The
# binary is cached: it is rebuilt only when test/helm/go.mod or go.sum
# change. Fails when the module cannot be fetched or built.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${KUBECORE_ROOT}/hack/lib/tool.sh"

kubecore::build_tool "${KUBECORE_ROOT}/test/helm" helm.sh/helm/v4/cmd/helm helm
