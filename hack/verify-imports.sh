#!/usr/bin/env bash
# Enforces the import rules of DESIGN.md, listed in hack/import-rules.txt, on
# the transitive import graph of every module (hack/tools/import-rules).
# Each broken rule prints the chain of imports and the rule's reason; a
# failing `go list` fails the check. Every run first proves, on synthetic
# graphs, that each rule can fail; `hack/verify-imports.sh --self-test` does
# only that.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
go build -o "${tmp}/import-rules" ./hack/tools/import-rules

args=(-rules hack/import-rules.txt)
case "${1:-}" in
  --self-test) args+=(-self-test) ;;
  "")
    args+=(./...)
    for m in "${STAGING_MODULES[@]}"; do args+=("kubecore.io/${m}/..."); done
    ;;
  *)
    echo "usage: hack/verify-imports.sh [--self-test]" >&2
    exit 2
    ;;
esac
"${tmp}/import-rules" "${args[@]}"
