// Package etcd3 implements storage.Interface on an etcd v3 cluster through
// clientv3: JSON values, transactions on mod revisions, and watches.
package etcd3
