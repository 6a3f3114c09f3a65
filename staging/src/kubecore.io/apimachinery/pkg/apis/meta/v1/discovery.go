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
	Versions []string `json:"versions"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

// String joins the versions with commas.
func (v APIVersions) String() string { return strings.Join(v.Versions, ",") }

// APIGroupList is the discovery document at /apis: every named group.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIGroupList struct {
	TypeMeta `json:",inline"`

	// Groups are the API groups.
	Groups []APIGroup `json:"groups"`
}

// APIGroup is one API group: its versions and the preferred one. It is
// served alone at /apis/<group>.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIGroup struct {
	TypeMeta `json:",inline"`

	// Name of the group, e.g. "apps".
	Name string `json:"name"`
	// Versions served in this group, preferred first.
	Versions []GroupVersionForDiscovery `json:"versions"`
	// PreferredVersion is the version clients should use.
	PreferredVersion GroupVersionForDiscovery `json:"preferredVersion,omitempty"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty"`
}

// ServerAddressByClientCIDR maps a client network to the server address it should use.
type ServerAddressByClientCIDR struct {
	// ClientCIDR is the client network, e.g. "0.0.0.0/0".
	ClientCIDR string `json:"clientCIDR"`
	// ServerAddress is host:port, host or IP.
	ServerAddress string `json:"serverAddress"`
}

// GroupVersionForDiscovery is a "group/version" with its version alone.
type GroupVersionForDiscovery struct {
	// GroupVersion is "apps/v1", or "v1" for the core group.
	GroupVersion string `json:"groupVersion"`
	// Version is "v1".
	Version string `json:"version"`
}

// APIResourceList is the discovery document of one group version, at
// /api/v1 or /apis/<group>/<version>: its resources and subresources.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIResourceList struct {
	TypeMeta `json:",inline"`

	// GroupVersion is "apps/v1", or "v1" for the core group.
	GroupVersion string `json:"groupVersion"`
	// APIResources are the resources, subresources named "pods/status".
	APIResources []APIResource `json:"resources"`
}

// APIResource describes one resource or subresource in discovery.
type APIResource struct {
	// Name is the plural resource name, or "pods/log" for a subresource.
	Name string `json:"name"`
	// SingularName is the singular name kubectl also accepts.
	SingularName string `json:"singularName"`
	// Namespaced tells whether objects live in namespaces.
	Namespaced bool `json:"namespaced"`
	// Group, when set, overrides the list's group (subresources such as scale).
	Group string `json:"group,omitempty"`
	// Version, when set, overrides the list's version.
	Version string `json:"version,omitempty"`
	// Kind of the objects, e.g. "Pod".
	Kind string `json:"kind"`
	// Verbs supported: get, list, watch, create, update, patch, delete, deletecollection.
	Verbs Verbs `json:"verbs"`
	// ShortNames such as "po" or "deploy".
	ShortNames []string `json:"shortNames,omitempty"`
	// Categories such as "all".
	Categories []string `json:"categories,omitempty"`
	// StorageVersionHash is an opaque hash of the storage version.
	StorageVersionHash string `json:"storageVersionHash,omitempty"`
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
	Paths []string `json:"paths"`
}
