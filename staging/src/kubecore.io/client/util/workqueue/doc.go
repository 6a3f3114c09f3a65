// Package workqueue holds the deduplicating, delaying and rate-limited queues
// that controllers, the scheduler and the kubelet pull object keys from.
package workqueue
