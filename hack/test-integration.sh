#!/usr/bin/env bash
# Runs the integration tests: in-process components over an embedded etcd.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [ -z "$(go list ./test/integration/... 2>/dev/null)" ]; then
  echo "no integration test packages yet"
  exit 0
fi
go test -count=1 -timeout 20m ${WHAT:-./test/integration/...} ${TESTFLAGS:-}
