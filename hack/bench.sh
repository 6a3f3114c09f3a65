#!/usr/bin/env bash
# Runs every benchmark once; each prints its figures beside their targets.
# The benchmarks of test/e2e/perf run the built binary as its own process.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

WHAT=cmd/kubecore "${KUBECORE_ROOT}/hack/build.sh"
export KUBECORE_BIN="${KUBECORE_OUTPUT}/bin/kubecore"
pkgs=${WHAT:-$(kubecore::packages)}
go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-1x}" -count=1 -timeout 30m ${pkgs}
