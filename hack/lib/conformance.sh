# Sourced by hack/conformance*.sh after init.sh: builds the upstream e2e
# suite (the test/conformance module) and the ginkgo CLI it pins, each only
# when its inputs changed since the last build.

CONFORMANCE_MODULE="${KUBECORE_ROOT}/test/conformance"
E2E_TEST="${KUBECORE_OUTPUT}/bin/e2e.test"
GINKGO="${KUBECORE_OUTPUT}/bin/ginkgo"
# agnhost, the program of the e2e test image
# registry.k8s.io/e2e-test-images/agnhost (a tool of the module, at the
# version k8s.io/kubernetes has: test/images/agnhost/VERSION).
AGNHOST="${KUBECORE_OUTPUT}/bin/agnhost"
CONFORMANCE_SUMMARY="${KUBECORE_OUTPUT}/bin/conformance-summary"
NONEWPRIVS="${KUBECORE_OUTPUT}/bin/nonewprivs"

# conformance::go runs the go command in the conformance module, outside the
# root go.work (which does not list it) and with its go.sum as the truth.
conformance::go() {
  (cd "${CONFORMANCE_MODULE}" && GOWORK=off GOFLAGS="-buildvcs=false -mod=readonly" go "$@")
}

# conformance::inputs_hash hashes what the two binaries are built from: the
# module's files and the Go toolchain.
conformance::inputs_hash() {
  {
    go version
    (cd "${CONFORMANCE_MODULE}" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) | LC_ALL=C sort | xargs sha256sum)
  } | sha256sum | cut -d' ' -f1
}

# conformance::ensure_modules makes sure every module the suite needs is in
# the module cache, downloading what is missing. Without the proxy and
# without a cached copy it says so in one line and fails.
conformance::ensure_modules() {
  local err
  if GOPROXY=off conformance::go list -deps -test ./e2e github.com/onsi/ginkgo/v2/ginkgo k8s.io/kubernetes/test/images/agnhost >/dev/null 2>&1; then
    return 0
  fi
  echo "conformance: downloading k8s.io/kubernetes v1.36.3 and its modules into $(go env GOMODCACHE)"
  if ! err=$(conformance::go mod download 2>&1); then
    echo "conformance: cannot get k8s.io/kubernetes v1.36.3 and its modules: the Go module proxy ($(go env GOPROXY)) is not reachable and $(go env GOMODCACHE) does not hold them ($(printf '%s\n' "${err}" | grep -v '^go: downloading' | tail -n1))" >&2
    return 1
  fi
}

# conformance::build builds _output/bin/e2e.test, _output/bin/ginkgo and
# _output/bin/agnhost unless all three exist and were built from the same
# inputs.
conformance::build() {
  local stamp="${KUBECORE_OUTPUT}/conformance-build.stamp" hash start
  mkdir -p "${KUBECORE_OUTPUT}/bin"
  hash=$(conformance::inputs_hash)
  if [ -x "${E2E_TEST}" ] && [ -x "${GINKGO}" ] && [ -x "${AGNHOST}" ] && [ "$(cat "${stamp}" 2>/dev/null)" = "${hash}" ]; then
    echo "conformance: e2e.test, ginkgo and agnhost are up to date"
    return 0
  fi
  conformance::ensure_modules || return 1
  start=$(date +%s)
  echo "conformance: building ${E2E_TEST} (cold: about an hour on 2 cores; warm: a link)"
  rm -f "${stamp}"
  conformance::go test -c -vet=off -o "${E2E_TEST}" ./e2e || { echo "conformance: building e2e.test failed" >&2; return 1; }
  conformance::go build -o "${GINKGO}" github.com/onsi/ginkgo/v2/ginkgo || { echo "conformance: building ginkgo failed" >&2; return 1; }
  conformance::go build -o "${AGNHOST}" k8s.io/kubernetes/test/images/agnhost || { echo "conformance: building agnhost failed" >&2; return 1; }
  echo "${hash}" >"${stamp}"
  echo "conformance: built e2e.test, agnhost $(conformance::agnhost_version) and ginkgo $("${GINKGO}" version | awk '{print $NF}') in $(($(date +%s) - start))s"
}

# conformance::agnhost_version prints the version of the agnhost image
# the module's k8s.io/kubernetes builds (the tag its e2e suite runs).
conformance::agnhost_version() {
  cat "$(conformance::go list -m -f '{{.Dir}}' k8s.io/kubernetes)/test/images/agnhost/VERSION"
}

# conformance::build_summary builds the JUnit-to-table tool (root module),
# and the stand-in for the nonewprivs image's program.
conformance::build_summary() {
  go build -o "${CONFORMANCE_SUMMARY}" ./hack/tools/conformance-summary
  go build -o "${NONEWPRIVS}" ./hack/tools/nonewprivs
}
