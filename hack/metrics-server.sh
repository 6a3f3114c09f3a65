#!/usr/bin/env bash
# Builds the stock metrics-server (sigs.k8s.io/metrics-server, the version
# test/metricsserver pins) from the Go module proxy into
# _output/bin/metrics-server and prints its path. The binary is cached:
# it is rebuilt only when test/metricsserver/go.mod or go.sum change.
# Fails when the module cannot be fetched or built.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

module="${KUBECORE_ROOT}/test/metricsserver"
out="${KUBECORE_ROOT}/_output/bin/metrics-server"
stamp="${out}.sum"
want="$(cat "${module}/go.mod" "${module}/go.sum" | sha256sum | cut -d' ' -f1)"
if [[ -x "${out}" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  echo "${out}"
  exit 0
fi
mkdir -p "$(dirname "${out}")"
cd "${module}"
export GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0
go build -o "${out}" sigs.k8s.io/metrics-server/cmd/metrics-server >&2
echo "${want}" > "${stamp}"
echo "${out}"
