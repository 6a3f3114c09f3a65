#!/usr/bin/env bash
# Prints the directory of the Gateway API standard-channel CRDs, fetched
# through the module cache by the test-only module test/gatewayapi (the
# YAML is never copied into the tree). Fails when the module cannot be
# fetched.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

cd "${KUBECORE_ROOT}/test/gatewayapi"
export GOWORK=off GOFLAGS=-mod=mod
go mod download sigs.k8s.io/gateway-api >&2
dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api)"
crds="${dir}/config/crd/standard"
if [[ ! -d "${crds}" ]]; then
  echo "gatewayapi-crds: ${crds} is missing from the module sigs.k8s.io/gateway-api" >&2
  exit 1
fi
echo "${crds}"
