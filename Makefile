# kubecore build entry points: each target is a one-liner into hack/.
# `make help` lists them.

SHELL := /usr/bin/env bash
.DEFAULT_GOAL := all
export WHAT FOCUS SKIP RUNTIME PROCS TIMEOUT

## all: build _output/bin/kubecore (WHAT=cmd/kubecore selects what to build)
.PHONY: all
all:
	@hack/build.sh

## test: everything CI runs: verify, unit, integration and e2e tests, conformance smoke
.PHONY: test
test: verify test-unit test-integration test-e2e test-conformance-smoke

## test-unit: unit tests of every module, with -race (WHAT=pkgs, TESTFLAGS=...)
.PHONY: test-unit
test-unit:
	@hack/test-unit.sh

## test-integration: in-process components over an embedded etcd
.PHONY: test-integration
test-integration:
	@hack/test-integration.sh

## test-e2e: the built binary driven by the stock kubectl and the bundled CLI
.PHONY: test-e2e
test-e2e:
	@hack/test-e2e.sh

## conformance: upstream v1.36 [Conformance] specs against kubecore all-in-one (FOCUS, SKIP, RUNTIME, PROCS, TIMEOUT)
.PHONY: conformance
conformance:
	@hack/conformance.sh

## test-conformance-smoke: the conformance specs of test/conformance/smoke.txt, failing when any fails
.PHONY: test-conformance-smoke
test-conformance-smoke:
	@hack/conformance-smoke.sh

## bench: every benchmark, each figure printed beside its target (BENCH=regexp)
.PHONY: bench
bench:
	@hack/bench.sh

## bench-scale: apiserver, scheduler, controller-manager and N hollow nodes (default 5000) with P pods (default 150000), figures beside targets; not in test
.PHONY: bench-scale
bench-scale:
	@hack/bench-scale.sh

## soak: all-in-one (process runtime) with 50 hollow nodes under steady load for SOAK (default 30m), kill -9 and restart every 5m, failing on unbounded growth, lost writes or pods not re-adopted; not in test
.PHONY: soak
soak:
	@hack/soak.sh

## fuzz: each fuzz target for FUZZTIME (default 30s)
.PHONY: fuzz
fuzz:
	@hack/fuzz.sh

## verify: every hack/verify-*.sh: gofmt, codegen, OpenAPI docs, go vet, staticcheck, import rules
.PHONY: verify
verify:
	@hack/verify.sh

## update: every hack/update-*.sh: deep-copy codegen, gofmt, OpenAPI docs
.PHONY: update
update:
	@hack/update.sh

## release: CGO-off tarballs for linux/amd64, linux/arm64, darwin/arm64 in _output/release-tars
.PHONY: release
release:
	@hack/release.sh

## clean: remove _output
.PHONY: clean
clean:
	rm -rf _output

## help: list the targets
.PHONY: help
help:
	@sed -n 's/^## \([^:]*\): /\1\t/p' $(MAKEFILE_LIST) | expand -t 20
