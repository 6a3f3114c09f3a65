// Package watch checks watches on every resource discovery lists, built-in
// and custom, in JSON and protobuf: bookmarks and every other event encode
// with the served apiVersion and kind, streaming lists end with their
// annotated bookmark, and the stock client-go informers never relist.
package watch

// Each test starts an etcd of its own (startServer).
