package v1

import (
	"fmt"
	"strings"
)

// APIVersions is the discovery document at /api: the versions of the core group.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIVersions struct {
	TypeMeta `json:",inline"`

	// Versions are the available versions, e.g. ["v1"].
	Versions []string `json:"versions" protobuf:"bytes,1,rep,name=versions"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs" protobuf:"bytes,2,rep,name=serverAddressByClientCIDRs"`
}

// String joins the versions with commas.
func (v APIVersions) String() string { return strings.Join(v.Versions, ",") }

// APIGroupList is the discovery document at /apis: every named group.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIGroupList struct {
	TypeMeta `json:",inline"`

	// Groups are the API groups.
	Groups []APIGroup `json:"groups" protobuf:"bytes,1,rep,name=groups"`
}

// APIGroup is one API group: its versions and the preferred one. It is
// served alone at /apis/<group>.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIGroup struct {
	TypeMeta `json:",inline"`

	// Name of the group, e.g. "apps".
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Versions served in this group, preferred first.
	Versions []GroupVersionForDiscovery `json:"versions" protobuf:"bytes,2,rep,name=versions"`
	// PreferredVersion is the version clients should use.
	PreferredVersion GroupVersionForDiscovery `json:"preferredVersion,omitempty" protobuf:"bytes,3,opt,name=preferredVersion"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty" protobuf:"bytes,4,rep,name=serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR maps a client network to the server address it should use.
type ServerAddressByClientCIDR struct {
	// ClientCIDR is the client network, e.g. "0.0.0.0/0".
	ClientCIDR string `json:"clientCIDR" protobuf:"bytes,1,opt,name=clientCIDR"`
	// ServerAddress is host:port, host or IP.
	ServerAddress string `json:"serverAddress" protobuf:"bytes,2,opt,name=serverAddress"`
}

// GroupVersionForDiscovery is a "group/version" with its version alone.
type GroupVersionForDiscovery struct {
	// GroupVersion is "apps/v1", or "v1" for the core group.
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// Version is "v1".
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
}

// APIResourceList is the discovery document of one group version, at
// /api/v1 or /apis/<group>/<version>: its resources and subresources.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIResourceList struct {
	TypeMeta `json:",inline"`

	// GroupVersion is "apps/v1", or "v1" for the core group.
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// APIResources are the resources, subresources named "pods/status".
	APIResources []APIResource `json:"resources" protobuf:"bytes,2,rep,name=resources"`
}

// APIResource describes one resource or subresource in discovery.
type APIResource struct {
	// Name is the plural resource name, or "pods/log" for a subresource.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// SingularName is the singular name kubectl also accepts.
	SingularName string `json:"singularName" protobuf:"bytes,6,opt,name=singularName"`
	// Namespaced tells whether objects live in namespaces.
	Namespaced bool `json:"namespaced" protobuf:"varint,2,opt,name=namespaced"`
	// Group, when set, overrides the list's group (subresources such as scale).
	Group string `json:"group,omitempty" protobuf:"bytes,8,opt,name=group"`
	// Version, when set, overrides the list's version.
	Version string `json:"version,omitempty" protobuf:"bytes,9,opt,name=version"`
	// Kind of the objects, e.g. "Pod".
	Kind string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
	// Verbs supported: get, list, watch, create, update, patch, delete, deletecollection.
	Verbs Verbs `json:"verbs" protobuf:"bytes,4,opt,name=verbs"`
	// ShortNames such as "po" or "deploy".
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,5,rep,name=shortNames"`
	// Categories such as "all".
	Categories []string `json:"categories,omitempty" protobuf:"bytes,7,rep,name=categories"`
	// StorageVersionHash is an opaque hash of the storage version.
	StorageVersionHash string `json:"storageVersionHash,omitempty" protobuf:"bytes,10,opt,name=storageVersionHash"`
}

// Verbs is the verb list of an APIResource.
type Verbs []string

// Has reports whether vs contains verb.
func (vs Verbs) Has(verb string) bool {
	for _, v := range vs {
		if v == verb {
			return true
		}
	}
	return false
}

// String prints the verbs as a Go slice: "[get list]".
func (vs Verbs) String() string { return fmt.Sprintf("%v", []string(vs)) }

// RootPaths is the document at "/": the paths the server serves.
type RootPaths struct {
	// Paths such as "/api", "/apis", "/healthz".
	Paths []string `json:"paths" protobuf:"bytes,1,rep,name=paths"`
}

// GroupVersionKind names a kind in its group version, in the wire form of
// discovery documents (every field always present).
type GroupVersionKind struct {
	Group   string `json:"group" protobuf:"bytes,1,opt,name=group"`
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
	Kind    string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
}
