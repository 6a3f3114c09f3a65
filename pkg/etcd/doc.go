// Package etcd runs an embedded etcd member (go.etcd.io/etcd/server/v3/embed)
// for the apiserver, all-in-one and `kubecore etcd`, with its logs in klog.
package etcd
