#!/usr/bin/env bash
# Runs go vet over every module.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

kubecore::packages | xargs go vet
