// Package network tests the pod network end to end: two hosts (network
// namespaces on one machine, as in test/e2e/ha) run an all-in-one and a
// kubelet with --pod-network=bridge; pods on both reach each other by pod
// IP, two pods of one node listen on the same port, a restarted kubelet
// keeps a pod reachable, traffic leaving the cluster is masqueraded, and a
// removed Node's route goes. It needs root, ip(8) and nsenter(1).
package network
