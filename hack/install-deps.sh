#!/usr/bin/env bash
# Installs the Debian packages the tests need (Debian's etcd-server is the
# external etcd of the integration tests), only when one is missing.
set -o errexit -o nounset -o pipefail

need=()
command -v etcd >/dev/null || need+=(etcd-server)
command -v ip >/dev/null || need+=(iproute2)
# The pod network, the service proxy and the DNS (on by default as root)
# need ip, nsenter and unshare and the kernel's nf_tables (written over
# netlink: no nft binary). Their e2e (test/e2e/servicenet, network) run
# pods of the host's python3 and wget, and curl from the test. The process
# runtime runs busybox images' programs as the host's busybox applets,
# and the tools the agnhost image carries (nc, dig, nslookup; the
# conformance specs exec them in its pods) as the host's.
command -v nsenter >/dev/null || need+=(util-linux)
command -v curl >/dev/null || need+=(curl)
command -v wget >/dev/null || need+=(wget)
command -v python3 >/dev/null || need+=(python3)
command -v busybox >/dev/null || need+=(busybox)
command -v nc >/dev/null || need+=(netcat-openbsd)
command -v dig >/dev/null || need+=(bind9-dnsutils)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  ${sudo} apt-get update
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y --no-install-recommends "${need[@]}"
fi
