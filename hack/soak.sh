#!/usr/bin/env bash
# A soak run (make soak, not part of make test): all-in-one on an embedded
# etcd with 50 hollow nodes, under the load of hack/tools/soak for SOAK
# (default 30m), with a short compaction interval so that the run sees
# many. Prints the sampled table and fails on unbounded growth or a lost
# acknowledged write.
set -o errexit -o nounset -o pipefail

SOAK="${SOAK:-30m}"
COMPACTION="${SOAK_COMPACTION_INTERVAL:-1m}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
hack/build.sh >/dev/null
BIN="${ROOT}/_output/bin/kubecore"
KUBECTL="$(command -v kubectl || echo "${BIN}")"
[[ "${KUBECTL}" == "${BIN}" ]] && KUBECTL_ARGS=(kubectl) || KUBECTL_ARGS=()
WORK="$(mktemp -d -t kubecore-soak-XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "${pid}" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "${pid}" 2>/dev/null || true; done
  rm -rf "${WORK}"
}
trap cleanup EXIT

"${BIN}" all-in-one --data-dir "${WORK}/data" --secure-port 0 --kubelet-port 0 --runtime fake \
  --etcd-compaction-interval "${COMPACTION}" >"${WORK}/all-in-one.log" 2>&1 &
PIDS+=($!)
KUBECONFIG="${WORK}/data/admin.kubeconfig"
for _ in $(seq 120); do
  if [[ -f "${KUBECONFIG}" ]] && "${KUBECTL}" "${KUBECTL_ARGS[@]}" --kubeconfig "${KUBECONFIG}" get --raw /readyz >/dev/null 2>&1; then break; fi
  sleep 1
done
"${KUBECTL}" "${KUBECTL_ARGS[@]}" --kubeconfig "${KUBECONFIG}" get --raw /readyz >/dev/null || { tail -n 50 "${WORK}/all-in-one.log"; exit 1; }
"${BIN}" hollow-nodes --count 50 --kubeconfig "${KUBECONFIG}" >"${WORK}/hollow-nodes.log" 2>&1 &
PIDS+=($!)

echo "soak: ${SOAK} against all-in-one (pid ${PIDS[0]}) with 50 hollow nodes, compaction every ${COMPACTION}"
if [[ "${KUBECTL}" == "${BIN}" ]]; then
  echo "soak: no kubectl on PATH; the periodic get pods -A is skipped" >&2
fi
go run ./hack/tools/soak --kubeconfig "${KUBECONFIG}" --duration "${SOAK}" --kubectl "${KUBECTL}"
if ! kill -0 "${PIDS[0]}" 2>/dev/null; then
  echo "soak: all-in-one exited during the run" >&2
  tail -n 50 "${WORK}/all-in-one.log" >&2
  exit 1
fi
