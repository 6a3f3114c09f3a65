// Package restmapper maps what a kubectl user types (po, deploy.apps, all)
// and the kinds of manifests to the resources a server serves, from one
// discovery pass.
package restmapper

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/discovery"
)

// Mapping is one resource of the server with its kind and scope.
type Mapping struct {
	Resource   schema.GroupVersionResource
	Kind       schema.GroupVersionKind
	Namespaced bool
	// APIResource is the discovery entry of the resource.
	APIResource metav1.APIResource
}

// GroupResource names the resource in messages ("deployments.apps").
func (m *Mapping) GroupResource() schema.GroupResource { return m.Resource.GroupResource() }

// KindName returns the lowercase kind qualified by its group, the prefix
// kubectl prints before names ("deployment.apps", "configmap").
func (m *Mapping) KindName() string {
	k := strings.ToLower(m.Kind.Kind)
	if m.Kind.Group != "" {
		k += "." + m.Kind.Group
	}
	return k
}

// UnknownResourceTypeError is an argument that names no resource.
type UnknownResourceTypeError struct{ Arg string }

func (e *UnknownResourceTypeError) Error() string {
	return fmt.Sprintf("the server doesn't have a resource type %q", e.Arg)
}

// NoKindMatchError is a manifest kind the server does not serve.
type NoKindMatchError struct{ Kind schema.GroupVersionKind }

func (e *NoKindMatchError) Error() string {
	return fmt.Sprintf("no matches for kind %q in version %q", e.Kind.Kind, e.Kind.GroupVersion().String())
}

// Lister is the discovery a Mapper needs.
type Lister interface {
	ServerGroupsAndResources(ctx context.Context) ([]metav1.APIGroup, []*metav1.APIResourceList, error)
}

var _ Lister = (*discovery.Client)(nil)

// Mapper resolves resource arguments and kinds against one discovery of a
// server, read on first use.
type Mapper struct {
	lister Lister

	once      sync.Once
	err       error
	groups    []metav1.APIGroup
	all       []*metav1.APIResourceList
	preferred []*metav1.APIResourceList
}

// New returns a Mapper reading discovery through lister.
func New(lister Lister) *Mapper { return &Mapper{lister: lister} }

// NewFromLists returns a Mapper over fixed discovery documents (tests):
// groups in preference order, and the resources of each group version.
func NewFromLists(groups []metav1.APIGroup, lists []*metav1.APIResourceList) *Mapper {
	m := &Mapper{}
	m.once.Do(func() { m.index(groups, lists) })
	return m
}

func (m *Mapper) load(ctx context.Context) error {
	m.once.Do(func() {
		groups, lists, err := m.lister.ServerGroupsAndResources(ctx)
		if err != nil && groups == nil {
			m.err = fmt.Errorf("discover the server's resources: %w", err)
			return
		}
		m.index(groups, lists)
	})
	return m.err
}

// index keeps every list, and for each group the resources at the most
// preferred version that serves them.
func (m *Mapper) index(groups []metav1.APIGroup, lists []*metav1.APIResourceList) {
	m.groups, m.all = groups, lists
	byGV := map[string]*metav1.APIResourceList{}
	for _, l := range lists {
		byGV[l.GroupVersion] = l
	}
	for _, g := range groups {
		versions := slices.Clone(g.Versions)
		// The preferred version first.
		slices.SortStableFunc(versions, func(a, b metav1.GroupVersionForDiscovery) int {
			switch {
			case a.GroupVersion == g.PreferredVersion.GroupVersion:
				return -1
			case b.GroupVersion == g.PreferredVersion.GroupVersion:
				return 1
			}
			return 0
		})
		taken := map[string]bool{}
		for _, v := range versions {
			l, ok := byGV[v.GroupVersion]
			if !ok {
				continue
			}
			kept := &metav1.APIResourceList{GroupVersion: l.GroupVersion}
			for _, r := range l.APIResources {
				if taken[r.Name] {
					continue
				}
				taken[r.Name] = true
				kept.APIResources = append(kept.APIResources, r)
			}
			m.preferred = append(m.preferred, kept)
		}
	}
}

// Groups returns the server's API groups.
func (m *Mapper) Groups(ctx context.Context) ([]metav1.APIGroup, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.groups, nil
}

// PreferredResources returns each group's resources (subresources
// included) at their preferred versions.
func (m *Mapper) PreferredResources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	return m.preferred, nil
}

func newMapping(gv schema.GroupVersion, r metav1.APIResource) *Mapping {
	group, version := gv.Group, gv.Version
	if r.Group != "" {
		group = r.Group
	}
	if r.Version != "" {
		version = r.Version
	}
	return &Mapping{
		Resource:    gv.WithResource(r.Name),
		Kind:        schema.GroupVersionKind{Group: group, Version: version, Kind: r.Kind},
		Namespaced:  r.Namespaced,
		APIResource: r,
	}
}

// ResourceFor resolves one resource argument: a plural, singular or short
// name or a kind, in any case, optionally qualified by a group
// ("deployments.apps") or a version and group ("deployments.v1.apps").
func (m *Mapper) ResourceFor(ctx context.Context, arg string) (*Mapping, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	lists := m.preferred
	name := arg
	if parts := strings.SplitN(strings.ToLower(arg), ".", 3); len(parts) == 3 && isVersion(parts[1]) {
		// resource.version.group: that exact group version.
		name = parts[0] + "." + parts[2]
		lists = m.listsOf(schema.GroupVersion{Group: parts[2], Version: parts[1]})
	}
	gvr, res, err := discovery.ResolveResource(lists, name)
	if err != nil {
		return nil, &UnknownResourceTypeError{Arg: arg}
	}
	return newMapping(gvr.GroupVersion(), res), nil
}

func isVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] < '0' || s[1] > '9' {
		return false
	}
	return true
}

func (m *Mapper) listsOf(gv schema.GroupVersion) []*metav1.APIResourceList {
	var out []*metav1.APIResourceList
	for _, l := range m.all {
		if l.GroupVersion == gv.String() {
			out = append(out, l)
		}
	}
	return out
}

// KindFor returns the resource serving kind gvk, at exactly its version.
func (m *Mapper) KindFor(ctx context.Context, gvk schema.GroupVersionKind) (*Mapping, error) {
	if err := m.load(ctx); err != nil {
		return nil, err
	}
	for _, l := range m.listsOf(gvk.GroupVersion()) {
		for _, r := range l.APIResources {
			if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
				return newMapping(gvk.GroupVersion(), r), nil
			}
		}
	}
	return nil, &NoKindMatchError{Kind: gvk}
}

// ExpandCategory returns the resources of a category (e.g. "all") in
// discovery order, and whether arg names one.
func (m *Mapper) ExpandCategory(ctx context.Context, arg string) ([]*Mapping, bool, error) {
	if err := m.load(ctx); err != nil {
		return nil, false, err
	}
	var out []*Mapping
	for _, l := range m.preferred {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") && slices.Contains(r.Categories, arg) {
				out = append(out, newMapping(gv, r))
			}
		}
	}
	return out, len(out) > 0, nil
}
