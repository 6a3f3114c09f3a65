#!/usr/bin/env bash
# Runs every hack/verify-*.sh and reports all failures, not just the first.
# Every hack/update-*.sh must have its verify-*.sh, so that `make verify`
# fails until `make update` has been run.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

failed=()
for update in "${KUBECORE_ROOT}"/hack/update-*.sh; do
  name=$(basename "${update}")
  if [ ! -f "${KUBECORE_ROOT}/hack/verify-${name#update-}" ]; then
    echo "hack/${name} has no hack/verify-${name#update-}: add one that fails until it is run" >&2
    failed+=("verify-${name#update-}")
  fi
done
for script in "${KUBECORE_ROOT}"/hack/verify-*.sh; do
  echo "--- $(basename "${script}")"
  if ! bash "${script}"; then failed+=("$(basename "${script}")"); fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
