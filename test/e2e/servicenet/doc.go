// Package servicenet tests Services and cluster DNS across hosts (network
// namespaces on one bridge): an all-in-one with the service proxy and the
// cluster DNS on one host, a kubelet with its proxy on another, and
// connections and lookups through cluster IPs. It needs root and ip(8).
package servicenet
