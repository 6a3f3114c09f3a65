#!/usr/bin/env bash
# Runs the [Conformance] specs of the upstream Kubernetes v1.36.3 e2e suite
# (test/conformance, built into _output/bin/e2e.test) under ginkgo against a
# kubecore all-in-one started here on a temporary data dir and free ports,
# and writes to OUT (default _output/conformance):
#   junit.xml     ginkgo's JUnit report of the run
#   selected.xml  the JUnit report of a dry run: the specs FOCUS and SKIP select
#   summary.txt   passed / failed / skipped / not-run specs per sig and in total
#   summary.md    the same table in Markdown
#   failed.txt    the failed and unrun specs, each with its first failure line
#   e2e.log       ginkgo's output; kubecore.log, the server's
#
# Variables:
#   FOCUS    regex over spec names, within the [Conformance] specs (default: all)
#   SKIP     regex over spec names to leave out
#   RUNTIME  the kubelet's runtime: fake (default), process or cri (cri needs
#            containerd on /run/containerd/containerd.sock)
#   PROCS    ginkgo processes (default 8: the specs mostly wait)
#   TIMEOUT  cap on the whole run, a Go duration (default 60m)
#   NODES    nodes of the cluster (default 2: the suite wants two untainted
#            nodes); the all-in-one's and NODES-1 kubelets of the same
#            runtime beside it (RUNTIME=cri: one node only)
#   STRICT   when 1, exit 1 unless every selected spec passed (the smoke)
#   EXPECT   a file of spec names, one a line: fail unless the dry run
#            selects exactly these (the smoke list)
#   NETNS    when 1 (as root), run in a network namespace of its own, so
#            that RUNTIME=process runs, whose pod network uses host-wide
#            names, can share a host; it has loopback and a "host"
#            interface (198.51.100.2 on one end of a veth pair, the default
#            route: the node IP the cluster DNS serves on), no way out;
#            node N's InternalIP is 198.51.100.N+1 on the same interface
# It exits 0 once the report is written (failures are the measurement),
# non-zero when it could not measure (or, with STRICT=1, when a spec failed).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${KUBECORE_ROOT}/hack/lib/conformance.sh"

FOCUS=${FOCUS:-}
SKIP=${SKIP:-}
RUNTIME=${RUNTIME:-fake}
PROCS=${PROCS:-8}
TIMEOUT=${TIMEOUT:-60m}
NODES=${NODES:-2}
STRICT=${STRICT:-}
EXPECT=${EXPECT:-}
NETNS=${NETNS:-}

# NETNS=1: the same script again in a new network namespace with its
# loopback and a veth pair whose one end has the node IP (a pod cannot
# reach a cluster DNS on the loopback). The namespace ends with its last
# process.
if [ "${NETNS}" = 1 ] && [ -z "${KUBECORE_CONFORMANCE_NETNS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "conformance: NETNS=1 needs root (unshare -n)" >&2; exit 1; }
  KUBECORE_CONFORMANCE_NETNS=1 exec unshare -n -- bash -c '
    ip link set lo up && ip link add kchost type veth peer name kchostpeer &&
      ip link set kchostpeer up && ip addr add 198.51.100.2/24 dev kchost &&
      ip link set kchost up && ip route add default dev kchost && exec "$0" "$@"' "${BASH_SOURCE[0]}" "$@"
fi
OUT=${OUT:-${KUBECORE_OUTPUT}/conformance}
READY_TIMEOUT=${READY_TIMEOUT:-180}

die() { echo "conformance: $*" >&2; exit 1; }

case "${RUNTIME}" in process | fake | cri) ;; *) die "RUNTIME=${RUNTIME}: want process, fake or cri" ;; esac
[[ "${PROCS}" =~ ^[1-9][0-9]*$ ]] || die "PROCS=${PROCS}: want a positive number"
[[ "${NODES}" =~ ^[1-9][0-9]*$ ]] || die "NODES=${NODES}: want a positive number"
[ "${RUNTIME}" = cri ] && [ "${NODES}" -gt 1 ] && die "NODES=${NODES}: RUNTIME=cri runs one node (the kubelets would share containerd)"
[[ "${TIMEOUT}" =~ ^([0-9]+(\.[0-9]+)?(h|m|s))+$ ]] || die "TIMEOUT=${TIMEOUT}: want a Go duration such as 40m or 1h30m"
KUBECTL=$(command -v kubectl) || die "kubectl is not on PATH: the sig-cli specs and this script need it (the stock /usr/bin/kubectl)"
# The pod network of a process run as root uses host-wide names (the
# bridges kubecore0.., the nftables table, DNS on port 53 of the node IP):
# one such run per host at a time. The bridges are this run's to remove
# when none existed before it.
bridges_ours=""
if [ "${RUNTIME}" = process ] && [ "$(id -u)" = 0 ]; then
  for ((n = 1; n <= NODES; n++)); do
    ! ip link show "kubecore$((n - 1))" >/dev/null 2>&1 ||
      die "the pod bridge kubecore$((n - 1)) exists: another RUNTIME=process run is using this host (if none is, remove it: ip link del kubecore$((n - 1)))"
  done
  bridges_ours=1
fi

conformance::build
WHAT=cmd/kubecore "${KUBECORE_ROOT}/hack/build.sh" >/dev/null
conformance::build_summary
KUBECORE="${KUBECORE_OUTPUT}/bin/kubecore"

rm -rf "${OUT}"
mkdir -p "${OUT}"
OUT=$(cd "${OUT}" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kubecore-conformance.XXXXXX")
KUBECORE_LOG="${WORK}/kubecore.log"
kubecore_pid=""
ginkgo_pid=""
kubelet_pids=()

# stop ends what this script started, by PID: ginkgo's process group (it
# and its e2e.test processes), then kubecore, with a grace period each.
stop() {
  local pid=$1 grace=$2 i
  kill -0 "${pid}" 2>/dev/null || return 0
  kill -TERM -- "-${pid}" 2>/dev/null || kill -TERM "${pid}" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do
    kill -0 "${pid}" 2>/dev/null || return 0
    sleep 0.2
  done
  echo "conformance: process ${pid} outlived ${grace}s after SIGTERM; killing it" >&2
  kill -KILL -- "-${pid}" 2>/dev/null || kill -KILL "${pid}" 2>/dev/null || true
}
# stop_pods ends the pods of this run's process-runtime kubelets, which
# outlive their kubelet by design (a restarted kubelet adopts them): for
# each container's state file under WORK, every process of its shim's
# session (the shim and the container's process group), by PID. Then it
# unmounts the pods' pinned network namespaces (their veths go with them)
# and removes the bridges of the nodes.
stop_pods() {
  local state shim pids=() pid i mnt n
  while IFS= read -r state; do
    shim=$(sed -n 's/.*"shimPID":\([0-9][0-9]*\).*/\1/p' "${state}")
    [ -n "${shim}" ] && grep -qF -- "${WORK}/" "/proc/${shim}/cmdline" 2>/dev/null || continue
    pids+=($(ps -o pid= -s "${shim}"))
  done < <(find "${WORK}" -path '*/runtime/process/containers/*/state.json' 2>/dev/null)
  if [ "${#pids[@]}" -gt 0 ]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 25; i++)); do
      kill -0 "${pids[@]}" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  while IFS= read -r mnt; do umount -l "${mnt}" 2>/dev/null || true; done < <(findmnt -rn -o TARGET | grep -F -- "${WORK}/" | sort -r)
  [ -n "${bridges_ours}" ] || return 0
  for ((n = 1; n <= NODES; n++)); do ip link del "kubecore$((n - 1))" 2>/dev/null || true; done
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "${ginkgo_pid}" ] && stop "${ginkgo_pid}" 30
  for pid in "${kubelet_pids[@]}"; do stop "${pid}" 30; done
  [ -n "${kubecore_pid}" ] && stop "${kubecore_pid}" 60
  [ "${RUNTIME}" = process ] && [ "$(id -u)" = 0 ] && stop_pods
  [ -f "${KUBECORE_LOG}" ] && cp "${KUBECORE_LOG}" "${OUT}/kubecore.log"
  for log in "${WORK}"/node-*.log; do [ -f "${log}" ] && cp "${log}" "${OUT}/kubelet-$(basename "${log}")"; done
  rm -rf "${WORK}"
  exit "${rc}"
}
trap cleanup EXIT
trap 'echo "conformance: interrupted" >&2; exit 130' INT
trap 'echo "conformance: terminated" >&2; exit 143' TERM

# The specs to run: the [Conformance] ones that FOCUS and SKIP select.
ginkgo_filter=(--label-filter=Conformance)
[ -n "${FOCUS}" ] && ginkgo_filter+=("--focus=${FOCUS}")
[ -n "${SKIP}" ] && ginkgo_filter+=("--skip=${SKIP}")

# A dry run lists them, so that the summary can tell a spec the run never
# reached from one the focus left out.
"${E2E_TEST}" "${ginkgo_filter[@]/#--/--ginkgo.}" --ginkgo.dry-run --ginkgo.no-color \
  --ginkgo.junit-report="${OUT}/selected.xml" >"${OUT}/dry-run.log" 2>&1 ||
  die "the dry run of e2e.test failed (see ${OUT}/dry-run.log): $(tail -n 3 "${OUT}/dry-run.log")"
selected=$(grep -c 'name="\[It\] .*status="passed"' "${OUT}/selected.xml" || true)
[ "${selected}" -gt 0 ] || die "FOCUS='${FOCUS}' SKIP='${SKIP}' select no [Conformance] spec"
if [ -n "${EXPECT}" ]; then
  "${CONFORMANCE_SUMMARY}" -selected "${OUT}/selected.xml" -expect "${EXPECT}" || die "the dry run does not select exactly the specs of ${EXPECT}"
fi

# With the process runtime the pods of the e2e images run those images'
# programs from the host: the image map gives the kubelets agnhost (built
# above from the same k8s.io/kubernetes) for the agnhost image, ENTRYPOINT
# and CMD as the image's configuration has them. The suite deploys tag
# 2.63.0 and, for rollouts from one image to another, 2.55 (AgnhostPrev):
# both run this agnhost. busybox is one of the runtime's well-known images
# (sh on the host); the nginx, sample-apiserver and etcd images are not
# mapped: their pods fail with ProcessRuntimeProgramNotFound.
runtime_flags=()
if [ "${RUNTIME}" = process ]; then
  entrypoints="${WORK}/image-entrypoints.yaml"
  cat >"${entrypoints}" <<EOF_IMAGES
images:
  registry.k8s.io/e2e-test-images/agnhost:$(conformance::agnhost_version):
    entrypoint: ["${AGNHOST}"]
    cmd: ["pause"]
  registry.k8s.io/e2e-test-images/agnhost:2.55:
    entrypoint: ["${AGNHOST}"]
    cmd: ["pause"]
EOF_IMAGES
  # The nonewprivs image's program is setuid root (see
  # hack/tools/nonewprivs): as root, a copy of ours in a directory every
  # user may enter, removed with WORK.
  if [ "$(id -u)" = 0 ]; then
    mkdir -m 0755 "${WORK}/setuid"
    chmod 0711 "${WORK}"
    install -m 4755 "${NONEWPRIVS}" "${WORK}/setuid/nnp"
    cat >>"${entrypoints}" <<EOF_IMAGES
  registry.k8s.io/e2e-test-images/nonewprivs:
    entrypoint: ["${WORK}/setuid/nnp"]
EOF_IMAGES
  fi
  runtime_flags+=(--image-entrypoints "${entrypoints}")
fi

echo "conformance: starting kubecore all-in-one --runtime ${RUNTIME} on ${WORK}/data"
: >"${KUBECORE_LOG}" # exists before the background job opens it, for the loop below
setsid "${KUBECORE}" all-in-one --data-dir "${WORK}/data" --bind-address 127.0.0.1 \
  --secure-port 0 --kubelet-port 0 --runtime "${RUNTIME}" "${runtime_flags[@]}" -v 1 >"${KUBECORE_LOG}" 2>&1 &
kubecore_pid=$!

kubeconfig=""
for ((i = 0; i < READY_TIMEOUT * 5; i++)); do
  if ! kill -0 "${kubecore_pid}" 2>/dev/null; then
    echo "conformance: kubecore all-in-one exited before it was ready; the last lines of its log:" >&2
    tail -n 30 "${KUBECORE_LOG}" >&2
    exit 1
  fi
  kubeconfig=$(sed -n 's/.*"kubecore all-in-one is ready".* kubeconfig="\([^"]*\)".*/\1/p' "${KUBECORE_LOG}" | head -n1 || true)
  [ -n "${kubeconfig}" ] && break
  sleep 0.2
done
if [ -z "${kubeconfig}" ]; then
  echo "conformance: kubecore all-in-one was not ready after ${READY_TIMEOUT}s; the last lines of its log:" >&2
  tail -n 30 "${KUBECORE_LOG}" >&2
  exit 1
fi
# The other nodes: kubelets of the same runtime on this host, each on a
# free port with a root dir of its own; the all-in-one's service proxy
# (on as root) serves this host, whose nftables table is one. With the
# process runtime's pod network (as root) each node has a bridge of its
# own (the all-in-one's kubecore0, node N's kubecoreN-1) for the pod CIDR
# node IPAM gives it; the host routes between them.
# The API server reaches a kubelet by its Node's Hostname address first, as
# Kubernetes does (logs, exec, port-forward, node proxy); a kubelet's
# Hostname is its node name, which no resolver here knows. Node 2 is
# therefore "localhost" (its serving certificate names it); nodes 3 and on
# keep their names, so their kubelets are reachable only where those names
# resolve to this host. Their pods use the all-in-one's cluster DNS (its
# kube-dns address, which the host's proxy table routes): a kubelet without
# a proxy of its own would give them the host's resolv.conf.
# A node's InternalIP is where pods reach its node ports and host ports
# (the specs dial them from pods): 127.0.0.1 is a pod's own loopback, so
# in a NETNS run node N has an address of its own, 198.51.100.N+1 on the
# namespace's "host" interface (the one service proxy serves every local
# address); without NETNS it shares the host's loopback.
for ((n = 2; n <= NODES; n++)); do
  mkdir -p "${WORK}/node-${n}"
  node_flags=("${runtime_flags[@]}")
  [ "${RUNTIME}" = process ] && node_flags+=(--pod-bridge "kubecore$((n - 1))" --cluster-dns 10.96.0.10)
  [ "${n}" = 2 ] && node_flags+=(--hostname-override localhost)
  node_ip=127.0.0.1
  if [ -n "${KUBECORE_CONFORMANCE_NETNS:-}" ]; then
    node_ip="198.51.100.$((n + 1))"
    ip addr add "${node_ip}/24" dev kchost || die "add node ${n}'s address ${node_ip} to the namespace's host interface"
  fi
  setsid "${KUBECORE}" kubelet --kubeconfig "${kubeconfig}" --node-name "kubecore-node-${n}" \
    --runtime "${RUNTIME}" --address 127.0.0.1 --port 0 --node-ip "${node_ip}" "${node_flags[@]}" \
    --root-dir "${WORK}/node-${n}" --run-service-proxy=false -v 1 >"${WORK}/node-${n}.log" 2>&1 &
  kubelet_pids+=($!)
done
# Each kubelet registers its node a moment after it starts.
deadline=$(($(date +%s) + READY_TIMEOUT))
until [ "$("${KUBECTL}" --kubeconfig "${kubeconfig}" get nodes -o name 2>/dev/null | wc -l)" -ge "${NODES}" ] || [ "$(date +%s)" -ge "${deadline}" ]; do
  kill -0 "${kubecore_pid}" 2>/dev/null || break
  sleep 1
done
if ! kill -0 "${kubecore_pid}" 2>/dev/null; then
  echo "conformance: kubecore all-in-one exited before its node registered; the last lines of its log:" >&2
  tail -n 30 "${KUBECORE_LOG}" >&2
  exit 1
fi
if ! "${KUBECTL}" --kubeconfig "${kubeconfig}" wait --for=condition=Ready node --all --timeout="$((deadline - $(date +%s) + 1))s" >/dev/null; then
  echo "conformance: the ${NODES} kubecore nodes did not register and become Ready in ${READY_TIMEOUT}s; the last lines of the logs:" >&2
  tail -n 30 "${KUBECORE_LOG}" "${WORK}"/node-*.log >&2 2>/dev/null || tail -n 30 "${KUBECORE_LOG}" >&2
  exit 1
fi

start=$(date +%s)
echo "conformance: running ${selected} specs with ${PROCS} processes, at most ${TIMEOUT}; follow ${OUT}/e2e.log"
setsid "${GINKGO}" --procs="${PROCS}" --timeout="${TIMEOUT}" "${ginkgo_filter[@]}" \
  --no-color --silence-skips --junit-report=junit.xml --output-dir="${OUT}" \
  "${E2E_TEST}" -- --kubeconfig="${kubeconfig}" --kubectl-path="${KUBECTL}" --provider=skeleton \
  >"${OUT}/e2e.log" 2>&1 &
ginkgo_pid=$!
ginkgo_rc=0
wait "${ginkgo_pid}" || ginkgo_rc=$?
ginkgo_pid=""
echo "conformance: ginkgo exited ${ginkgo_rc} after $(($(date +%s) - start))s"

[ -f "${OUT}/junit.xml" ] || die "ginkgo wrote no JUnit report; the end of ${OUT}/e2e.log: $(tail -n 5 "${OUT}/e2e.log")"
"${CONFORMANCE_SUMMARY}" -junit "${OUT}/junit.xml" -selected "${OUT}/selected.xml" -summary "${OUT}/summary.md" -markdown
summary_rc=0
"${CONFORMANCE_SUMMARY}" -junit "${OUT}/junit.xml" -selected "${OUT}/selected.xml" \
  -summary "${OUT}/summary.txt" -failed "${OUT}/failed.txt" ${STRICT:+-strict} || summary_rc=$?
cat "${OUT}/summary.txt"
echo "conformance: report in ${OUT} (summary.txt, failed.txt, junit.xml)"
exit "${summary_rc}"
