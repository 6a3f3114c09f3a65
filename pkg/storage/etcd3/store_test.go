package etcd3

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/storage"
)

func TestNewValidates(t *testing.T) {
	if _, err := New(Config{NewFunc: func() runtime.Object { return &widget{} }}); err == nil {
		t.Error("New without a client: want an error")
	}
	if _, err := New(Config{Client: testClient}); err == nil {
		t.Error("New without NewFunc: want an error")
	}
}

func TestCreateAndGet(t *testing.T) {
	s, prefix := newTestStore(t, testClient)
	ctx := ctxT(t)
	created := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	rev, err := strconv.ParseInt(created.ResourceVersion, 10, 64)
	if err != nil || rev <= 0 {
		t.Fatalf("created resourceVersion %q", created.ResourceVersion)
	}

	// Stored as JSON without resourceVersion, under the prefix.
	raw, err := testClient.Get(ctx, prefix+"/widgets/default/a")
	if err != nil || len(raw.Kvs) != 1 {
		t.Fatalf("raw get: %v %v", raw, err)
	}
	if got := string(raw.Kvs[0].Value); strings.Contains(got, "resourceVersion") || !strings.Contains(got, `"name":"a"`) {
		t.Errorf("stored %s", got)
	}
	if raw.Kvs[0].ModRevision != rev {
		t.Errorf("mod revision %d, resourceVersion %d", raw.Kvs[0].ModRevision, rev)
	}

	if _, err := s.Create(ctx, "/widgets/default/a", newWidget("a", nil)); !storage.IsExist(err) {
		t.Errorf("second create: %v, want KeyExists", err)
	}
	withRV := newWidget("b", nil)
	withRV.ResourceVersion = "5"
	if _, err := s.Create(ctx, "/widgets/default/b", withRV); !storage.IsInvalidObj(err) {
		t.Errorf("create with resourceVersion: %v, want InvalidObj", err)
	}
	for _, bad := range []string{"", "widgets/a", "/widgets/../x", "/widgets//a"} {
		if _, err := s.Create(ctx, bad, newWidget("x", nil)); !storage.IsInvalidObj(err) {
			t.Errorf("create at %q: %v, want InvalidObj", bad, err)
		}
	}

	tests := []struct {
		name     string
		key      string
		opts     storage.GetOptions
		wantCode storage.ErrorCode
		wantName string
	}{
		{name: "latest", key: "/widgets/default/a", wantName: "a"},
		{name: "any", key: "/widgets/default/a", opts: storage.GetOptions{ResourceVersion: "0"}, wantName: "a"},
		{name: "at least created", key: "/widgets/default/a", opts: storage.GetOptions{ResourceVersion: created.ResourceVersion}, wantName: "a"},
		{name: "future", key: "/widgets/default/a", opts: storage.GetOptions{ResourceVersion: strconv.FormatInt(rev+1000, 10)}, wantCode: storage.ErrCodeTooLargeResourceVersion},
		{name: "bad version", key: "/widgets/default/a", opts: storage.GetOptions{ResourceVersion: "abc"}, wantCode: storage.ErrCodeInvalidObj},
		{name: "missing", key: "/widgets/default/none", wantCode: storage.ErrCodeKeyNotFound},
		{name: "missing ignored", key: "/widgets/default/none", opts: storage.GetOptions{IgnoreNotFound: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := s.Get(ctx, tt.key, tt.opts)
			if tt.wantCode != 0 {
				if !hasCode(err, tt.wantCode) {
					t.Fatalf("err %v, want code %d", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := obj.(*widget)
			if w.Name != tt.wantName {
				t.Errorf("name %q, want %q", w.Name, tt.wantName)
			}
			if tt.wantName != "" && w.ResourceVersion != created.ResourceVersion {
				t.Errorf("resourceVersion %q, want %q", w.ResourceVersion, created.ResourceVersion)
			}
		})
	}
}

func TestCurrentResourceVersion(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	created := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	cur, err := s.CurrentResourceVersion(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	rv, _ := strconv.ParseUint(created.ResourceVersion, 10, 64)
	if cur < rv {
		t.Errorf("current revision %d older than a write at %d", cur, rv)
	}
}

func increment(current runtime.Object) (runtime.Object, error) {
	w := current.(*widget)
	w.Spec.Count++
	return w, nil
}

func TestGuaranteedUpdate(t *testing.T) {
	errBoom := errors.New("boom")
	otherUID := types.UID("someone-else")
	tests := []struct {
		name          string
		exists        bool
		preconditions func(cur *widget) *storage.Preconditions
		ignoreMissing bool
		tryUpdate     storage.UpdateFunc
		staleCache    bool
		wantCount     int
		wantSameRV    bool
		wantErr       func(error) bool
		wantDetail    string
	}{
		{name: "increment", exists: true, tryUpdate: increment, wantCount: 1},
		{name: "unchanged is not written", exists: true, tryUpdate: func(c runtime.Object) (runtime.Object, error) { return c, nil }, wantSameRV: true},
		{name: "stale cached object is retried", exists: true, staleCache: true, tryUpdate: increment, wantCount: 2},
		{name: "uid precondition holds", exists: true, preconditions: func(cur *widget) *storage.Preconditions {
			return &storage.Preconditions{UID: &cur.UID}
		}, tryUpdate: increment, wantCount: 1},
		{name: "uid precondition fails", exists: true, preconditions: func(*widget) *storage.Preconditions {
			return &storage.Preconditions{UID: &otherUID}
		}, tryUpdate: increment, wantErr: storage.IsConflict, wantDetail: "Precondition failed: UID in precondition: someone-else, UID in object meta: uid-a"},
		{name: "stale resourceVersion conflicts", exists: true, preconditions: func(*widget) *storage.Preconditions {
			rv := "1"
			return &storage.Preconditions{ResourceVersion: &rv}
		}, tryUpdate: increment, wantErr: storage.IsConflict, wantDetail: "Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: "},
		{name: "update error passes through", exists: true, tryUpdate: func(runtime.Object) (runtime.Object, error) { return nil, errBoom },
			wantErr: func(err error) bool { return errors.Is(err, errBoom) }},
		{name: "missing", tryUpdate: increment, wantErr: storage.IsNotFound},
		{name: "missing is created", ignoreMissing: true, tryUpdate: func(c runtime.Object) (runtime.Object, error) {
			if c != nil {
				return nil, errors.New("want nil current")
			}
			w := newWidget("a", nil)
			w.Spec.Count = 7
			return w, nil
		}, wantCount: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(t, testClient)
			ctx := ctxT(t)
			key := "/widgets/default/a"
			var cur *widget
			if tt.exists {
				cur = mustCreate(t, s, key, newWidget("a", nil))
			}
			var cached runtime.Object
			if tt.staleCache {
				cached = cur.DeepCopyObject()
				if _, err := s.GuaranteedUpdate(ctx, key, nil, false, increment, nil); err != nil {
					t.Fatal(err)
				}
			}
			var pre *storage.Preconditions
			if tt.preconditions != nil {
				pre = tt.preconditions(cur)
			}
			out, err := s.GuaranteedUpdate(ctx, key, pre, tt.ignoreMissing, tt.tryUpdate, cached)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("err %v", err)
				}
				var se *storage.StorageError
				if tt.wantDetail != "" && (!errors.As(err, &se) || !strings.HasPrefix(se.Detail, tt.wantDetail)) {
					t.Errorf("detail of %v, want %q", err, tt.wantDetail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := out.(*widget)
			if w.Spec.Count != tt.wantCount {
				t.Errorf("count %d, want %d", w.Spec.Count, tt.wantCount)
			}
			if tt.wantSameRV != (cur != nil && w.ResourceVersion == cur.ResourceVersion) {
				t.Errorf("resourceVersion %q (created %v), same wanted: %v", w.ResourceVersion, cur, tt.wantSameRV)
			}
			got, err := s.Get(ctx, key, storage.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if g := got.(*widget); g.ResourceVersion != w.ResourceVersion || g.Spec.Count != w.Spec.Count {
				t.Errorf("stored %+v, returned %+v", g, w)
			}
		})
	}
}

// TestGuaranteedUpdateConcurrent: eight writers incrementing one counter
// lose no update.
func TestGuaranteedUpdateConcurrent(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	key := "/widgets/default/counter"
	mustCreate(t, s, key, newWidget("counter", nil))
	const writers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := s.GuaranteedUpdate(ctx, key, nil, false, increment, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, key, storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := got.(*widget).Spec.Count; n != writers*each {
		t.Errorf("count %d, want %d", n, writers*each)
	}
}

func TestDelete(t *testing.T) {
	otherUID := types.UID("someone-else")
	errNo := errors.New("not allowed")
	tests := []struct {
		name       string
		exists     bool
		pre        *storage.Preconditions
		validate   storage.ValidateObjectFunc
		staleCache bool
		wantErr    func(error) bool
	}{
		{name: "delete", exists: true},
		{name: "stale cached object", exists: true, staleCache: true},
		{name: "missing", wantErr: storage.IsNotFound},
		{name: "uid precondition fails", exists: true, pre: &storage.Preconditions{UID: &otherUID}, wantErr: storage.IsConflict},
		{name: "validation refuses", exists: true, validate: func(_ context.Context, _ runtime.Object) error { return errNo },
			wantErr: func(err error) bool { return errors.Is(err, errNo) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestStore(t, testClient)
			ctx := ctxT(t)
			key := "/widgets/default/a"
			var cur *widget
			if tt.exists {
				cur = mustCreate(t, s, key, newWidget("a", nil))
			}
			var cached runtime.Object
			if tt.staleCache {
				cached = cur.DeepCopyObject()
				if _, err := s.GuaranteedUpdate(ctx, key, nil, false, increment, nil); err != nil {
					t.Fatal(err)
				}
			}
			out, err := s.Delete(ctx, key, tt.pre, tt.validate, cached)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("err %v", err)
				}
				if tt.exists {
					if _, err := s.Get(ctx, key, storage.GetOptions{}); err != nil {
						t.Errorf("object gone after a refused delete: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := out.(*widget)
			if w.Name != "a" || mustAtoi(t, w.ResourceVersion) <= mustAtoi(t, cur.ResourceVersion) {
				t.Errorf("last state %+v (created at %s)", w, cur.ResourceVersion)
			}
			if tt.staleCache && w.Spec.Count != 1 {
				t.Errorf("last state count %d, want the fresh state (1)", w.Spec.Count)
			}
			if _, err := s.Get(ctx, key, storage.GetOptions{}); !storage.IsNotFound(err) {
				t.Errorf("get after delete: %v", err)
			}
		})
	}
}
