// Package ha tests kubecore spread over several hosts (network namespaces on
// one machine): an etcd cluster, two of each control-plane component, and
// failover when members are killed. It needs root and ip(8).
package ha
