package controller

import (
	"sync"

	"kubecore.io/apimachinery/pkg/types"
)

// UIDTrackingExpectations are Expectations whose deletions are tracked by
// object uid, so that a deletion reported twice (a graceful deletion is first
// an update that sets deletionTimestamp, then a delete) is counted once, and
// a late report of an earlier deletion never satisfies a newer expectation.
type UIDTrackingExpectations struct {
	*Expectations

	mu   sync.Mutex // orders uid sets with the counts they stand for
	uids map[string]map[types.UID]struct{}
}

// NewUIDTrackingExpectations returns empty expectations on clock; nil means
// the wall clock.
func NewUIDTrackingExpectations(clock Clock) *UIDTrackingExpectations {
	return &UIDTrackingExpectations{Expectations: NewExpectations(clock), uids: map[string]map[types.UID]struct{}{}}
}

// ExpectCreations records that key's controller is about to create n
// objects, replacing what was expected for key before (deletions included).
func (u *UIDTrackingExpectations) ExpectCreations(key string, n int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.uids, key)
	u.Expectations.ExpectCreations(key, n)
}

// ExpectDeletionsOf records that key's controller is about to delete the
// objects with these uids, replacing what was expected for key before.
func (u *UIDTrackingExpectations) ExpectDeletionsOf(key string, uids []types.UID) {
	set := make(map[types.UID]struct{}, len(uids))
	for _, uid := range uids {
		set[uid] = struct{}{}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.uids[key] = set
	u.Expectations.ExpectDeletions(key, len(set))
}

// DeletionObservedUID lowers key's expected deletions by one if uid is one
// of them and was not observed yet; other uids are ignored.
func (u *UIDTrackingExpectations) DeletionObservedUID(key string, uid types.UID) {
	u.mu.Lock()
	defer u.mu.Unlock()
	set := u.uids[key]
	if _, ok := set[uid]; !ok {
		return
	}
	delete(set, uid)
	u.Expectations.DeletionObserved(key)
}

// DeleteExpectations forgets key and the uids expected for it.
func (u *UIDTrackingExpectations) DeleteExpectations(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.uids, key)
	u.Expectations.DeleteExpectations(key)
}
