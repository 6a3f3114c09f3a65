package controller

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

var rsGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}

func owner(deleting bool) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rs", UID: "rs-uid"}}
	if deleting {
		now := metav1.NewTime(time.Now())
		rs.DeletionTimestamp = &now
	}
	return rs
}

type podOpt func(*corev1.Pod)

func newPod(name string, app string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), ResourceVersion: "5", Labels: map[string]string{"app": app}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func ownedBy(uid types.UID, controller bool) podOpt {
	return func(p *corev1.Pod) {
		p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "x", UID: uid, Controller: &controller})
	}
}

func deleting(p *corev1.Pod) {
	now := metav1.NewTime(time.Now())
	p.DeletionTimestamp = &now
}

func inNamespace(ns string) podOpt { return func(p *corev1.Pod) { p.Namespace = ns } }

type patchRecord struct {
	name string
	uid  types.UID
	rv   string
	refs []metav1.OwnerReference
}

func TestRefManagerClaim(t *testing.T) {
	sel := labels.SelectorFromSet(labels.Set{"app": "web"})
	tests := []struct {
		name          string
		deletingOwner bool
		canAdoptErr   error
		patchErr      error
		pods          []*corev1.Pod
		wantClaimed   []string
		wantPatched   map[string][]types.UID // pod -> owner UIDs after the patch
		wantErr       string
		wantRechecks  int
	}{
		{name: "adopts a matching orphan", pods: []*corev1.Pod{newPod("a", "web")},
			wantClaimed: []string{"a"}, wantPatched: map[string][]types.UID{"a": {"rs-uid"}}, wantRechecks: 1},
		{name: "keeps other owners when adopting", pods: []*corev1.Pod{newPod("a", "web", ownedBy("other", false))},
			wantClaimed: []string{"a"}, wantPatched: map[string][]types.UID{"a": {"other", "rs-uid"}}, wantRechecks: 1},
		{name: "ignores a non-matching orphan", pods: []*corev1.Pod{newPod("a", "db")}},
		{name: "keeps what it owns and matches", pods: []*corev1.Pod{newPod("a", "web", ownedBy("rs-uid", true))},
			wantClaimed: []string{"a"}},
		{name: "releases what it owns and no longer matches", pods: []*corev1.Pod{newPod("a", "db", ownedBy("other", false), ownedBy("rs-uid", true))},
			wantPatched: map[string][]types.UID{"a": {"other"}}},
		{name: "ignores another controller's", pods: []*corev1.Pod{newPod("a", "web", ownedBy("other", true))}},
		{name: "deleting owner neither adopts nor releases", deletingOwner: true,
			pods:        []*corev1.Pod{newPod("orphan", "web"), newPod("mine", "web", ownedBy("rs-uid", true)), newPod("old", "db", ownedBy("rs-uid", true))},
			wantClaimed: []string{"mine"}},
		{name: "never adopts a deleting orphan", pods: []*corev1.Pod{newPod("a", "web", deleting)}},
		{name: "never adopts across namespaces", pods: []*corev1.Pod{newPod("a", "web", inNamespace("other"))}},
		{name: "recheck forbids adoption, checked once", canAdoptErr: errors.New("rs has just been deleted"),
			pods:    []*corev1.Pod{newPod("a", "web"), newPod("b", "web"), newPod("mine", "web", ownedBy("rs-uid", true))},
			wantErr: "rs has just been deleted", wantClaimed: []string{"mine"}, wantRechecks: 1},
		{name: "a vanished object is skipped", patchErr: apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "a"),
			pods: []*corev1.Pod{newPod("a", "web")}, wantRechecks: 1},
		{name: "patch errors are returned", patchErr: errors.New("connection refused"),
			pods: []*corev1.Pod{newPod("a", "web")}, wantErr: "adopt ns/a: connection refused", wantRechecks: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rechecks := 0
			patched := map[string][]types.UID{}
			var records []patchRecord
			patch := func(_ context.Context, ns, name string, data []byte) error {
				if tt.patchErr != nil {
					return tt.patchErr
				}
				var p struct {
					Metadata struct {
						UID             types.UID               `json:"uid"`
						ResourceVersion string                  `json:"resourceVersion"`
						OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
					} `json:"metadata"`
				}
				if err := json.Unmarshal(data, &p); err != nil {
					t.Fatalf("patch %s is not JSON: %v", data, err)
				}
				var uids []types.UID
				for _, r := range p.Metadata.OwnerReferences {
					uids = append(uids, r.UID)
				}
				patched[name] = uids
				records = append(records, patchRecord{name: name, uid: p.Metadata.UID, rv: p.Metadata.ResourceVersion, refs: p.Metadata.OwnerReferences})
				return nil
			}
			canAdopt := func(context.Context) error { rechecks++; return tt.canAdoptErr }
			m := NewRefManager[*corev1.Pod](owner(tt.deletingOwner), rsGVK, sel, patch, canAdopt)
			claimed, err := m.Claim(context.Background(), tt.pods)
			var names []string
			for _, p := range claimed {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tt.wantClaimed) {
				t.Errorf("claimed %v, want %v", names, tt.wantClaimed)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if len(patched) != len(tt.wantPatched) {
				t.Errorf("patched %v, want %v", patched, tt.wantPatched)
			}
			for name, want := range tt.wantPatched {
				if !slices.Equal(patched[name], want) {
					t.Errorf("owners of %s after patch = %v, want %v", name, patched[name], want)
				}
			}
			if rechecks != tt.wantRechecks {
				t.Errorf("owner rechecked %d times, want %d", rechecks, tt.wantRechecks)
			}
			for _, r := range records {
				if r.uid != types.UID(r.name+"-uid") || r.rv != "5" {
					t.Errorf("patch of %s has uid %q rv %q, want the object's as preconditions", r.name, r.uid, r.rv)
				}
				for _, ref := range r.refs {
					if ref.UID != "rs-uid" {
						continue
					}
					if ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion ||
						ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" || ref.Name != "rs" {
						t.Errorf("adoption reference = %+v, want a controller reference to apps/v1 ReplicaSet rs", ref)
					}
				}
			}
		})
	}
}

func TestRecheckDeletionTimestamp(t *testing.T) {
	cached := owner(false)
	tests := []struct {
		name    string
		fresh   *appsv1.ReplicaSet
		getErr  error
		wantErr string
	}{
		{name: "same and live", fresh: owner(false)},
		{name: "being deleted", fresh: owner(true), wantErr: "ns/rs has just been deleted at"},
		{name: "recreated", fresh: &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rs", UID: "new"}}, wantErr: "original ns/rs is gone: got uid new, wanted rs-uid"},
		{name: "get fails", getErr: errors.New("timeout"), wantErr: "recheck owner ns/rs: timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := RecheckDeletionTimestamp(cached, func(context.Context) (metav1.Object, error) {
				if tt.getErr != nil {
					return nil, tt.getErr
				}
				return tt.fresh, nil
			})
			err := check(context.Background())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
