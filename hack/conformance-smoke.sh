#!/usr/bin/env bash
# The fast conformance guard of `make test`: runs the [Conformance] specs
# named in test/conformance/smoke.txt (specs that pass today) against a
# kubecore all-in-one with the fake runtime, and fails when any of them
# fails, does not run, or is no longer selected by its exact name. The
# report goes to _output/conformance-smoke. Builds e2e.test and ginkgo first
# when needed (hack/conformance.sh).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

LIST="${KUBECORE_ROOT}/test/conformance/smoke.txt"
[ -s "${LIST}" ] || { echo "conformance-smoke: ${LIST} is missing or empty" >&2; exit 1; }

# One anchored alternative per name: ginkgo matches FOCUS against
# "Kubernetes e2e suite " followed by the spec's text.
focus=$(grep -v -e '^[[:space:]]*$' -e '^#' "${LIST}" |
  sed -e 's/[][\\.*^$(){}?+|]/\\&/g' | paste -sd'|' -)

FOCUS="^Kubernetes e2e suite (${focus})\$" SKIP="" RUNTIME=fake \
  PROCS="${PROCS:-8}" TIMEOUT="${TIMEOUT:-15m}" STRICT=1 EXPECT="${LIST}" \
  OUT="${KUBECORE_OUTPUT}/conformance-smoke" \
  exec "${KUBECORE_ROOT}/hack/conformance.sh"
