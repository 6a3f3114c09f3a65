#!/usr/bin/env bash
# make bench-scale (not part of make test): the API server, scheduler and
# controller-manager as separate processes, N hollow nodes (default 5000) and
# Deployments totalling P pods (default 150000); hack/tools/benchscale prints
# every figure beside the target of issue 25 and stops what it started.
# N=500 P=15000 is the developer's form (under 5 minutes).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

WHAT=cmd/kubecore "${KUBECORE_ROOT}/hack/build.sh" >/dev/null
go build -o "${KUBECORE_OUTPUT}/bin/benchscale" ./hack/tools/benchscale
exec "${KUBECORE_OUTPUT}/bin/benchscale" --bin "${KUBECORE_OUTPUT}/bin/kubecore" \
  --nodes "${N:-5000}" --pods "${P:-150000}" --idle "${IDLE:-30s}" ${BENCH_SCALE_FLAGS:-}
