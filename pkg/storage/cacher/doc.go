// Package cacher is the watch cache: a storage.Interface decorator that keeps
// one resource's objects and recent events in memory, fed by one watch.
package cacher
