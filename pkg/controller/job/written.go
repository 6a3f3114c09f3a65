package job

import (
	"strconv"
	"sync"
)

// writtenVersions remembers, per Job, the resourceVersion of the last
// status the controller wrote until the informer shows that version (or
// a later one). A sync from an older cached Job would count too few
// finished pods (their finalizers are already gone) and create pods
// again, so it waits for the cache instead.
type writtenVersions struct {
	mu sync.Mutex
	m  map[string]uint64
}

// wrote records that key's Job was written at resourceVersion rv.
func (w *writtenVersions) wrote(key, rv string) {
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return // not an etcd revision: nothing to compare with
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.m[key] = v
}

// observed reports whether a cached Job of key at resourceVersion rv is at
// least as new as the last write, forgetting the write once it is.
func (w *writtenVersions) observed(key, rv string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	want, ok := w.m[key]
	if !ok {
		return true
	}
	if v, err := strconv.ParseUint(rv, 10, 64); err == nil && v < want {
		return false
	}
	delete(w.m, key)
	return true
}

func (w *writtenVersions) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}
