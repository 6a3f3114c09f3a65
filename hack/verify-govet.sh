#!/usr/bin/env bash
# Runs go vet over every module.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if ! kubecore::packages | xargs go vet; then
  echo "go vet found the problems above; fix them by hand, then run: hack/verify-govet.sh" >&2
  exit 1
fi
