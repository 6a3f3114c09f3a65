package queue

import "container/heap"

// keyedHeap is a heap of items that can be found, updated and removed by
// key.
type keyedHeap[T any] struct {
	items []T
	index map[string]int
	key   func(T) string
	less  func(a, b T) bool
}

func newKeyedHeap[T any](key func(T) string, less func(a, b T) bool) *keyedHeap[T] {
	return &keyedHeap[T]{index: map[string]int{}, key: key, less: less}
}

// inner adapts keyedHeap to container/heap.
type inner[T any] struct{ h *keyedHeap[T] }

func (x inner[T]) Len() int           { return len(x.h.items) }
func (x inner[T]) Less(i, j int) bool { return x.h.less(x.h.items[i], x.h.items[j]) }
func (x inner[T]) Swap(i, j int) {
	h := x.h
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.index[h.key(h.items[i])] = i
	h.index[h.key(h.items[j])] = j
}
func (x inner[T]) Push(v any) {
	h := x.h
	h.index[h.key(v.(T))] = len(h.items)
	h.items = append(h.items, v.(T))
}
func (x inner[T]) Pop() any {
	h := x.h
	n := len(h.items) - 1
	v := h.items[n]
	var zero T
	h.items[n] = zero
	h.items = h.items[:n]
	delete(h.index, h.key(v))
	return v
}

func (h *keyedHeap[T]) Len() int { return len(h.items) }

// AddOrUpdate inserts v or replaces the item with v's key.
func (h *keyedHeap[T]) AddOrUpdate(v T) {
	if i, ok := h.index[h.key(v)]; ok {
		h.items[i] = v
		heap.Fix(inner[T]{h}, i)
		return
	}
	heap.Push(inner[T]{h}, v)
}

// Get returns the item with key.
func (h *keyedHeap[T]) Get(key string) (T, bool) {
	if i, ok := h.index[key]; ok {
		return h.items[i], true
	}
	var zero T
	return zero, false
}

// Delete removes the item with key and reports whether it was there.
func (h *keyedHeap[T]) Delete(key string) bool {
	i, ok := h.index[key]
	if !ok {
		return false
	}
	heap.Remove(inner[T]{h}, i)
	return true
}

// Peek returns the least item.
func (h *keyedHeap[T]) Peek() (T, bool) {
	if len(h.items) == 0 {
		var zero T
		return zero, false
	}
	return h.items[0], true
}

// Pop removes and returns the least item.
func (h *keyedHeap[T]) Pop() (T, bool) {
	if len(h.items) == 0 {
		var zero T
		return zero, false
	}
	return heap.Pop(inner[T]{h}).(T), true
}
