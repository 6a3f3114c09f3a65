package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
)

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

// The values of ConditionStatus.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Protocol is a network protocol of a port.
type Protocol string

// The protocols a port can use.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// Namespaces every cluster has.
const (
	// NamespaceDefault holds objects created without a namespace.
	NamespaceDefault = "default"
	// NamespaceAll selects every namespace in a list or watch.
	NamespaceAll = ""
	// NamespaceNodeLease holds the nodes' heartbeat Leases.
	NamespaceNodeLease = "kube-node-lease"
)

// LocalObjectReference names an object in the referrer's own namespace.
// +structType=atomic
type LocalObjectReference struct {
	// Name of the referent.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
}

// TypedLocalObjectReference names an object of a given kind in the
// referrer's namespace.
// +structType=atomic
type TypedLocalObjectReference struct {
	// APIGroup of the referent; nil means the core group.
	APIGroup *string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind of the referent.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name of the referent.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// TypedObjectReference names an object of a given kind, possibly in
// another namespace.
type TypedObjectReference struct {
	// APIGroup of the referent; nil means the core group.
	APIGroup *string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind of the referent.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name of the referent.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Namespace of the referent; empty means the referrer's namespace.
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// ObjectReference points at any object, or at a field inside one.
// +structType=atomic
type ObjectReference struct {
	// Kind of the referent, such as "Pod".
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// Namespace of the referent.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// Name of the referent.
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// UID of the referent.
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uid"`
	// APIVersion of the referent.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,5,opt,name=apiVersion"`
	// ResourceVersion of the referent the reference was made against.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// FieldPath points inside the referent, such as
	// "spec.containers{web}" for one container of a pod.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,7,opt,name=fieldPath"`
}

// Namespace is a scope for names. Deleting it deletes everything in it.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Namespace struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec holds the finalizers that must run before the namespace goes.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the phase and conditions the server reports.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NamespaceSpec is the desired state of a namespace.
type NamespaceSpec struct {
	// Finalizers must all be removed before the namespace is deleted from
	// storage.
	// +listType=atomic
	Finalizers []FinalizerName `json:"finalizers,omitempty" protobuf:"bytes,1,rep,name=finalizers"`
}

// FinalizerName names a namespace finalizer.
type FinalizerName string

// FinalizerKubernetes is the finalizer the namespace controller removes once
// the namespace's content is gone.
const FinalizerKubernetes FinalizerName = "kubernetes"

// NamespaceStatus is the observed state of a namespace.
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	Phase NamespacePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Conditions report why deletion is stuck, if it is.
	// +listType=map
	// +listMapKey=type
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// NamespacePhase is the life-cycle phase of a namespace.
type NamespacePhase string

// The namespace phases.
const (
	// NamespaceActive accepts new objects.
	NamespaceActive NamespacePhase = "Active"
	// NamespaceTerminating is being deleted and refuses new objects.
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceConditionType is the type of a namespace condition.
type NamespaceConditionType string

// The namespace condition types the namespace controller reports.
const (
	NamespaceDeletionDiscoveryFailure NamespaceConditionType = "NamespaceDeletionDiscoveryFailure"
	NamespaceDeletionContentFailure   NamespaceConditionType = "NamespaceDeletionContentFailure"
	NamespaceDeletionGVParsingFailure NamespaceConditionType = "NamespaceDeletionGroupVersionParsingFailure"
	NamespaceContentRemaining         NamespaceConditionType = "NamespaceContentRemaining"
	NamespaceFinalizersRemaining      NamespaceConditionType = "NamespaceFinalizersRemaining"
)

// NamespaceCondition is one observation about a namespace.
type NamespaceCondition struct {
	// Type of the condition.
	Type NamespaceConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message explains the condition to a human.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NamespaceList is a list of namespaces.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type NamespaceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the namespaces.
	Items []Namespace `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ConfigMap holds non-secret configuration as keys and values.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ConfigMap struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Immutable, once true, forbids changes to data and binaryData.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Data holds UTF-8 values. Keys may not also appear in binaryData.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// BinaryData holds arbitrary bytes, base64 encoded on the wire.
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData"`
}

// ConfigMapList is a list of config maps.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ConfigMapList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the config maps.
	Items []ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Secret holds sensitive data such as passwords, tokens or keys.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Secret struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Immutable, once true, forbids changes to data.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,5,opt,name=immutable"`
	// Data holds the secret bytes, base64 encoded on the wire.
	Data map[string][]byte `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// StringData is a write-only convenience: its entries are merged into
	// data on write and never returned.
	StringData map[string]string `json:"stringData,omitempty" protobuf:"bytes,4,rep,name=stringData"`
	// Type says how the data is structured and validated.
	Type SecretType `json:"type,omitempty" protobuf:"bytes,3,opt,name=type"`
}

// SecretType says what a secret holds and which keys it must have.
type SecretType string

// The secret types and their well-known keys.
const (
	// SecretTypeOpaque holds arbitrary user data; it is the default.
	SecretTypeOpaque SecretType = "Opaque"

	// SecretTypeServiceAccountToken holds a service account's token, CA
	// and namespace, and names the account in its annotations.
	SecretTypeServiceAccountToken SecretType = "kubernetes.io/service-account-token"
	// ServiceAccountNameKey is the annotation naming the service account.
	ServiceAccountNameKey = "kubernetes.io/service-account.name"
	// ServiceAccountUIDKey is the annotation holding the account's UID.
	ServiceAccountUIDKey = "kubernetes.io/service-account.uid"
	// ServiceAccountTokenKey is the data key of the bearer token.
	ServiceAccountTokenKey = "token"
	// ServiceAccountRootCAKey is the data key of the cluster CA bundle.
	ServiceAccountRootCAKey = "ca.crt"
	// ServiceAccountNamespaceKey is the data key of the namespace.
	ServiceAccountNamespaceKey = "namespace"

	// SecretTypeDockercfg holds a legacy ~/.dockercfg file.
	SecretTypeDockercfg SecretType = "kubernetes.io/dockercfg"
	// DockerConfigKey is the data key of a dockercfg secret.
	DockerConfigKey = ".dockercfg"
	// SecretTypeDockerConfigJSON holds a ~/.docker/config.json file.
	SecretTypeDockerConfigJSON SecretType = "kubernetes.io/dockerconfigjson"
	// DockerConfigJSONKey is the data key of a dockerconfigjson secret.
	DockerConfigJSONKey = ".dockerconfigjson"

	// SecretTypeBasicAuth holds a username and a password.
	SecretTypeBasicAuth SecretType = "kubernetes.io/basic-auth"
	// BasicAuthUsernameKey is the data key of the user name.
	BasicAuthUsernameKey = "username"
	// BasicAuthPasswordKey is the data key of the password.
	BasicAuthPasswordKey = "password"

	// SecretTypeSSHAuth holds an SSH private key.
	SecretTypeSSHAuth SecretType = "kubernetes.io/ssh-auth"
	// SSHAuthPrivateKey is the data key of the private key.
	SSHAuthPrivateKey = "ssh-privatekey"

	// SecretTypeTLS holds a certificate and its key.
	SecretTypeTLS SecretType = "kubernetes.io/tls"
	// TLSCertKey is the data key of the PEM certificate chain.
	TLSCertKey = "tls.crt"
	// TLSPrivateKeyKey is the data key of the PEM private key.
	TLSPrivateKeyKey = "tls.key"

	// SecretTypeBootstrapToken holds a node bootstrap token.
	SecretTypeBootstrapToken SecretType = "bootstrap.kubernetes.io/token"
)

// MaxSecretSize is the largest total size of a secret's data, in bytes.
const MaxSecretSize = 1 << 20

// SecretList is a list of secrets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type SecretList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the secrets.
	Items []Secret `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceAccount is an identity for processes running in pods.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ServiceAccount struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Secrets lists secrets pods of this account may use (legacy token
	// secrets among them).
	// +listType=map
	// +listMapKey=name
	Secrets []ObjectReference `json:"secrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=secrets"`
	// ImagePullSecrets are added to every pod that runs as this account.
	// +listType=atomic
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,3,rep,name=imagePullSecrets"`
	// AutomountServiceAccountToken says whether pods of this account get an
	// API token mounted; a pod's own setting wins.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,4,opt,name=automountServiceAccountToken"`
}

// ServiceAccountList is a list of service accounts.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ServiceAccountList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the service accounts.
	Items []ServiceAccount `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Binding ties a pod to a node; posting one to pods/binding schedules the
// pod.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Binding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; name and namespace are the pod's.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Target is the node the pod is bound to.
	Target ObjectReference `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// The values of Event.Type.
const (
	// EventTypeNormal reports something expected.
	EventTypeNormal = "Normal"
	// EventTypeWarning reports something that may need attention.
	EventTypeWarning = "Warning"
)

// Event reports something that happened to an object.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Event struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`

	// InvolvedObject is the object the event is about.
	InvolvedObject ObjectReference `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	// Reason is a short CamelCase cause, such as "Scheduled".
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Message describes the event to a human.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// Source is the component and host that reported the event.
	Source EventSource `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	// FirstTimestamp is when the event was first seen.
	FirstTimestamp metav1.Time `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	// LastTimestamp is when the event was most recently seen.
	LastTimestamp metav1.Time `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	// Count is how many times the event has been seen.
	Count int32 `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	// EventTime is when the event first happened, in microseconds.
	EventTime metav1.MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	// Series summarises repeats of the event, if any.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	// Action is what was done, or failed, to the object.
	Action string `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	// Related is a second object the event involves.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// ReportingController names the controller that emitted the event.
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	// ReportingInstance identifies the emitting controller's instance.
	ReportingInstance string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// EventSource names the component and host that reported an event.
type EventSource struct {
	// Component that reported the event.
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	// Host the component ran on.
	Host string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries counts repeats of one event.
type EventSeries struct {
	// Count of occurrences so far.
	Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
	// LastObservedTime is when the last occurrence was seen.
	LastObservedTime metav1.MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// EventList is a list of events.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the events.
	Items []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// List is the kind "List": a heterogeneous list of objects, as kubectl
// writes and reads them. Each item keeps its own kind and apiVersion.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type List struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the objects, each as raw JSON.
	Items []runtime.RawExtension `json:"items" protobuf:"bytes,2,rep,name=items"`
}
