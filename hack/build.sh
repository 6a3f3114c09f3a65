#!/usr/bin/env bash
# Builds the commands named by WHAT (default cmd/kubecore) into _output/bin.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

mkdir -p "${KUBECORE_OUTPUT}/bin"
for what in ${WHAT:-cmd/kubecore}; do
  go build -trimpath -ldflags "$(kubecore::ldflags)" -o "${KUBECORE_OUTPUT}/bin/$(basename "${what}")" "./${what}"
  echo "built ${KUBECORE_OUTPUT}/bin/$(basename "${what}")"
done
