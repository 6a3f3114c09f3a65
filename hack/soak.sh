#!/usr/bin/env bash
# A soak run (make soak, not part of make test): hack/tools/soak runs
# all-in-one (process runtime, --keep-pods) with 50 hollow nodes under
# steady load for SOAK (default 30m), kills it with SIGKILL and restarts it
# every SOAK_CHAOS (default 5m, 0 never), with compaction every
# SOAK_COMPACTION_INTERVAL (1m) so that the run sees many, and events kept
# for SOAK_EVENT_TTL (5m) so that their number reaches its bound within the
# run. Prints the sampled table and fails on unbounded growth, a lost
# acknowledged write, a duplicated or orphaned pod, or controllers that do
# not converge after a restart. SOAK_KEEP=1 keeps the work dir (logs, heap
# profiles).
set -o errexit -o nounset -o pipefail

SOAK="${SOAK:-30m}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
hack/build.sh >/dev/null
BIN="${ROOT}/_output/bin/kubecore"
KUBECTL="$(command -v kubectl || true)"
if [[ -z "${KUBECTL}" ]]; then
  KUBECTL="${ROOT}/_output/soak-kubectl"
  printf '#!/bin/sh\nexec "%s" kubectl "$@"\n' "${BIN}" >"${KUBECTL}"
  chmod +x "${KUBECTL}"
fi
WORK="$(mktemp -d -t kubecore-soak-XXXXXX)"
cleanup() {
  if [[ "${SOAK_KEEP:-}" == 1 ]]; then echo "soak: work dir kept: ${WORK}"; else rm -rf "${WORK}"; fi
}
trap cleanup EXIT

go build -o "${WORK}/soak" ./hack/tools/soak
"${WORK}/soak" --bin "${BIN}" --kubectl "${KUBECTL}" --work-dir "${WORK}" --duration "${SOAK}" \
  --chaos-interval "${SOAK_CHAOS:-5m}" --event-ttl "${SOAK_EVENT_TTL:-5m}" \
  --server-args "--etcd-compaction-interval=${SOAK_COMPACTION_INTERVAL:-1m}"
