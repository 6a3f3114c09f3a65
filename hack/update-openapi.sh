#!/usr/bin/env bash
# Regenerates pkg/openapi/zz_generated.docs.go, the OpenAPI field and type
# descriptions, from the doc comments of the API types. Extra arguments go
# to openapi-docs (verify passes -o to write a copy elsewhere).
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

go run ./hack/tools/openapi-docs "$@" \
  kubecore.io/api/... \
  kubecore.io/apimachinery/pkg/apis/meta/v1 \
  kubecore.io/apimachinery/pkg/api/resource \
  kubecore.io/apimachinery/pkg/util/intstr \
  kubecore.io/apimachinery/pkg/runtime
