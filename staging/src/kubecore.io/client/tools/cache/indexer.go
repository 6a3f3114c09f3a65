package cache

import (
	"fmt"
	"sort"
	"sync"
)

// NamespaceIndex is the name of the index every Indexer has: objects by
// namespace ("" for cluster-scoped objects).
const NamespaceIndex = "namespace"

// IndexFunc returns the index values of an object, e.g. a pod's node name.
// An object may have any number of values, none included.
type IndexFunc[T Object] func(obj T) ([]string, error)

// MetaNamespaceIndexFunc indexes an object by its namespace.
func MetaNamespaceIndexFunc[T Object](obj T) ([]string, error) {
	return []string{obj.GetNamespace()}, nil
}

// Indexer is a thread-safe store of objects by key (namespace/name) with
// secondary indexes. The objects are shared with every reader: treat them
// as read-only and DeepCopy before changing one.
type Indexer[T Object] struct {
	mu       sync.RWMutex
	items    map[string]T
	indexers map[string]IndexFunc[T]
	// indices maps index name -> index value -> set of keys.
	indices map[string]map[string]map[string]struct{}
}

// NewIndexer returns an empty Indexer with the namespace index.
func NewIndexer[T Object]() *Indexer[T] {
	return &Indexer[T]{
		items:    map[string]T{},
		indexers: map[string]IndexFunc[T]{NamespaceIndex: MetaNamespaceIndexFunc[T]},
		indices:  map[string]map[string]map[string]struct{}{NamespaceIndex: {}},
	}
}

// AddIndexers adds indexes and indexes the objects already stored. A name
// already in use is an error.
func (c *Indexer[T]) AddIndexers(indexers map[string]IndexFunc[T]) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range indexers {
		if _, ok := c.indexers[name]; ok {
			return fmt.Errorf("add indexer %q: an indexer of that name exists", name)
		}
	}
	built := make(map[string]map[string]map[string]struct{}, len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			return fmt.Errorf("add indexer %q: nil index function", name)
		}
		index := map[string]map[string]struct{}{}
		for key, obj := range c.items {
			values, err := fn(obj)
			if err != nil {
				return fmt.Errorf("add indexer %q: index %s: %w", name, key, err)
			}
			addToIndex(index, key, values)
		}
		built[name] = index
	}
	for name, fn := range indexers {
		c.indexers[name] = fn
		c.indices[name] = built[name]
	}
	return nil
}

// Add stores obj, replacing any object of the same key.
func (c *Indexer[T]) Add(obj T) error { return c.Update(obj) }

// Update stores obj, replacing any object of the same key.
func (c *Indexer[T]) Update(obj T) error {
	key := objectKey(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.put(key, obj)
	return err
}

// Delete removes the object of obj's key, if any.
func (c *Indexer[T]) Delete(obj T) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(objectKey(obj))
	return nil
}

// Replace makes items the whole content of the store. The resource
// version is that of the list the items came from; the Indexer ignores it.
// On an index error the store is left as it was.
func (c *Indexer[T]) Replace(items []T, resourceVersion string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	newItems := make(map[string]T, len(items))
	newIndices := make(map[string]map[string]map[string]struct{}, len(c.indexers))
	for name := range c.indexers {
		newIndices[name] = map[string]map[string]struct{}{}
	}
	for _, obj := range items {
		key := objectKey(obj)
		for name, fn := range c.indexers {
			values, err := fn(obj)
			if err != nil {
				return fmt.Errorf("index %q of %s: %w", name, key, err)
			}
			addToIndex(newIndices[name], key, values)
		}
		newItems[key] = obj
	}
	c.items, c.indices = newItems, newIndices
	return nil
}

// Get returns the stored object with obj's key.
func (c *Indexer[T]) Get(obj T) (item T, exists bool) { return c.GetByKey(objectKey(obj)) }

// GetByKey returns the object of a key (namespace/name or name).
func (c *Indexer[T]) GetByKey(key string) (item T, exists bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	item, exists = c.items[key]
	return item, exists
}

// Len returns the number of objects stored.
func (c *Indexer[T]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.items)
}

// List returns every object, in no particular order.
func (c *Indexer[T]) List() []T {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]T, 0, len(c.items))
	for _, obj := range c.items {
		out = append(out, obj)
	}
	return out
}

// ListKeys returns every key, sorted.
func (c *Indexer[T]) ListKeys() []string {
	c.mu.RLock()
	keys := make([]string, 0, len(c.items))
	for key := range c.items {
		keys = append(keys, key)
	}
	c.mu.RUnlock()
	sort.Strings(keys)
	return keys
}

// ByIndex returns the objects whose index indexName has the value value.
func (c *Indexer[T]) ByIndex(indexName, value string) ([]T, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	index, ok := c.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	keys := index[value]
	out := make([]T, 0, len(keys))
	for key := range keys {
		out = append(out, c.items[key])
	}
	return out, nil
}

// IndexKeys returns the sorted keys of the objects whose index indexName
// has the value value.
func (c *Indexer[T]) IndexKeys(indexName, value string) ([]string, error) {
	c.mu.RLock()
	index, ok := c.indices[indexName]
	if !ok {
		c.mu.RUnlock()
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	keys := make([]string, 0, len(index[value]))
	for key := range index[value] {
		keys = append(keys, key)
	}
	c.mu.RUnlock()
	sort.Strings(keys)
	return keys, nil
}

// Index returns the objects that share an index value with obj.
func (c *Indexer[T]) Index(indexName string, obj T) ([]T, error) {
	c.mu.RLock()
	fn, ok := c.indexers[indexName]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, fmt.Errorf("index %q of %s: %w", indexName, objectKey(obj), err)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	seen := map[string]struct{}{}
	var out []T
	for _, v := range values {
		for key := range c.indices[indexName][v] {
			if _, dup := seen[key]; dup {
				continue
			}
			seen[key] = struct{}{}
			out = append(out, c.items[key])
		}
	}
	return out, nil
}

// ListIndexFuncValues returns the values index indexName holds.
func (c *Indexer[T]) ListIndexFuncValues(indexName string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	values := make([]string, 0, len(c.indices[indexName]))
	for v := range c.indices[indexName] {
		values = append(values, v)
	}
	sort.Strings(values)
	return values
}

// put stores obj under key and reindexes it, returning the object it
// replaced. c.mu is held. On an index error the object is not stored.
func (c *Indexer[T]) put(key string, obj T) (old T, err error) {
	values := make(map[string][]string, len(c.indexers))
	for name, fn := range c.indexers {
		v, err := fn(obj)
		if err != nil {
			return old, fmt.Errorf("index %q of %s: %w", name, key, err)
		}
		values[name] = v
	}
	old, existed := c.items[key]
	if existed {
		c.unindex(key, old)
	}
	c.items[key] = obj
	for name, v := range values {
		addToIndex(c.indices[name], key, v)
	}
	return old, nil
}

// remove deletes key and returns the object it held. c.mu is held.
func (c *Indexer[T]) remove(key string) (old T, existed bool) {
	old, existed = c.items[key]
	if existed {
		c.unindex(key, old)
		delete(c.items, key)
	}
	return old, existed
}

func addToIndex(index map[string]map[string]struct{}, key string, values []string) {
	for _, v := range values {
		set := index[v]
		if set == nil {
			set = map[string]struct{}{}
			index[v] = set
		}
		set[key] = struct{}{}
	}
}

func (c *Indexer[T]) unindex(key string, obj T) {
	for name, fn := range c.indexers {
		values, err := fn(obj)
		if err != nil {
			continue // it was never indexed
		}
		index := c.indices[name]
		for _, v := range values {
			if set := index[v]; set != nil {
				delete(set, key)
				if len(set) == 0 {
					delete(index, v)
				}
			}
		}
	}
}
