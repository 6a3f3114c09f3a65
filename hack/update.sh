#!/usr/bin/env bash
# Runs every hack/update-*.sh (gofmt, deep-copy codegen, OpenAPI docs); each
# has a hack/verify-*.sh that fails until it has been run.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

for script in "${KUBECORE_ROOT}"/hack/update-*.sh; do
  echo "--- $(basename "${script}")"
  bash "${script}"
done
