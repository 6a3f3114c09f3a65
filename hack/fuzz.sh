#!/usr/bin/env bash
# Runs each fuzz target for FUZZTIME (default 30s). A crash fails the run and
# leaves its input under the package's testdata/fuzz for a regression test.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

for pkg in $(kubecore::packages); do
  dir=$(go list -f '{{.Dir}}' "${pkg}")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "${dir}"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "--- fuzz ${pkg} ${target} for ${FUZZTIME:-30s}"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-30s}" "${pkg}"
  done
done
