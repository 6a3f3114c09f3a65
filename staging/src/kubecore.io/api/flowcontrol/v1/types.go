package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Wildcards and names of the rules and of the bootstrap configuration.
const (
	APIGroupAll    = "*"
	ResourceAll    = "*"
	VerbAll        = "*"
	NonResourceAll = "*"
	NameAll        = "*"
	NamespaceEvery = "*"

	// AutoUpdateAnnotationKey marks a bootstrap object the API server
	// keeps at its default spec ("true") or leaves alone ("false").
	AutoUpdateAnnotationKey = "apf.kubernetes.io/autoupdate-spec"

	// The mandatory objects.
	PriorityLevelConfigurationNameExempt   = "exempt"
	PriorityLevelConfigurationNameCatchAll = "catch-all"
	FlowSchemaNameExempt                   = "exempt"
	FlowSchemaNameCatchAll                 = "catch-all"

	// ResponseHeaderMatchedPriorityLevelConfigurationUID and
	// ResponseHeaderMatchedFlowSchemaUID name the response headers that
	// say how a request was classified.
	ResponseHeaderMatchedPriorityLevelConfigurationUID = "X-Kubernetes-PF-PriorityLevel-UID"
	ResponseHeaderMatchedFlowSchemaUID                 = "X-Kubernetes-PF-FlowSchema-UID"
)

// FlowSchema classifies requests: the first schema (by matching
// precedence) one of whose rules matches a request assigns it to a
// priority level and says how its flows are told apart.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type FlowSchema struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the classification.
	Spec FlowSchemaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the API server observed of the schema.
	Status FlowSchemaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// FlowSchemaList is a list of FlowSchemas.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type FlowSchemaList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the FlowSchemas.
	Items []FlowSchema `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// FlowSchemaSpec says which requests a schema matches and where they go.
type FlowSchemaSpec struct {
	// PriorityLevelConfiguration the matched requests are assigned to.
	// Required.
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration" protobuf:"bytes,1,opt,name=priorityLevelConfiguration"`
	// MatchingPrecedence orders the schemas: the lowest number that
	// matches wins. Between 1 and 10000; 1000 when not set.
	MatchingPrecedence int32 `json:"matchingPrecedence,omitempty" protobuf:"varint,2,opt,name=matchingPrecedence"`
	// DistinguisherMethod says how the matched requests are split into
	// flows: by user or by namespace; nil puts them all in one flow.
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty" protobuf:"bytes,3,opt,name=distinguisherMethod"`
	// Rules a request must match one of; none matches nothing.
	// +listType=atomic
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty" protobuf:"bytes,4,rep,name=rules"`
}

// FlowDistinguisherMethodType is how requests are split into flows.
type FlowDistinguisherMethodType string

// The distinguisher methods.
const (
	FlowDistinguisherMethodByUserType      FlowDistinguisherMethodType = "ByUser"
	FlowDistinguisherMethodByNamespaceType FlowDistinguisherMethodType = "ByNamespace"
)

// FlowDistinguisherMethod says how requests are split into flows.
type FlowDistinguisherMethod struct {
	// Type: ByUser or ByNamespace. Required.
	Type FlowDistinguisherMethodType `json:"type" protobuf:"bytes,1,opt,name=type"`
}

// PriorityLevelConfigurationReference names a priority level.
type PriorityLevelConfigurationReference struct {
	// Name of the PriorityLevelConfiguration. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PolicyRulesWithSubjects matches a request made by one of Subjects that
// matches one of the resource or non-resource rules.
type PolicyRulesWithSubjects struct {
	// Subjects the rules apply to; at least one.
	// +listType=atomic
	Subjects []Subject `json:"subjects" protobuf:"bytes,1,rep,name=subjects"`
	// ResourceRules match resource requests.
	// +listType=atomic
	ResourceRules []ResourcePolicyRule `json:"resourceRules,omitempty" protobuf:"bytes,2,rep,name=resourceRules"`
	// NonResourceRules match requests on other paths.
	// +listType=atomic
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty" protobuf:"bytes,3,rep,name=nonResourceRules"`
}

// SubjectKind is the kind of a subject.
type SubjectKind string

// The subject kinds.
const (
	SubjectKindUser           SubjectKind = "User"
	SubjectKindGroup          SubjectKind = "Group"
	SubjectKindServiceAccount SubjectKind = "ServiceAccount"
)

// Subject is who makes a request: a user, a group, or a service account;
// exactly the field of Kind is set.
type Subject struct {
	// Kind: User, Group or ServiceAccount. Required.
	Kind SubjectKind `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// User, when Kind is User.
	User *UserSubject `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Group, when Kind is Group.
	Group *GroupSubject `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// ServiceAccount, when Kind is ServiceAccount.
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty" protobuf:"bytes,4,opt,name=serviceAccount"`
}

// UserSubject names a user.
type UserSubject struct {
	// Name of the user; "*" matches every user. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// GroupSubject names a group.
type GroupSubject struct {
	// Name of the group; "*" matches every group. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// ServiceAccountSubject names a service account.
type ServiceAccountSubject struct {
	// Namespace of the service account. Required.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name of the service account; "*" matches all in the namespace.
	// Required.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
}

// ResourcePolicyRule matches a resource request whose verb, group and
// resource it lists, cluster-scoped when ClusterScope says so, or in one
// of Namespaces.
type ResourcePolicyRule struct {
	// Verbs matched; "*" matches all. Required.
	// +listType=set
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups matched; "*" matches all. Required.
	// +listType=set
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources matched ("pods", "pods/log", "*"). Required.
	// +listType=set
	Resources []string `json:"resources" protobuf:"bytes,3,rep,name=resources"`
	// ClusterScope matches requests that name no namespace.
	ClusterScope bool `json:"clusterScope,omitempty" protobuf:"varint,4,opt,name=clusterScope"`
	// Namespaces matched; "*" matches every namespace.
	// +listType=set
	Namespaces []string `json:"namespaces" protobuf:"bytes,5,rep,name=namespaces"`
}

// NonResourcePolicyRule matches a request on a path that is no resource.
type NonResourcePolicyRule struct {
	// Verbs matched; "*" matches all. Required.
	// +listType=set
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// NonResourceURLs matched: a path, a prefix ending in "/*", or "*".
	// Required.
	// +listType=set
	NonResourceURLs []string `json:"nonResourceURLs" protobuf:"bytes,6,rep,name=nonResourceURLs"`
}

// FlowSchemaStatus is what the API server observed of a FlowSchema.
type FlowSchemaStatus struct {
	// Conditions of the schema: Dangling says whether its priority level
	// is missing.
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []FlowSchemaCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// FlowSchemaConditionType names a condition of a FlowSchema.
type FlowSchemaConditionType string

// FlowSchemaConditionDangling is True when the priority level a schema
// names does not exist.
const FlowSchemaConditionDangling FlowSchemaConditionType = "Dangling"

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// FlowSchemaCondition is one observation of a FlowSchema.
type FlowSchemaCondition struct {
	// Type of the condition.
	Type FlowSchemaConditionType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status: True, False or Unknown.
	Status ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message says in words what happened.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// PriorityLevelConfiguration is one priority level: its share of the
// server's concurrency and what happens to requests beyond it.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PriorityLevelConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the level's configuration.
	Spec PriorityLevelConfigurationSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the API server observed of the level.
	Status PriorityLevelConfigurationStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PriorityLevelConfigurationList is a list of PriorityLevelConfigurations.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PriorityLevelConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the PriorityLevelConfigurations.
	Items []PriorityLevelConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PriorityLevelEnablement says whether a level is limited.
type PriorityLevelEnablement string

// The kinds of level.
const (
	PriorityLevelEnablementExempt  PriorityLevelEnablement = "Exempt"
	PriorityLevelEnablementLimited PriorityLevelEnablement = "Limited"
)

// PriorityLevelConfigurationSpec is Exempt (never limited) or Limited,
// with the field of its type set.
type PriorityLevelConfigurationSpec struct {
	// Type: Exempt or Limited. Required.
	Type PriorityLevelEnablement `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Limited is the configuration of a Limited level.
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty" protobuf:"bytes,2,opt,name=limited"`
	// Exempt is the configuration of an Exempt level.
	Exempt *ExemptPriorityLevelConfiguration `json:"exempt,omitempty" protobuf:"bytes,3,opt,name=exempt"`
}

// LimitedPriorityLevelConfiguration is a level's share of the server's
// concurrency and what happens beyond it.
type LimitedPriorityLevelConfiguration struct {
	// NominalConcurrencyShares: the level's concurrency is the server's
	// limit times its shares over the sum of all levels' shares. 30 when
	// not set; 0 gives no nominal concurrency.
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LimitResponse says what happens to requests beyond the limit.
	LimitResponse LimitResponse `json:"limitResponse,omitempty" protobuf:"bytes,2,opt,name=limitResponse"`
	// LendablePercent of the nominal concurrency other levels may borrow;
	// 0 to 100, 0 when not set.
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,3,opt,name=lendablePercent"`
	// BorrowingLimitPercent caps what the level may borrow, as a percent
	// of its nominal concurrency; no cap when nil.
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty" protobuf:"varint,4,opt,name=borrowingLimitPercent"`
}

// ExemptPriorityLevelConfiguration is the configuration of an exempt
// level, which only matters for borrowing.
type ExemptPriorityLevelConfiguration struct {
	// NominalConcurrencyShares of the level; 0 when not set.
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty" protobuf:"varint,1,opt,name=nominalConcurrencyShares"`
	// LendablePercent of the nominal concurrency other levels may borrow;
	// 0 when not set.
	LendablePercent *int32 `json:"lendablePercent,omitempty" protobuf:"varint,2,opt,name=lendablePercent"`
}

// LimitResponseType is what happens to a request beyond the limit.
type LimitResponseType string

// The limit responses.
const (
	LimitResponseTypeQueue  LimitResponseType = "Queue"
	LimitResponseTypeReject LimitResponseType = "Reject"
)

// LimitResponse says what happens to requests beyond the limit: Queue
// (with Queuing) or Reject.
type LimitResponse struct {
	// Type: Queue or Reject. Required.
	Type LimitResponseType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Queuing configures the queues, when Type is Queue.
	Queuing *QueuingConfiguration `json:"queuing,omitempty" protobuf:"bytes,2,opt,name=queuing"`
}

// QueuingConfiguration is the shuffle-sharded queues of a level.
type QueuingConfiguration struct {
	// Queues of the level; 64 when not set.
	Queues int32 `json:"queues,omitempty" protobuf:"varint,1,opt,name=queues"`
	// HandSize: the queues a flow may be put in; at most Queues; 8 when
	// not set.
	HandSize int32 `json:"handSize,omitempty" protobuf:"varint,2,opt,name=handSize"`
	// QueueLengthLimit: requests a queue holds; 50 when not set.
	QueueLengthLimit int32 `json:"queueLengthLimit,omitempty" protobuf:"varint,3,opt,name=queueLengthLimit"`
}

// PriorityLevelConfigurationConditionType names a condition of a level.
type PriorityLevelConfigurationConditionType string

// PriorityLevelConfigurationCondition is one observation of a level.
type PriorityLevelConfigurationCondition struct {
	// Type of the condition.
	Type PriorityLevelConfigurationConditionType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Status: True, False or Unknown.
	Status ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message says in words what happened.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// PriorityLevelConfigurationStatus is what the API server observed of a
// level.
type PriorityLevelConfigurationStatus struct {
	// Conditions of the level.
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []PriorityLevelConfigurationCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}
