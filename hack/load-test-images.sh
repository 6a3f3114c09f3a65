#!/usr/bin/env bash
# Loads the CRI tests' images into a containerd without any registry: builds
# them as OCI archives (test/images/ociarchive: pause, busybox from Debian's
# busybox-static, httpd) and imports each with `ctr -n k8s.io images import`.
#   ADDRESS  containerd's socket (default /run/containerd/containerd.sock)
#   OUT      keep the archives in this directory (default: a temp dir, removed)
# Needs containerd's ctr and busybox-static: hack/install-containerd.sh.
set -o errexit -o nounset -o pipefail

KUBECORE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ADDRESS=${ADDRESS:-/run/containerd/containerd.sock}
command -v ctr >/dev/null || { echo "ctr is not installed; run: hack/install-containerd.sh" >&2; exit 1; }
[ -x /bin/busybox ] || { echo "busybox-static is not installed; run: hack/install-containerd.sh" >&2; exit 1; }

out=${OUT:-}
if [ -z "${out}" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "${out}"' EXIT
fi
cd "${KUBECORE_ROOT}"
CGO_ENABLED=0 go run ./test/images/ociarchive -out "${out}" -repo-root "${KUBECORE_ROOT}" |
  while read -r archive; do
    ctr -n k8s.io --address "${ADDRESS}" images import "${archive}"
  done
ctr -n k8s.io --address "${ADDRESS}" images ls -q | grep '^kubecore.test/'
