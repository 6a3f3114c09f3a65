#!/usr/bin/env bash
# Fails when pkg/openapi/zz_generated.docs.go no longer matches the doc
# comments of the API types.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT

bash "${KUBECORE_ROOT}/hack/update-openapi.sh" -o "${tmp}/zz_generated.docs.go"
if ! diff -u pkg/openapi/zz_generated.docs.go "${tmp}/zz_generated.docs.go"; then
  echo "OpenAPI descriptions are out of date; run: hack/update-openapi.sh" >&2
  exit 1
fi
