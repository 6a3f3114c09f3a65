#!/usr/bin/env bash
# Runs every benchmark once; each prints its figures beside their targets.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

pkgs=${WHAT:-$(kubecore::packages)}
go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-1x}" -count=1 -timeout 30m ${pkgs}
