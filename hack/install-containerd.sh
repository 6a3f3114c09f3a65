#!/usr/bin/env bash
# Installs what the CRI runtime's tests (test/integration/cri) need, only
# when one is missing: Debian's containerd (with ctr) and runc, and
# busybox-static (the shell of the test image). Needs root, or sudo.
# The tests start their own containerd; this script never starts one.
set -o errexit -o nounset -o pipefail

need=()
{ command -v containerd && command -v ctr; } >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[ -x /bin/busybox ] || need+=(busybox-static)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  ${sudo} apt-get update
  DEBIAN_FRONTEND=noninteractive ${sudo} apt-get install -y --no-install-recommends "${need[@]}"
fi
# Debian's package starts a containerd of its own on systemd hosts: the
# tests do not use it (they run one on a socket under a temp dir).
containerd --version
runc --version | head -n 1
