// Package discovery asks an API server which groups, versions and resources
// it serves, and resolves the resource names a user types (po, deploy.apps).
package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/version"
	"kubecore.io/client/rest"
)

// Client reads the discovery documents of one server.
type Client struct {
	rc *rest.Client
}

// NewForConfig returns a discovery client for config's server.
func NewForConfig(config *rest.Config) (*Client, error) {
	rc, err := rest.NewClient(config, rest.ClientOptions{})
	if err != nil {
		return nil, err
	}
	return &Client{rc: rc}, nil
}

// NewClient returns a discovery client over rc, a client of absolute paths
// (rest.ClientOptions.GroupVersion empty).
func NewClient(rc *rest.Client) *Client { return &Client{rc: rc} }

// RESTClient returns the underlying REST client.
func (d *Client) RESTClient() *rest.Client { return d.rc }

// ServerVersion returns /version.
func (d *Client) ServerVersion(ctx context.Context) (*version.Info, error) {
	body, err := d.rc.Get().AbsPath("/version").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("server version: %w", err)
	}
	var info version.Info
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, fmt.Errorf("server version: decode: %w", err)
	}
	return &info, nil
}

// ServerGroups returns every group, the core group (named "") first, with
// its versions, preferred first.
func (d *Client) ServerGroups(ctx context.Context) (*metav1.APIGroupList, error) {
	var core metav1.APIVersions
	err := d.rc.Get().AbsPath("/api").Do(ctx).Into(&core)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("discover the core group: %w", err)
	}
	var groups metav1.APIGroupList
	err = d.rc.Get().AbsPath("/apis").Do(ctx).Into(&groups)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("discover the API groups: %w", err)
	}
	out := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	if len(core.Versions) > 0 {
		g := metav1.APIGroup{Name: ""}
		for _, v := range core.Versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
		}
		g.PreferredVersion = g.Versions[0]
		out.Groups = append(out.Groups, g)
	}
	out.Groups = append(out.Groups, groups.Groups...)
	return out, nil
}

// ServerResourcesForGroupVersion returns the resources of one group version
// ("v1" or "apps/v1").
func (d *Client) ServerResourcesForGroupVersion(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error) {
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil || gv.Version == "" {
		return nil, fmt.Errorf("discover resources: invalid group version %q", groupVersion)
	}
	path := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	list := &metav1.APIResourceList{}
	if err := d.rc.Get().AbsPath(path).Do(ctx).Into(list); err != nil {
		return nil, fmt.Errorf("discover resources of %s: %w", groupVersion, err)
	}
	if list.GroupVersion == "" {
		list.GroupVersion = groupVersion
	}
	return list, nil
}

// GroupDiscoveryFailedError lists the group versions whose resources could
// not be read; the others were returned.
type GroupDiscoveryFailedError struct {
	Groups map[schema.GroupVersion]error
}

// Error names each failed group version.
func (e *GroupDiscoveryFailedError) Error() string {
	keys := slices.SortedFunc(maps.Keys(e.Groups), func(a, b schema.GroupVersion) int {
		return strings.Compare(a.String(), b.String())
	})
	var parts []string
	for _, gv := range keys {
		parts = append(parts, fmt.Sprintf("%s: %v", gv, e.Groups[gv]))
	}
	return "unable to retrieve the complete list of server APIs: " + strings.Join(parts, ", ")
}

// ServerGroupsAndResources returns the groups and the resources of each of
// their versions. When some group versions fail, the others are returned
// with a *GroupDiscoveryFailedError.
func (d *Client) ServerGroupsAndResources(ctx context.Context) ([]metav1.APIGroup, []*metav1.APIResourceList, error) {
	groups, err := d.ServerGroups(ctx)
	if err != nil {
		return nil, nil, err
	}
	var lists []*metav1.APIResourceList
	failed := map[schema.GroupVersion]error{}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			list, err := d.ServerResourcesForGroupVersion(ctx, v.GroupVersion)
			if err != nil {
				failed[schema.GroupVersion{Group: g.Name, Version: v.Version}] = err
				continue
			}
			lists = append(lists, list)
		}
	}
	if len(failed) > 0 {
		return groups.Groups, lists, &GroupDiscoveryFailedError{Groups: failed}
	}
	return groups.Groups, lists, nil
}

// ServerPreferredResources returns, for each group, each resource (and
// subresource) at the most preferred version that serves it. Partial
// results come with a *GroupDiscoveryFailedError.
func (d *Client) ServerPreferredResources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	groups, lists, err := d.ServerGroupsAndResources(ctx)
	if groups == nil {
		return nil, err
	}
	byGV := map[string]*metav1.APIResourceList{}
	for _, l := range lists {
		byGV[l.GroupVersion] = l
	}
	var out []*metav1.APIResourceList
	for _, g := range groups {
		taken := map[string]bool{}
		for _, v := range g.Versions {
			l, ok := byGV[v.GroupVersion]
			if !ok {
				continue
			}
			kept := &metav1.APIResourceList{TypeMeta: l.TypeMeta, GroupVersion: l.GroupVersion}
			for _, r := range l.APIResources {
				if taken[r.Name] {
					continue
				}
				taken[r.Name] = true
				kept.APIResources = append(kept.APIResources, r)
			}
			if len(kept.APIResources) > 0 {
				out = append(out, kept)
			}
		}
	}
	return out, err
}

// ResolveResource finds the resource a user means by arg — a plural,
// singular or short name or a kind, any case, optionally qualified by a
// group ("deployments.apps", "deploy.apps") — among lists, the output of
// ServerPreferredResources. Subresources are never matched.
func ResolveResource(lists []*metav1.APIResourceList, arg string) (schema.GroupVersionResource, metav1.APIResource, error) {
	name, group, qualified := strings.Cut(strings.ToLower(arg), ".")
	type match struct {
		gvr schema.GroupVersionResource
		res metav1.APIResource
	}
	var matches []match
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		if qualified && gv.Group != group && !strings.HasPrefix(gv.Group, group+".") {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !nameMatches(r, name) {
				continue
			}
			matches = append(matches, match{gvr: gv.WithResource(r.Name), res: r})
		}
	}
	switch len(matches) {
	case 0:
		return schema.GroupVersionResource{}, metav1.APIResource{}, fmt.Errorf("the server doesn't have a resource type %q", arg)
	case 1:
		return matches[0].gvr, matches[0].res, nil
	}
	// The core group wins, as kubectl's priority does for built-ins.
	for _, m := range matches {
		if m.gvr.Group == "" {
			return m.gvr, m.res, nil
		}
	}
	return matches[0].gvr, matches[0].res, nil
}

func nameMatches(r metav1.APIResource, name string) bool {
	if r.Name == name || r.SingularName == name || strings.ToLower(r.Kind) == name {
		return true
	}
	return slices.Contains(r.ShortNames, name)
}
