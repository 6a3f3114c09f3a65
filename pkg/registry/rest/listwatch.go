package rest

// ListerWatcher is a storage that lists and watches.
type ListerWatcher interface {
	Lister
	Watcher
}
