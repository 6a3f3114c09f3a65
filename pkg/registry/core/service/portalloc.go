package service

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/storage"
)

// rangeAllocation is the stored state of the node port range: a bitmap
// of the allocated ports, written with a compare-and-swap on its
// resourceVersion, as Kubernetes keeps it at /registry/ranges/servicenodeports.
type rangeAllocation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	// Range is the port range the bitmap covers ("30000-32767").
	Range string `json:"range"`
	// Data holds a bit per port of the range, the first port in the
	// lowest bit of the first byte.
	Data []byte `json:"data"`
}

var _ runtime.Object = (*rangeAllocation)(nil)

// DeepCopyObject implements runtime.Object.
func (r *rangeAllocation) DeepCopyObject() runtime.Object {
	c := *r
	r.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Data = append([]byte(nil), r.Data...)
	return &c
}

func (r *rangeAllocation) has(i int) bool { return i/8 < len(r.Data) && r.Data[i/8]&(1<<(i%8)) != 0 }
func (r *rangeAllocation) set(i int)      { r.Data[i/8] |= 1 << (i % 8) }
func (r *rangeAllocation) clear(i int)    { r.Data[i/8] &^= 1 << (i % 8) }

// nodePortsKey is where the node port bitmap is stored, below the
// storage prefix.
const nodePortsKey = "/ranges/servicenodeports"

// portAllocator hands out the node ports of a range. Its state is the
// bitmap in etcd: every change is a compare-and-swap, so several API
// servers never hand out one port twice.
type portAllocator struct {
	base, size int
	storage    storage.Interface
}

func newPortAllocator(base, size int, st storage.Interface) *portAllocator {
	return &portAllocator{base: base, size: size, storage: st}
}

func (a *portAllocator) rangeString() string {
	return strconv.Itoa(a.base) + "-" + strconv.Itoa(a.base+a.size-1)
}

// update applies f to the current bitmap (an empty one when there is
// none, or when it covers another range) and stores the result.
func (a *portAllocator) update(ctx context.Context, f func(r *rangeAllocation) error) error {
	_, err := a.storage.GuaranteedUpdate(ctx, nodePortsKey, nil, true, func(cur runtime.Object) (runtime.Object, error) {
		r, _ := cur.(*rangeAllocation)
		if r == nil || r.Range != a.rangeString() || len(r.Data) != (a.size+7)/8 {
			fresh := &rangeAllocation{Range: a.rangeString(), Data: make([]byte, (a.size+7)/8)}
			if r != nil {
				fresh.ObjectMeta = r.ObjectMeta
			}
			r = fresh
		} else {
			r = r.DeepCopyObject().(*rangeAllocation)
		}
		r.TypeMeta = metav1.TypeMeta{Kind: "RangeAllocation", APIVersion: "v1"}
		if err := f(r); err != nil {
			return nil, err
		}
		return r, nil
	}, nil)
	return err
}

// snapshot returns the stored bitmap, nil when there is none yet.
func (a *portAllocator) snapshot(ctx context.Context) (*rangeAllocation, error) {
	obj, err := a.storage.Get(ctx, nodePortsKey, storage.GetOptions{IgnoreNotFound: true})
	if err != nil {
		return nil, err
	}
	r, _ := obj.(*rangeAllocation)
	if r == nil || r.Range != a.rangeString() {
		return nil, nil
	}
	return r, nil
}

var errPortAllocated = errors.New("provided port is already allocated")

// Allocate reserves port, which must be in the range and free. With
// dryRun it only checks.
func (a *portAllocator) Allocate(ctx context.Context, port int, dryRun bool) error {
	if port < a.base || port >= a.base+a.size {
		return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", a.base, a.base+a.size-1)
	}
	i := port - a.base
	if dryRun {
		r, err := a.snapshot(ctx)
		if err != nil {
			return err
		}
		if r != nil && r.has(i) {
			return errPortAllocated
		}
		return nil
	}
	return a.update(ctx, func(r *rangeAllocation) error {
		if r.has(i) {
			return errPortAllocated
		}
		r.set(i)
		return nil
	})
}

// AllocateNext reserves a free port, looking from a random one. With
// dryRun it only finds one.
func (a *portAllocator) AllocateNext(ctx context.Context, dryRun bool) (int, error) {
	start := rand.IntN(a.size)
	find := func(r *rangeAllocation) int {
		for k := range a.size {
			if i := (start + k) % a.size; r == nil || !r.has(i) {
				return i
			}
		}
		return -1
	}
	if dryRun {
		r, err := a.snapshot(ctx)
		if err != nil {
			return 0, err
		}
		if i := find(r); i >= 0 {
			return a.base + i, nil
		}
		return 0, errRangeFull
	}
	var got int
	err := a.update(ctx, func(r *rangeAllocation) error {
		i := find(r)
		if i < 0 {
			return errRangeFull
		}
		r.set(i)
		got = a.base + i
		return nil
	})
	return got, err
}

// Release frees port.
func (a *portAllocator) Release(ctx context.Context, port int) error {
	if port < a.base || port >= a.base+a.size {
		return nil
	}
	return a.update(ctx, func(r *rangeAllocation) error {
		r.clear(port - a.base)
		return nil
	})
}
