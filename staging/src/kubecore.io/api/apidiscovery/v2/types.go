package v2

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of this package.
const GroupName = "apidiscovery.k8s.io"

// SchemeGroupVersion is the group version of every type in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v2"}

// APIGroupDiscoveryList is the aggregated discovery document: every served
// group with its versions and their resources.
type APIGroupDiscoveryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the groups, the most preferred first.
	Items []APIGroupDiscovery `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// APIGroupDiscovery is one group; metadata.name is its name ("" for the
// core group).
type APIGroupDiscovery struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Versions are the group's served versions, the preferred one first.
	Versions []APIVersionDiscovery `json:"versions,omitempty" protobuf:"bytes,2,rep,name=versions"`
}

// APIVersionDiscovery is one version of a group and its resources.
type APIVersionDiscovery struct {
	Version   string                 `json:"version" protobuf:"bytes,1,opt,name=version"`
	Resources []APIResourceDiscovery `json:"resources,omitempty" protobuf:"bytes,2,rep,name=resources"`
	// Freshness is Stale when the server behind the version could not be
	// asked for its resources.
	Freshness DiscoveryFreshness `json:"freshness,omitempty" protobuf:"bytes,3,opt,name=freshness"`
}

// APIResourceDiscovery is one resource of a group version.
type APIResourceDiscovery struct {
	Resource string `json:"resource" protobuf:"bytes,1,opt,name=resource"`
	// ResponseKind is the kind of the objects the resource answers; its
	// group and version are empty when they are the group version's.
	ResponseKind     *metav1.GroupVersionKind  `json:"responseKind,omitempty" protobuf:"bytes,2,opt,name=responseKind"`
	Scope            ResourceScope             `json:"scope" protobuf:"bytes,3,opt,name=scope"`
	SingularResource string                    `json:"singularResource" protobuf:"bytes,4,opt,name=singularResource"`
	Verbs            []string                  `json:"verbs" protobuf:"bytes,5,opt,name=verbs"`
	ShortNames       []string                  `json:"shortNames,omitempty" protobuf:"bytes,6,rep,name=shortNames"`
	Categories       []string                  `json:"categories,omitempty" protobuf:"bytes,7,rep,name=categories"`
	Subresources     []APISubresourceDiscovery `json:"subresources,omitempty" protobuf:"bytes,8,rep,name=subresources"`
}

// ResourceScope says whether a resource's objects live in namespaces.
type ResourceScope string

// The scopes of a resource.
const (
	ScopeCluster   ResourceScope = "Cluster"
	ScopeNamespace ResourceScope = "Namespaced"
)

// DiscoveryFreshness says whether a group version's resources are those
// its server serves now.
type DiscoveryFreshness string

// The freshness of a group version.
const (
	DiscoveryFreshnessCurrent DiscoveryFreshness = "Current"
	DiscoveryFreshnessStale   DiscoveryFreshness = "Stale"
)

// APISubresourceDiscovery is one subresource of a resource.
type APISubresourceDiscovery struct {
	Subresource   string                    `json:"subresource" protobuf:"bytes,1,opt,name=subresource"`
	ResponseKind  *metav1.GroupVersionKind  `json:"responseKind,omitempty" protobuf:"bytes,2,opt,name=responseKind"`
	AcceptedTypes []metav1.GroupVersionKind `json:"acceptedTypes,omitempty" protobuf:"bytes,3,rep,name=acceptedTypes"`
	Verbs         []string                  `json:"verbs" protobuf:"bytes,4,opt,name=verbs"`
}
