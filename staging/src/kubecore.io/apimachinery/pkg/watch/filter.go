package watch

import "sync"

// FilterFunc transforms an event and says whether to keep it.
type FilterFunc func(in Event) (out Event, keep bool)

// Filter returns a watch passing the events of w through f. Stopping it
// stops w.
func Filter(w Interface, f FilterFunc) Interface {
	fw := &filteredWatch{incoming: w, result: make(chan Event), done: make(chan struct{}), f: f}
	go fw.loop()
	return fw
}

type filteredWatch struct {
	incoming Interface
	result   chan Event
	done     chan struct{}
	once     sync.Once
	f        FilterFunc
}

var _ Interface = (*filteredWatch)(nil)

func (fw *filteredWatch) ResultChan() <-chan Event { return fw.result }

func (fw *filteredWatch) Stop() {
	fw.once.Do(func() {
		close(fw.done)
		fw.incoming.Stop()
	})
}

func (fw *filteredWatch) loop() {
	defer close(fw.result)
	in := fw.incoming.ResultChan()
	for {
		select {
		case <-fw.done:
			return
		case ev, ok := <-in:
			if !ok {
				return
			}
			out, keep := fw.f(ev)
			if !keep {
				continue
			}
			select {
			case fw.result <- out:
			case <-fw.done:
				return
			}
		}
	}
}
