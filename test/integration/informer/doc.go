// Package informer tests the client framework's informers against an
// in-process API server and embedded etcd: every change seen, restarts, 410s.
package informer
