#!/usr/bin/env bash
# Runs every hack/verify-*.sh and reports all failures, not just the first.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

failed=()
for script in "${KUBECORE_ROOT}"/hack/verify-*.sh; do
  echo "--- $(basename "${script}")"
  if ! bash "${script}"; then failed+=("$(basename "${script}")"); fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
