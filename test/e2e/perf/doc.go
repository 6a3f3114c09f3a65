// Package perf holds the benchmarks of the built binary run as its own
// process: start-up, throughput, latency and memory, each figure printed
// beside its target by `make bench`.
package perf
