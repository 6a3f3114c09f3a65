// Package servicenet tests Services and cluster DNS across hosts (network
// namespaces on one bridge): an all-in-one with the service proxy and the
// cluster DNS on one host, a kubelet with its proxy on another, and
// connections and lookups through cluster IPs. BenchmarkServiceNetwork
// prints the figures on that path: Service create to first connection,
// DNS p99 over 1,000 queries, and connections/s through a cluster IP
// beside direct. It needs root and ip(8).
package servicenet
