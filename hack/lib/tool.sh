# Sourced by hack/ scripts that build a stock tool from a test-only Go module
# (a go.mod whose `tool` directive pins the tool; see test/metricsserver,
# test/helm). Needs hack/lib/init.sh sourced first.

# kubecore::build_tool MODULE_DIR PACKAGE NAME [FILE...] builds PACKAGE, a
# tool of the module in MODULE_DIR or a program of its own there, through
# the Go module proxy into _output/bin/NAME and prints that path on stdout
# (the go command's output goes to stderr). The binary is cached: it is
# rebuilt only when the module's go.mod or go.sum, or the FILEs (a program's
# own sources), change (their hash is kept beside it in NAME.sum). Concurrent
# callers (test packages run in parallel) wait on a lock beside the binary,
# so one builds and the others find it built. Returns non-zero when the
# module cannot be fetched or built.
kubecore::build_tool() {
  local module="$1" pkg="$2" name="$3"
  shift 3
  local out="${KUBECORE_OUTPUT}/bin/${name}"
  local stamp="${out}.sum"
  local want lock
  want="$(cat "${module}/go.mod" "${module}/go.sum" "$@" | sha256sum | cut -d' ' -f1)"
  mkdir -p "$(dirname "${out}")"
  exec {lock}>"${out}.lock"
  flock "${lock}"
  if [[ -x "${out}" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
    exec {lock}>&-
    echo "${out}"
    return 0
  fi
  rm -f "${stamp}"
  # errexit does not hold in a condition: every step is chained.
  if ! (
    cd "${module}" &&
      GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 go build -o "${out}" "${pkg}" >&2
  ); then
    exec {lock}>&-
    return 1
  fi
  echo "${want}" > "${stamp}"
  exec {lock}>&-
  echo "${out}"
}
