// Package schema names API types and resources: groups, versions, kinds and
// resources, with the string forms Kubernetes prints and parses.
package schema

import (
	"fmt"
	"strings"
)

// GroupVersion is an API group and version, such as apps/v1. The core
// ("legacy") group has an empty Group.
type GroupVersion struct {
	Group   string
	Version string
}

// ParseGroupVersion parses an apiVersion string: "" gives the empty
// GroupVersion, "v1" the core group, "apps/v1" a named group.
func ParseGroupVersion(gv string) (GroupVersion, error) {
	if gv == "" || gv == "/" {
		return GroupVersion{}, nil
	}
	group, version, found := strings.Cut(gv, "/")
	if !found {
		return GroupVersion{Version: gv}, nil
	}
	if strings.Contains(version, "/") {
		return GroupVersion{}, fmt.Errorf("unexpected GroupVersion string: %v", gv)
	}
	return GroupVersion{Group: group, Version: version}, nil
}

// Empty reports whether both group and version are empty.
func (gv GroupVersion) Empty() bool { return gv.Group == "" && gv.Version == "" }

// String returns "group/version", or just "version" for the core group.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// Identifier is String; it names the group version in registries.
func (gv GroupVersion) Identifier() string { return gv.String() }

// WithKind returns the GroupVersionKind of kind in this group version.
func (gv GroupVersion) WithKind(kind string) GroupVersionKind {
	return GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// WithResource returns the GroupVersionResource of resource in this group version.
func (gv GroupVersion) WithResource(resource string) GroupVersionResource {
	return GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: resource}
}

// GroupVersionKind names a type: a kind in an API group version.
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// FromAPIVersionAndKind builds a GroupVersionKind from the apiVersion and kind
// fields of a serialized object. An unparsable apiVersion keeps only the kind.
func FromAPIVersionAndKind(apiVersion, kind string) GroupVersionKind {
	gv, err := ParseGroupVersion(apiVersion)
	if err != nil {
		return GroupVersionKind{Kind: kind}
	}
	return gv.WithKind(kind)
}

// Empty reports whether all parts are empty.
func (gvk GroupVersionKind) Empty() bool {
	return gvk.Group == "" && gvk.Version == "" && gvk.Kind == ""
}

// GroupVersion drops the kind.
func (gvk GroupVersionKind) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvk.Group, Version: gvk.Version}
}

// GroupKind drops the version.
func (gvk GroupVersionKind) GroupKind() GroupKind {
	return GroupKind{Group: gvk.Group, Kind: gvk.Kind}
}

// ToAPIVersionAndKind returns the apiVersion and kind fields of a serialized object.
func (gvk GroupVersionKind) ToAPIVersionAndKind() (apiVersion, kind string) {
	return gvk.GroupVersion().String(), gvk.Kind
}

// String prints "apps/v1, Kind=Deployment" ("/v1, Kind=Pod" for the core group).
func (gvk GroupVersionKind) String() string {
	return gvk.Group + "/" + gvk.Version + ", Kind=" + gvk.Kind
}

// GroupVersionResource names a resource collection in an API group version.
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// Empty reports whether all parts are empty.
func (gvr GroupVersionResource) Empty() bool {
	return gvr.Group == "" && gvr.Version == "" && gvr.Resource == ""
}

// GroupVersion drops the resource.
func (gvr GroupVersionResource) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvr.Group, Version: gvr.Version}
}

// GroupResource drops the version.
func (gvr GroupVersionResource) GroupResource() GroupResource {
	return GroupResource{Group: gvr.Group, Resource: gvr.Resource}
}

// String prints "apps/v1, Resource=deployments".
func (gvr GroupVersionResource) String() string {
	return gvr.Group + "/" + gvr.Version + ", Resource=" + gvr.Resource
}

// GroupResource names a resource regardless of version; errors use it to
// name what was not found.
type GroupResource struct {
	Group    string
	Resource string
}

// ParseGroupResource parses "deployments.apps" (resource, then group after
// the first dot) or "pods".
func ParseGroupResource(gr string) GroupResource {
	resource, group, _ := strings.Cut(gr, ".")
	return GroupResource{Group: group, Resource: resource}
}

// Empty reports whether both parts are empty.
func (gr GroupResource) Empty() bool { return gr.Group == "" && gr.Resource == "" }

// WithVersion adds a version.
func (gr GroupResource) WithVersion(version string) GroupVersionResource {
	return GroupVersionResource{Group: gr.Group, Version: version, Resource: gr.Resource}
}

// String prints "deployments.apps", or "pods" for the core group.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// GroupKind names a type regardless of version; validation errors use it.
type GroupKind struct {
	Group string
	Kind  string
}

// ParseGroupKind parses "Deployment.apps" or "Pod".
func ParseGroupKind(gk string) GroupKind {
	kind, group, _ := strings.Cut(gk, ".")
	return GroupKind{Group: group, Kind: kind}
}

// Empty reports whether both parts are empty.
func (gk GroupKind) Empty() bool { return gk.Group == "" && gk.Kind == "" }

// WithVersion adds a version.
func (gk GroupKind) WithVersion(version string) GroupVersionKind {
	return GroupVersionKind{Group: gk.Group, Version: version, Kind: gk.Kind}
}

// String prints "Deployment.apps", or "Pod" for the core group.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// ParseResourceArg reads a kubectl resource argument. "deployments.v1.apps"
// (two or more dots) may be fully qualified, so it returns that reading as a
// GroupVersionResource as well as the GroupResource reading
// {Resource: deployments, Group: v1.apps}; the caller checks which exists.
func ParseResourceArg(arg string) (*GroupVersionResource, GroupResource) {
	var gvr *GroupVersionResource
	if parts := strings.SplitN(arg, ".", 3); len(parts) == 3 {
		gvr = &GroupVersionResource{Resource: parts[0], Version: parts[1], Group: parts[2]}
	}
	return gvr, ParseGroupResource(arg)
}

// ParseKindArg is ParseResourceArg for kinds: "Deployment.v1.apps".
func ParseKindArg(arg string) (*GroupVersionKind, GroupKind) {
	var gvk *GroupVersionKind
	if parts := strings.SplitN(arg, ".", 3); len(parts) == 3 {
		gvk = &GroupVersionKind{Kind: parts[0], Version: parts[1], Group: parts[2]}
	}
	return gvk, ParseGroupKind(arg)
}
