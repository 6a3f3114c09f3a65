package garbagecollector

import (
	"slices"
	"sync"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

// identity names one object: its resource, kind and place, and uid.
type identity struct {
	gvr       schema.GroupVersionResource
	kind      string
	namespace string
	name      string
	uid       types.UID
}

// node is one object of the owner graph. A virtual node stands for an
// owner only seen in ownerReferences, until its object is observed.
type node struct {
	id              identity
	virtual         bool
	resourceVersion string
	owners          []metav1.OwnerReference
	finalizers      []string
	deleting        bool // deletionTimestamp set
	dependents      map[types.UID]*node
}

// deletingDependents reports a foreground deletion waiting for the
// dependents.
func (n *node) deletingDependents() bool {
	return n.deleting && slices.Contains(n.finalizers, metav1.FinalizerDeleteDependents)
}

// orphaning reports a deletion that orphans the dependents.
func (n *node) orphaning() bool {
	return n.deleting && slices.Contains(n.finalizers, metav1.FinalizerOrphanDependents)
}

// snapshot is a copy of a node's state that workers read without the
// graph's lock.
type snapshot struct {
	id                 identity
	virtual            bool
	resourceVersion    string
	owners             []metav1.OwnerReference
	finalizers         []string
	deleting           bool
	deletingDependents bool
	orphaning          bool
	dependents         []dependent
}

// dependent is a dependent of a node as the graph saw it.
type dependent struct {
	id              identity
	resourceVersion string
	owners          []metav1.OwnerReference
	deleting        bool
	// deletingDependents: its own foreground deletion waits for its
	// dependents.
	deletingDependents bool
}

// blocks reports whether d holds back the foreground deletion of owner.
func (d dependent) blocks(owner types.UID) bool {
	for _, r := range d.owners {
		if r.UID == owner && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// graph is the owner graph, safe for concurrent use: informer handlers
// change it, workers read snapshots.
type graph struct {
	mu    sync.RWMutex
	nodes map[types.UID]*node
}

func newGraph() *graph { return &graph{nodes: map[types.UID]*node{}} }

// work is what a change to the graph asks the workers to look at.
type work struct {
	attemptToDelete []types.UID
	attemptToOrphan []types.UID
}

// observe records obj of resource gvr (kind kind) as it now is.
func (g *graph) observe(gvr schema.GroupVersionResource, kind string, obj metav1.Object) work {
	g.mu.Lock()
	defer g.mu.Unlock()
	var w work
	uid := obj.GetUID()
	n, ok := g.nodes[uid]
	if !ok {
		n = &node{dependents: map[types.UID]*node{}}
		g.nodes[uid] = n
	}
	wasVirtual := !ok || n.virtual
	wasDeletingDependents := ok && n.deletingDependents()
	oldOwners := n.owners
	n.id = identity{gvr: gvr, kind: kind, namespace: obj.GetNamespace(), name: obj.GetName(), uid: uid}
	n.virtual = false
	n.resourceVersion = obj.GetResourceVersion()
	n.owners = slices.Clone(obj.GetOwnerReferences())
	n.finalizers = slices.Clone(obj.GetFinalizers())
	n.deleting = obj.GetDeletionTimestamp() != nil

	added, removed := diffOwners(oldOwners, n.owners)
	for _, r := range removed {
		if o, ok := g.nodes[r.UID]; ok {
			delete(o.dependents, uid)
			g.dropIfUnused(o)
		}
	}
	for _, r := range added {
		o, ok := g.nodes[r.UID]
		if !ok {
			o = &node{virtual: true, id: ownerIdentity(r, n.id.namespace), dependents: map[types.UID]*node{}}
			g.nodes[r.UID] = o
		}
		o.dependents[uid] = n
		if o.virtual {
			// The owner is not (yet) observed: check that it exists.
			w.attemptToDelete = append(w.attemptToDelete, uid)
		}
	}
	// Owners waiting for their dependents look again at every change of
	// one (a reference dropped, blockOwnerDeletion cleared, a deletion).
	for _, r := range append(slices.Clone(n.owners), removed...) {
		if o, ok := g.nodes[r.UID]; ok && o.deletingDependents() {
			w.attemptToDelete = append(w.attemptToDelete, o.id.uid)
		}
	}
	if n.orphaning() {
		w.attemptToOrphan = append(w.attemptToOrphan, uid)
	}
	if n.deletingDependents() && (!wasDeletingDependents || wasVirtual) {
		w.attemptToDelete = append(w.attemptToDelete, uid)
		for d := range n.dependents {
			w.attemptToDelete = append(w.attemptToDelete, d)
		}
	}
	if wasVirtual && len(n.dependents) > 0 && n.deleting {
		for d := range n.dependents {
			w.attemptToDelete = append(w.attemptToDelete, d)
		}
	}
	return w
}

// forget removes the object with uid, observed deleted (or found absent),
// and returns the dependents to collect and the owners to re-examine.
func (g *graph) forget(uid types.UID) work {
	g.mu.Lock()
	defer g.mu.Unlock()
	var w work
	n, ok := g.nodes[uid]
	if !ok {
		return w
	}
	for d := range n.dependents {
		w.attemptToDelete = append(w.attemptToDelete, d)
	}
	for _, r := range n.owners {
		o, ok := g.nodes[r.UID]
		if !ok {
			continue
		}
		delete(o.dependents, uid)
		if o.deletingDependents() {
			w.attemptToDelete = append(w.attemptToDelete, o.id.uid)
		}
		g.dropIfUnused(o)
	}
	if len(n.dependents) > 0 {
		// Dependents still point at it: keep a virtual node so that they
		// stay linked until they are gone.
		n.virtual = true
		n.owners = nil
		n.finalizers = nil
		n.deleting = false
		return w
	}
	delete(g.nodes, uid)
	return w
}

// dropIfUnused removes a virtual node no dependent points at.
func (g *graph) dropIfUnused(n *node) {
	if n.virtual && len(n.dependents) == 0 {
		delete(g.nodes, n.id.uid)
	}
}

// get returns a snapshot of the node with uid.
func (g *graph) get(uid types.UID) (snapshot, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.nodes[uid]
	if !ok {
		return snapshot{}, false
	}
	s := snapshot{
		id: n.id, virtual: n.virtual, resourceVersion: n.resourceVersion,
		owners: slices.Clone(n.owners), finalizers: slices.Clone(n.finalizers),
		deleting: n.deleting, deletingDependents: n.deletingDependents(), orphaning: n.orphaning(),
	}
	for _, d := range n.dependents {
		s.dependents = append(s.dependents, dependent{
			id: d.id, resourceVersion: d.resourceVersion, owners: slices.Clone(d.owners),
			deleting: d.deleting, deletingDependents: d.deletingDependents(),
		})
	}
	return s, true
}

// len is the number of nodes, virtual ones included.
func (g *graph) len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.nodes)
}

// ownerIdentity is the identity an owner reference gives; the resource is
// resolved later, from the kind.
func ownerIdentity(r metav1.OwnerReference, dependentNamespace string) identity {
	gv, _ := schema.ParseGroupVersion(r.APIVersion)
	return identity{gvr: schema.GroupVersionResource{Group: gv.Group, Version: gv.Version}, kind: r.Kind, namespace: dependentNamespace, name: r.Name, uid: r.UID}
}

// diffOwners returns the references of now whose uid was not in before,
// and those of before whose uid is not in now.
func diffOwners(before, now []metav1.OwnerReference) (added, removed []metav1.OwnerReference) {
	has := func(refs []metav1.OwnerReference, uid types.UID) bool {
		return slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return r.UID == uid })
	}
	for _, r := range now {
		if !has(before, r.UID) {
			added = append(added, r)
		}
	}
	for _, r := range before {
		if !has(now, r.UID) {
			removed = append(removed, r)
		}
	}
	return added, removed
}
