#!/usr/bin/env bash
# Enforces the import boundaries of DESIGN.md: staging never imports pkg/ or
# cmd/; the scheduler, controllers, kubelet and CLI reach the cluster only
# through kubecore.io/client; pkg/storage never imports pkg/registry or
# pkg/apiserver, and pkg/registry never imports pkg/apiserver.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

status=0
# check PKG_PATTERN FORBIDDEN_REGEX WHY
check() {
  local pattern=$1 forbidden=$2 why=$3 out
  out=$( (go list -f '{{.ImportPath}}: {{join .Imports " "}}' "${pattern}" 2>/dev/null || true) |
    awk -v re="${forbidden}" '{ for (i = 2; i <= NF; i++) if ($i ~ re) print $1 " imports " $i }')
  if [ -n "${out}" ]; then
    echo "${out}"
    echo "  -> ${why}" >&2
    status=1
  fi
}

for m in "${STAGING_MODULES[@]}"; do
  check "kubecore.io/${m}/..." '^kubecore\.io/kubecore/' "staging modules must stand alone: move the shared code into staging"
done
for c in scheduler controller controllermanager kubelet kubectl; do
  check "./pkg/${c}/..." '^kubecore\.io/kubecore/pkg/(apiserver|registry|storage|apiextensions)(/|$)' "${c} talks to the cluster only through kubecore.io/client"
done
check "./pkg/storage/..." '^kubecore\.io/kubecore/pkg/(registry|apiserver)(/|$)' "storage sits below registry and apiserver"
check "./pkg/registry/..." '^kubecore\.io/kubecore/pkg/apiserver(/|$)' "registry sits below apiserver"
exit ${status}
