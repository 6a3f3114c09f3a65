# Sourced by every hack/ script: the repository root, the Go packages of
# every module, and the version stamped into binaries.
KUBECORE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export KUBECORE_ROOT
cd "${KUBECORE_ROOT}"

export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
KUBECORE_OUTPUT="${KUBECORE_ROOT}/_output"
STAGING_MODULES=(api apimachinery client)

# kubecore::packages lists the import paths of every package of every module.
kubecore::packages() {
  local pkgs=(./...)
  for m in "${STAGING_MODULES[@]}"; do pkgs+=("kubecore.io/${m}/..."); done
  go list "${pkgs[@]}"
}

# kubecore::module_dirs lists the directories holding a go.mod.
kubecore::module_dirs() {
  echo "${KUBECORE_ROOT}"
  for m in "${STAGING_MODULES[@]}"; do echo "${KUBECORE_ROOT}/staging/src/kubecore.io/${m}"; done
}

# kubecore::ldflags prints the -X flags that stamp the version into a binary.
kubecore::ldflags() {
  local commit="" tree="" version="v1.32.0-kubecore-dev"
  if commit=$(git rev-parse --verify -q HEAD 2>/dev/null); then
    if [ -z "$(git status --porcelain 2>/dev/null)" ]; then tree=clean; else tree=dirty; fi
    version="v1.32.0-kubecore+$(git rev-parse --short=12 HEAD)"
  fi
  local pkg=kubecore.io/apimachinery/pkg/version
  echo "-s -w -X ${pkg}.gitVersion=${version} -X ${pkg}.gitCommit=${commit} -X ${pkg}.gitTreeState=${tree} -X ${pkg}.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
