package namespace

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/discovery"
)

type fakeDisco struct {
	lists []*metav1.APIResourceList
	err   error
}

func (f fakeDisco) ServerPreferredResources(context.Context) ([]*metav1.APIResourceList, error) {
	return f.lists, f.err
}

// fakeContent holds objects per resource; DeleteCollection and Delete
// remove those without finalizers and mark the others.
type fakeContent struct {
	mu        sync.Mutex
	objs      map[schema.GroupVersionResource][]metav1.PartialObjectMetadata
	noCollect bool
	deleteErr error
	calls     []string
}

func (f *fakeContent) remove(gvr schema.GroupVersionResource, keep func(metav1.PartialObjectMetadata) bool) {
	var left []metav1.PartialObjectMetadata
	for _, o := range f.objs[gvr] {
		if keep(o) {
			if o.DeletionTimestamp == nil {
				now := metav1.NewTime(time.Unix(1000, 0))
				o.DeletionTimestamp = &now
			}
			left = append(left, o)
		}
	}
	f.objs[gvr] = left
}

func (f *fakeContent) DeleteCollection(_ context.Context, gvr schema.GroupVersionResource, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "deletecollection "+gvr.Resource)
	if f.noCollect {
		return apierrors.NewMethodNotSupported(gvr.GroupResource(), "deletecollection")
	}
	f.remove(gvr, func(o metav1.PartialObjectMetadata) bool { return len(o.Finalizers) > 0 })
	return nil
}

func (f *fakeContent) List(_ context.Context, gvr schema.GroupVersionResource, _ string) ([]metav1.PartialObjectMetadata, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]metav1.PartialObjectMetadata(nil), f.objs[gvr]...), nil
}

func (f *fakeContent) Delete(_ context.Context, gvr schema.GroupVersionResource, _, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "delete "+gvr.Resource+" "+name)
	if f.deleteErr != nil {
		return f.deleteErr
	}
	f.remove(gvr, func(o metav1.PartialObjectMetadata) bool { return o.Name != name || len(o.Finalizers) > 0 })
	return nil
}

var (
	podsGVR    = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deploysGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

func obj(name string, finalizers ...string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers}}
}

func discovered() []*metav1.APIResourceList {
	all := metav1.Verbs{"get", "list", "delete", "deletecollection"}
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Namespaced: true, Verbs: all},
			{Name: "pods/status", Namespaced: true, Verbs: metav1.Verbs{"get", "update"}},
			{Name: "nodes", Verbs: all},
			{Name: "bindings", Namespaced: true, Verbs: metav1.Verbs{"create"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Namespaced: true, Verbs: metav1.Verbs{"list", "delete"}},
		}},
		{GroupVersion: "bad/group/v1", APIResources: []metav1.APIResource{{Name: "x", Namespaced: true, Verbs: all}}},
	}
}

func TestDeletableResources(t *testing.T) {
	got, errs := deletableResources(discovered())
	want := []target{{gvr: podsGVR, deleteCollection: true}, {gvr: deploysGVR}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("targets = %+v, want %+v", got, want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "bad/group/v1") {
		t.Errorf("errors = %v, want one for bad/group/v1", errs)
	}
}

func TestDeleteContent(t *testing.T) {
	tests := []struct {
		name          string
		objs          map[schema.GroupVersionResource][]metav1.PartialObjectMetadata
		noCollect     bool
		deleteErr     error
		discoErr      error
		wantRemaining map[schema.GroupVersionResource]int
		wantFinal     map[string]int
		wantCond      map[corev1.NamespaceConditionType]string // type -> reason
		// wantKept are objects not even marked for deletion.
		wantKept map[schema.GroupVersionResource]int
		wantErr  bool
	}{
		{
			name: "everything goes",
			objs: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				podsGVR: {obj("a"), obj("b")}, deploysGVR: {obj("d")},
			},
			wantCond: map[corev1.NamespaceConditionType]string{
				corev1.NamespaceContentRemaining: "ContentRemoved", corev1.NamespaceDeletionContentFailure: "ContentDeleted",
				corev1.NamespaceDeletionGVParsingFailure: "GroupVersionParsingFailed",
			},
			wantErr: true, // the bad group version
		},
		{
			// A pod held by a finalizer keeps every other object: pods go
			// first and the rest only after them.
			name: "a pod held keeps the rest",
			objs: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				podsGVR: {obj("a", "example.com/hold"), obj("b")}, deploysGVR: {obj("d")},
			},
			wantRemaining: map[schema.GroupVersionResource]int{podsGVR: 1},
			wantFinal:     map[string]int{"example.com/hold": 1},
			wantKept:      map[schema.GroupVersionResource]int{deploysGVR: 1},
			wantCond: map[corev1.NamespaceConditionType]string{
				corev1.NamespaceContentRemaining: "SomeResourcesRemain", corev1.NamespaceFinalizersRemaining: "SomeFinalizerRemain",
			},
			wantErr: true,
		},
		{
			name: "finalizers hold objects",
			objs: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				podsGVR: {obj("b")}, deploysGVR: {obj("d", "example.com/hold", "other")},
			},
			wantRemaining: map[schema.GroupVersionResource]int{deploysGVR: 1},
			wantFinal:     map[string]int{"example.com/hold": 1, "other": 1},
			wantCond: map[corev1.NamespaceConditionType]string{
				corev1.NamespaceContentRemaining: "SomeResourcesRemain", corev1.NamespaceFinalizersRemaining: "SomeFinalizerRemain",
			},
			wantErr: true,
		},
		{
			name:      "delete collection unsupported falls back",
			noCollect: true,
			objs:      map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{podsGVR: {obj("a")}},
			wantErr:   true,
		},
		{
			name:          "delete errors are reported",
			deleteErr:     errors.New("boom"),
			objs:          map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{deploysGVR: {obj("d")}},
			wantRemaining: map[schema.GroupVersionResource]int{deploysGVR: 1},
			wantCond:      map[corev1.NamespaceConditionType]string{corev1.NamespaceDeletionContentFailure: "ContentDeletionFailed"},
			wantErr:       true,
		},
		{
			name:     "partial discovery",
			discoErr: &discovery.GroupDiscoveryFailedError{Groups: map[schema.GroupVersion]error{{Group: "x", Version: "v1"}: errors.New("down")}},
			wantCond: map[corev1.NamespaceConditionType]string{corev1.NamespaceDeletionDiscoveryFailure: "DiscoveryFailed"},
			wantErr:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := &fakeContent{objs: tt.objs, noCollect: tt.noCollect, deleteErr: tt.deleteErr}
			if content.objs == nil {
				content.objs = map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{}
			}
			d := &contentDeleter{disco: fakeDisco{lists: discovered(), err: tt.discoErr}, content: content, now: func() time.Time { return time.Unix(990, 0) }}
			res := d.deleteContent(context.Background(), "ns")
			if len(res.remaining) != len(tt.wantRemaining) {
				t.Errorf("remaining = %v, want %v", res.remaining, tt.wantRemaining)
			}
			for gvr, n := range tt.wantRemaining {
				if res.remaining[gvr] != n {
					t.Errorf("remaining[%s] = %d, want %d", gvr, res.remaining[gvr], n)
				}
			}
			for gvr, n := range tt.wantKept {
				kept := 0
				for _, o := range content.objs[gvr] {
					if o.DeletionTimestamp == nil {
						kept++
					}
				}
				if kept != n {
					t.Errorf("%d %s untouched, want %d (calls %v)", kept, gvr.Resource, n, content.calls)
				}
			}
			for f, n := range tt.wantFinal {
				if res.finalizers[f] != n {
					t.Errorf("finalizers[%s] = %d, want %d", f, res.finalizers[f], n)
				}
			}
			if (res.err() != nil) != tt.wantErr {
				t.Errorf("err = %v, want error %v", res.err(), tt.wantErr)
			}
			conds := res.conditions(time.Unix(0, 0))
			if len(conds) != 5 {
				t.Fatalf("%d conditions, want 5", len(conds))
			}
			for typ, reason := range tt.wantCond {
				for _, c := range conds {
					if c.Type == typ && c.Reason != reason {
						t.Errorf("condition %s reason %q (%s), want %q", typ, c.Reason, c.Message, reason)
					}
				}
			}
			if tt.noCollect {
				for _, c := range content.calls {
					if c == "delete pods a" {
						return
					}
				}
				t.Errorf("calls %v, want a single delete after deletecollection failed", content.calls)
			}
		})
	}
}

func TestConditionMessages(t *testing.T) {
	r := &result{
		remaining:  map[schema.GroupVersionResource]int{podsGVR: 2, deploysGVR: 1},
		finalizers: map[string]int{"b/f": 1, "a/f": 3},
		estimate:   30 * time.Second,
	}
	msgs := map[corev1.NamespaceConditionType]string{}
	for _, c := range r.conditions(time.Unix(0, 0)) {
		msgs[c.Type] = c.Message
	}
	if got, want := msgs[corev1.NamespaceContentRemaining], "Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances"; got != want {
		t.Errorf("content message %q, want %q", got, want)
	}
	if got, want := msgs[corev1.NamespaceFinalizersRemaining], "Some finalizers are remaining: a/f in 3 resource instances, b/f in 1 resource instances"; got != want {
		t.Errorf("finalizer message %q, want %q", got, want)
	}
	if got := r.requeueAfter(); got != 16*time.Second {
		t.Errorf("requeueAfter = %v, want 16s", got)
	}
}

func TestSetConditions(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	status := &corev1.NamespaceStatus{Conditions: []corev1.NamespaceCondition{
		{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "a", LastTransitionTime: t0},
	}}
	same := []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "a", LastTransitionTime: t1}}
	if setConditions(status, same) {
		t.Error("identical condition reported a change")
	}
	msg := []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "b", LastTransitionTime: t1}}
	if !setConditions(status, msg) || status.Conditions[0].Message != "b" || !status.Conditions[0].LastTransitionTime.Equal(&t0) {
		t.Errorf("message change: %+v, want message b with the old transition time", status.Conditions[0])
	}
	flip := []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionFalse, Reason: "ContentRemoved", LastTransitionTime: t1}}
	if !setConditions(status, flip) || !status.Conditions[0].LastTransitionTime.Equal(&t1) {
		t.Errorf("status flip: %+v, want the new transition time", status.Conditions[0])
	}
}
