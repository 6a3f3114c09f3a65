package controller

import (
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

func TestResolveControllerRef(t *testing.T) {
	rs := owner(false) // ns/rs, uid rs-uid
	get := func(name string) (*appsv1.ReplicaSet, error) {
		if name == rs.Name {
			return rs, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "replicasets"}, name)
	}
	ref := func(apiVersion, kind, name, uid string) *metav1.OwnerReference {
		return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid)}
	}
	tests := []struct {
		name string
		ref  *metav1.OwnerReference
		want bool
	}{
		{name: "match", ref: ref("apps/v1", "ReplicaSet", "rs", "rs-uid"), want: true},
		{name: "nil", ref: nil},
		{name: "other kind", ref: ref("apps/v1", "Deployment", "rs", "rs-uid")},
		{name: "other group", ref: ref("extensions/v1beta1x", "ReplicaSet", "rs", "rs-uid")},
		{name: "bad apiVersion", ref: ref("a/b/c", "ReplicaSet", "rs", "rs-uid")},
		{name: "not found", ref: ref("apps/v1", "ReplicaSet", "gone", "rs-uid")},
		{name: "recreated owner", ref: ref("apps/v1", "ReplicaSet", "rs", "old-uid")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ResolveControllerRef(tt.ref, schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, get)
			if ok != tt.want || (ok && got != rs) || (!ok && got != nil) {
				t.Fatalf("got %v, %v; want ok=%v", got, ok, tt.want)
			}
		})
	}
}
