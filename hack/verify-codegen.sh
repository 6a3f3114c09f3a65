#!/usr/bin/env bash
# Fails when a zz_generated.deepcopy.go file is stale, missing or no longer
# wanted: regenerates everything into a temporary copy and compares.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT

bash "${KUBECORE_ROOT}/hack/update-codegen.sh" -out-root "${tmp}"

status=0
while IFS= read -r generated; do
  rel=${generated#"${tmp}"/}
  if [ ! -f "${rel}" ]; then
    echo "missing: ${rel}"
    status=1
  elif ! diff -u "${rel}" "${generated}"; then
    status=1
  fi
done < <(find "${tmp}" -name zz_generated.deepcopy.go)
while IFS= read -r existing; do
  rel=${existing#./}
  if [ ! -f "${tmp}/${rel}" ]; then
    echo "no longer generated: ${rel}"
    status=1
  fi
done < <(find . \( -name .git -o -name _output \) -prune -o -name zz_generated.deepcopy.go -print)

if [ ${status} -ne 0 ]; then
  echo "generated deep-copy code is out of date; run: hack/update-codegen.sh" >&2
  exit 1
fi
