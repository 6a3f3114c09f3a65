package garbagecollector

import (
	"slices"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

var (
	rsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

type objOpt func(*metav1.PartialObjectMetadata)

func mkObj(uid string, opts ...objOpt) *metav1.PartialObjectMetadata {
	o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: uid, UID: types.UID(uid), ResourceVersion: "1"}}
	for _, f := range opts {
		f(o)
	}
	return o
}

func ownedBy(uid string, block bool) objOpt {
	return func(o *metav1.PartialObjectMetadata) {
		o.OwnerReferences = append(o.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: uid, UID: types.UID(uid), BlockOwnerDeletion: &block})
	}
}

func deleting(finalizers ...string) objOpt {
	return func(o *metav1.PartialObjectMetadata) {
		now := metav1.NewTime(time.Unix(1, 0))
		o.DeletionTimestamp = &now
		o.Finalizers = finalizers
	}
}

func uids(w []types.UID) []string {
	var out []string
	for _, u := range w {
		out = append(out, string(u))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestGraph(t *testing.T) {
	type step struct {
		observe    *metav1.PartialObjectMetadata
		forget     string
		wantDelete []string
		wantOrphan []string
	}
	tests := []struct {
		name  string
		steps []step
		check func(t *testing.T, g *graph)
	}{
		{
			name: "a dependent of an unseen owner is checked",
			steps: []step{
				{observe: mkObj("pod", ownedBy("rs", true)), wantDelete: []string{"pod"}},
				{observe: mkObj("rs")},
			},
			check: func(t *testing.T, g *graph) {
				rs, _ := g.get("rs")
				if rs.virtual || len(rs.dependents) != 1 {
					t.Errorf("owner %+v, want observed with one dependent", rs)
				}
			},
		},
		{
			name: "an owner's deletion collects its dependents",
			steps: []step{
				{observe: mkObj("rs")},
				{observe: mkObj("pod", ownedBy("rs", true))},
				{forget: "rs", wantDelete: []string{"pod"}},
				{forget: "pod"},
			},
			check: func(t *testing.T, g *graph) {
				if g.len() != 0 {
					t.Errorf("%d nodes left, want none", g.len())
				}
			},
		},
		{
			name: "foreground deletion looks at the owner and every dependent",
			steps: []step{
				{observe: mkObj("rs")},
				{observe: mkObj("a", ownedBy("rs", true))},
				{observe: mkObj("b", ownedBy("rs", false))},
				{observe: mkObj("rs", deleting(metav1.FinalizerDeleteDependents)), wantDelete: []string{"a", "b", "rs"}},
				{forget: "a", wantDelete: []string{"rs"}},
				{observe: mkObj("b", deleting()), wantDelete: []string{"rs"}},
			},
		},
		{
			name: "orphan finalizer asks for orphaning",
			steps: []step{
				{observe: mkObj("rs")},
				{observe: mkObj("pod", ownedBy("rs", true))},
				{observe: mkObj("rs", deleting(metav1.FinalizerOrphanDependents)), wantOrphan: []string{"rs"}},
			},
			check: func(t *testing.T, g *graph) {
				rs, _ := g.get("rs")
				if !rs.orphaning || len(rs.dependents) != 1 {
					t.Errorf("owner %+v, want orphaning with one dependent", rs)
				}
			},
		},
		{
			name: "dropping a reference unlinks, and re-examines a waiting owner",
			steps: []step{
				{observe: mkObj("rs", deleting(metav1.FinalizerDeleteDependents)), wantDelete: []string{"rs"}},
				{observe: mkObj("pod", ownedBy("rs", true)), wantDelete: []string{"rs"}},
				{observe: mkObj("pod"), wantDelete: []string{"rs"}},
			},
			check: func(t *testing.T, g *graph) {
				rs, _ := g.get("rs")
				if len(rs.dependents) != 0 {
					t.Errorf("owner still has dependents %+v", rs.dependents)
				}
			},
		},
		{
			name: "a deleted owner stays virtual while dependents point at it",
			steps: []step{
				{observe: mkObj("rs")},
				{observe: mkObj("pod", ownedBy("rs", true))},
				{forget: "rs", wantDelete: []string{"pod"}},
				{observe: mkObj("other", ownedBy("rs", true)), wantDelete: []string{"other"}},
			},
			check: func(t *testing.T, g *graph) {
				rs, ok := g.get("rs")
				if !ok || !rs.virtual || len(rs.dependents) != 2 {
					t.Errorf("owner %+v (found %v), want virtual with two dependents", rs, ok)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGraph()
			for i, s := range tt.steps {
				var w work
				if s.observe != nil {
					gvr := podGVR
					if s.observe.Name == "rs" {
						gvr = rsGVR
					}
					w = g.observe(gvr, "X", s.observe)
				} else {
					w = g.forget(types.UID(s.forget))
				}
				if got := uids(w.attemptToDelete); !slices.Equal(got, s.wantDelete) {
					t.Errorf("step %d: attemptToDelete %v, want %v", i, got, s.wantDelete)
				}
				if got := uids(w.attemptToOrphan); !slices.Equal(got, s.wantOrphan) {
					t.Errorf("step %d: attemptToOrphan %v, want %v", i, got, s.wantOrphan)
				}
			}
			if tt.check != nil {
				tt.check(t, g)
			}
		})
	}
}

func TestRESTMapper(t *testing.T) {
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"list", "watch", "delete"}},
			{Name: "pods/status", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"get"}},
			{Name: "nodes", Kind: "Node", Verbs: metav1.Verbs{"list", "watch", "delete"}},
			{Name: "events", Kind: "Event", Namespaced: true, Verbs: metav1.Verbs{"list", "watch", "delete"}},
			{Name: "bindings", Kind: "Binding", Namespaced: true, Verbs: metav1.Verbs{"create"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "replicasets", Kind: "ReplicaSet", Namespaced: true, Verbs: metav1.Verbs{"list", "watch", "delete"}},
		}},
	}
	m, watched := newRESTMapper(lists, defaultIgnored())
	var names []string
	for _, w := range watched {
		names = append(names, w.gvr.Resource)
	}
	if !slices.Equal(names, []string{"pods", "nodes", "replicasets"}) {
		t.Errorf("watched %v, want pods nodes replicasets", names)
	}
	tests := []struct {
		apiVersion, kind string
		want             mapping
		wantErr          bool
	}{
		{"v1", "Pod", mapping{gvr: podGVR, namespaced: true}, false},
		{"v1", "Node", mapping{gvr: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}}, false},
		{"apps/v1beta2", "ReplicaSet", mapping{gvr: rsGVR, namespaced: true}, false},
		{"example.com/v1", "Widget", mapping{}, true},
		{"a/b/c", "Pod", mapping{}, true},
	}
	for _, tt := range tests {
		got, err := m.resolve(tt.apiVersion, tt.kind)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("resolve(%s, %s) = %+v, %v; want %+v, error %v", tt.apiVersion, tt.kind, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestAbsentOwners(t *testing.T) {
	a := newAbsentOwners(2)
	a.add("a")
	a.add("b")
	if !a.has("a") || !a.has("b") || a.has("c") {
		t.Fatal("membership wrong")
	}
	a.add("c")
	if a.has("a") || !a.has("c") {
		t.Error("a full set must be cleared before adding")
	}
}
