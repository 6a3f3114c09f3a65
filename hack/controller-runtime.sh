#!/usr/bin/env bash
# Builds the widget operator of test/controllerruntime (our own program on
# the stock sigs.k8s.io/controller-runtime, fetched from the Go module
# proxy) into _output/bin/widget-operator and prints its path. The binary is
# cached: it is rebuilt only when the module's files change. Fails when the
# module cannot be fetched or built.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# build_widget_operator builds module into out (stdout: nothing).
build_widget_operator() {
  local module="$1" out="$2"
  mkdir -p "$(dirname "${out}")"
  (
    cd "${module}"
    export GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0
    go build -o "${out}" . >&2
  )
}

module="${KUBECORE_ROOT}/test/controllerruntime"
out="${KUBECORE_ROOT}/_output/bin/widget-operator"
stamp="${out}.sum"
want="$(cat "${module}"/go.mod "${module}"/go.sum "${module}"/*.go | sha256sum | cut -d' ' -f1)"
if [[ -x "${out}" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  echo "${out}"
  exit 0
fi
build_widget_operator "${module}" "${out}"
echo "${want}" > "${stamp}"
echo "${out}"
