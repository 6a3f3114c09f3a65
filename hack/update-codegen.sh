#!/usr/bin/env bash
# Regenerates zz_generated.deepcopy.go in every package of every module whose
# doc.go carries "// +kubecore:deepcopy-gen=package", and removes generated
# files that no longer belong. Extra arguments go to deepcopy-gen (verify
# passes -out-root to write a copy elsewhere).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# codegen_dirs lists the marked packages and the packages holding a
# generated file, as ./relative/paths.
codegen_dirs() {
  {
    grep -rlx --include=doc.go --exclude-dir=.git --exclude-dir=_output -e '// +kubecore:deepcopy-gen=package' . || true
    find . \( -name .git -o -name _output \) -prune -o -name zz_generated.deepcopy.go -print
  } | xargs -r -n1 dirname | sort -u
}

mapfile -t dirs < <(codegen_dirs)
if [ ${#dirs[@]} -eq 0 ]; then
  echo "no packages marked for deepcopy-gen"
  exit 0
fi
go run ./hack/tools/deepcopy-gen "$@" "${dirs[@]}"
