package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Ingress routes HTTP(S) traffic from outside the cluster to Services by
// host name and path. An ingress controller, chosen by the ingress class,
// carries the routes out and reports the addresses it serves them on.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Ingress struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the routing the user wants.
	Spec IngressSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is where the ingress controller serves the routes.
	Status IngressStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// IngressSpec is the routing of an Ingress.
type IngressSpec struct {
	// IngressClassName names the IngressClass whose controller serves
	// this Ingress; unset means the default class, if there is one.
	IngressClassName *string `json:"ingressClassName,omitempty" protobuf:"bytes,4,opt,name=ingressClassName"`

	// DefaultBackend receives the requests no rule matches.
	DefaultBackend *IngressBackend `json:"defaultBackend,omitempty" protobuf:"bytes,1,opt,name=defaultBackend"`

	// TLS lists the hosts served over TLS and the Secret holding each
	// group's certificate.
	// +listType=atomic
	TLS []IngressTLS `json:"tls,omitempty" protobuf:"bytes,2,rep,name=tls"`

	// Rules route requests by host and path; requests no rule matches go
	// to the default backend.
	// +listType=atomic
	Rules []IngressRule `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
}

// IngressTLS is a set of hosts served with one certificate.
type IngressTLS struct {
	// Hosts covered by the certificate; they must match the rules' hosts.
	// Empty means the controller's default host.
	// +listType=atomic
	Hosts []string `json:"hosts,omitempty" protobuf:"bytes,1,rep,name=hosts"`

	// SecretName names the Secret, in the Ingress's namespace, holding
	// the certificate and key. Empty leaves TLS termination on port 443
	// to the controller's default.
	SecretName string `json:"secretName,omitempty" protobuf:"bytes,2,opt,name=secretName"`
}

// IngressStatus is where an Ingress is served.
type IngressStatus struct {
	// LoadBalancer holds the addresses of the ingress points.
	LoadBalancer IngressLoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
}

// IngressLoadBalancerStatus lists the ingress points of an Ingress.
type IngressLoadBalancerStatus struct {
	// Ingress lists the ingress points.
	// +listType=atomic
	Ingress []IngressLoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// IngressLoadBalancerIngress is one ingress point: an IP address or a
// host name.
type IngressLoadBalancerIngress struct {
	// IP of the ingress point.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`

	// Hostname of the ingress point.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`

	// Ports the ingress point serves, with their state.
	// +listType=atomic
	Ports []IngressPortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// IngressPortStatus is the state of one port of an ingress point.
type IngressPortStatus struct {
	// Port number.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`

	// Protocol of the port: TCP, UDP or SCTP.
	Protocol corev1.Protocol `json:"protocol" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`

	// Error is the problem with the port, if any, as a CamelCase reason
	// or "reason: message".
	Error *string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// IngressRule routes the requests for one host (or every host) by path.
type IngressRule struct {
	// Host is the fully qualified domain name the rule matches, without
	// port; a leading "*." matches one label. Empty matches every host.
	Host string `json:"host,omitempty" protobuf:"bytes,1,opt,name=host"`

	// IngressRuleValue holds the paths of the rule.
	IngressRuleValue `json:",inline,omitempty" protobuf:"bytes,2,opt,name=ingressRuleValue"`
}

// IngressRuleValue is how a rule routes the requests it matches.
type IngressRuleValue struct {
	// HTTP routes by path.
	HTTP *HTTPIngressRuleValue `json:"http,omitempty" protobuf:"bytes,1,opt,name=http"`
}

// HTTPIngressRuleValue lists the paths of a rule.
type HTTPIngressRuleValue struct {
	// Paths map request paths to backends.
	// +listType=atomic
	Paths []HTTPIngressPath `json:"paths" protobuf:"bytes,1,rep,name=paths"`
}

// PathType says how a path matches request paths.
type PathType string

// The path types.
const (
	// PathTypeExact matches the request path exactly, case-sensitively.
	PathTypeExact = PathType("Exact")
	// PathTypePrefix matches request paths whose "/"-separated elements
	// start with the path's elements.
	PathTypePrefix = PathType("Prefix")
	// PathTypeImplementationSpecific leaves matching to the ingress class.
	PathTypeImplementationSpecific = PathType("ImplementationSpecific")
)

// HTTPIngressPath sends the requests matching a path to a backend.
type HTTPIngressPath struct {
	// Path matched against request paths; it starts with "/" unless the
	// path type is ImplementationSpecific.
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`

	// PathType is Exact, Prefix or ImplementationSpecific. Required.
	PathType *PathType `json:"pathType" protobuf:"bytes,3,opt,name=pathType"`

	// Backend receives the matching requests.
	Backend IngressBackend `json:"backend" protobuf:"bytes,2,opt,name=backend"`
}

// IngressBackend is where requests go: a Service port or another
// resource, exactly one of them.
type IngressBackend struct {
	// Service is a Service port of the Ingress's namespace.
	Service *IngressServiceBackend `json:"service,omitempty" protobuf:"bytes,4,opt,name=service"`

	// Resource is another object of the Ingress's namespace, such as a
	// storage bucket.
	Resource *corev1.TypedLocalObjectReference `json:"resource,omitempty" protobuf:"bytes,3,opt,name=resource"`
}

// IngressServiceBackend names a Service port.
type IngressServiceBackend struct {
	// Name of the Service, in the Ingress's namespace.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// Port of the Service, by name or number.
	Port ServiceBackendPort `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
}

// ServiceBackendPort is a Service port by name or by number, one of them.
type ServiceBackendPort struct {
	// Name of the port.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`

	// Number of the port.
	Number int32 `json:"number,omitempty" protobuf:"varint,2,opt,name=number"`
}

// IngressList is a list of Ingresses.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type IngressList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the Ingresses.
	Items []Ingress `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// AnnotationIsDefaultIngressClass marks the IngressClass that Ingresses
// naming no class get.
const AnnotationIsDefaultIngressClass = "ingressclass.kubernetes.io/is-default-class"

// IngressClass names an ingress controller and its configuration. Each
// Ingress names its class; one class may be the default.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type IngressClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec names the controller and its parameters.
	Spec IngressClassSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// IngressClassSpec names the controller of a class.
type IngressClassSpec struct {
	// Controller names the controller serving the class, as a
	// domain-prefixed path such as "example.com/ingress-controller".
	// Immutable.
	Controller string `json:"controller,omitempty" protobuf:"bytes,1,opt,name=controller"`

	// Parameters points at an object holding the controller's
	// configuration for this class.
	Parameters *IngressClassParametersReference `json:"parameters,omitempty" protobuf:"bytes,2,opt,name=parameters"`
}

// The scopes of an IngressClass's parameters object.
const (
	// IngressClassParametersReferenceScopeNamespace: the object lives in
	// the namespace the reference names.
	IngressClassParametersReferenceScopeNamespace = "Namespace"
	// IngressClassParametersReferenceScopeCluster: the object is cluster
	// scoped.
	IngressClassParametersReferenceScopeCluster = "Cluster"
)

// IngressClassParametersReference points at the parameters object of an
// IngressClass.
type IngressClassParametersReference struct {
	// APIGroup of the object; unset means the core group.
	APIGroup *string `json:"apiGroup,omitempty" protobuf:"bytes,1,opt,name=aPIGroup"`

	// Kind of the object.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`

	// Name of the object.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`

	// Scope of the object: "Cluster" (the default) or "Namespace".
	Scope *string `json:"scope" protobuf:"bytes,4,opt,name=scope"`

	// Namespace of the object; required when the scope is "Namespace",
	// forbidden otherwise.
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,5,opt,name=namespace"`
}

// IngressClassList is a list of IngressClasses.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type IngressClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the IngressClasses.
	Items []IngressClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
