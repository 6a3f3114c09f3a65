package workqueue

// minFIFOCap is the smallest ring the fifo allocates; a power of two.
const minFIFOCap = 16

// fifo is a growable ring buffer of items in arrival order. Its capacity is
// always zero or a power of two, so that positions wrap with a mask.
type fifo[T any] struct {
	buf  []T
	head int // position of the oldest item
	n    int // number of items
}

func (f *fifo[T]) len() int { return f.n }

func (f *fifo[T]) push(item T) {
	if f.n == len(f.buf) {
		f.resize(max(2*len(f.buf), minFIFOCap))
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = item
	f.n++
}

// pop removes and returns the oldest item; the fifo must not be empty.
func (f *fifo[T]) pop() T {
	var zero T
	item := f.buf[f.head]
	f.buf[f.head] = zero // let the garbage collector have what the item points to
	f.head = (f.head + 1) & (len(f.buf) - 1)
	f.n--
	// Give memory back after a burst, keeping room to grow again cheaply.
	if len(f.buf) > 4*minFIFOCap && f.n < len(f.buf)/4 {
		f.resize(len(f.buf) / 2)
	}
	return item
}

// resize moves the items, oldest first, into a new ring of size capacity.
func (f *fifo[T]) resize(capacity int) {
	buf := make([]T, capacity)
	if f.n > 0 {
		end := f.head + f.n
		if end <= len(f.buf) {
			copy(buf, f.buf[f.head:end])
		} else {
			k := copy(buf, f.buf[f.head:])
			copy(buf[k:], f.buf[:end-len(f.buf)])
		}
	}
	f.buf = buf
	f.head = 0
}
