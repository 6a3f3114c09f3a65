package controller

import (
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/types"
)

func TestUIDTrackingExpectations(t *testing.T) {
	tests := []struct {
		name string
		do   func(u *UIDTrackingExpectations)
		want bool
	}{
		{name: "deletions pending", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a", "b"})
			u.DeletionObservedUID("k", "a")
		}, want: false},
		{name: "deletions observed", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a", "b"})
			u.DeletionObservedUID("k", "a")
			u.DeletionObservedUID("k", "b")
		}, want: true},
		{name: "a uid observed twice counts once", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a", "b"})
			u.DeletionObservedUID("k", "a")
			u.DeletionObservedUID("k", "a")
		}, want: false},
		{name: "late report of an earlier deletion is ignored", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a"})
			u.DeletionObservedUID("k", "a")
			u.ExpectDeletionsOf("k", []types.UID{"b"})
			u.DeletionObservedUID("k", "a")
		}, want: false},
		{name: "duplicate uids are one deletion", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a", "a"})
			u.DeletionObservedUID("k", "a")
		}, want: true},
		{name: "creations replace deletions", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a"})
			u.ExpectCreations("k", 1)
			u.DeletionObservedUID("k", "a")
			u.CreationObserved("k")
		}, want: true},
		{name: "creations pending", do: func(u *UIDTrackingExpectations) {
			u.ExpectCreations("k", 2)
			u.CreationObserved("k")
		}, want: false},
		{name: "deleted", do: func(u *UIDTrackingExpectations) {
			u.ExpectDeletionsOf("k", []types.UID{"a"})
			u.DeleteExpectations("k")
		}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := NewUIDTrackingExpectations(&fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
			tt.do(u)
			if got := u.SatisfiedExpectations("k"); got != tt.want {
				t.Fatalf("SatisfiedExpectations = %v, want %v", got, tt.want)
			}
		})
	}
}
