#!/usr/bin/env bash
# Cross-compiles kubecore with CGO off and packs one tarball per platform
# under _output/release-tars.
set -o errexit -o nounset -o pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

PLATFORMS=(${PLATFORMS:-linux/amd64 linux/arm64 darwin/arm64})
tars="${KUBECORE_OUTPUT}/release-tars"
mkdir -p "${tars}"
ldflags=$(kubecore::ldflags)
for platform in "${PLATFORMS[@]}"; do
  os=${platform%/*} arch=${platform#*/}
  stage="${KUBECORE_OUTPUT}/release-stage/kubecore-${os}-${arch}/kubecore"
  mkdir -p "${stage}/bin"
  CGO_ENABLED=0 GOOS=${os} GOARCH=${arch} go build -trimpath -ldflags "${ldflags}" -o "${stage}/bin/kubecore" ./cmd/kubecore
  cp README.md "${stage}/"
  tar -C "$(dirname "${stage}")" -czf "${tars}/kubecore-${os}-${arch}.tar.gz" kubecore
  echo "packed ${tars}/kubecore-${os}-${arch}.tar.gz"
done
rm -rf "${KUBECORE_OUTPUT}/release-stage"
