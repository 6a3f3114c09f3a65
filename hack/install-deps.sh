#!/usr/bin/env bash
# Installs the Debian packages the tests need (Debian's etcd-server is the
# external etcd of the integration tests), only when one is missing.
set -o errexit -o nounset -o pipefail

need=()
command -v etcd >/dev/null || need+=(etcd-server)
command -v ip >/dev/null || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  ${sudo} apt-get update
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y --no-install-recommends "${need[@]}"
fi
