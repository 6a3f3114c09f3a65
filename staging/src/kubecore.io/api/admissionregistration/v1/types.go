package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Rule names the resources a webhook or policy applies to: every
// combination of its groups, versions and resources.
type Rule struct {
	// APIGroups of the resources; "" is the core group, "*" every group.
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	// APIVersions of the resources; "*" every version.
	// +listType=atomic
	APIVersions []string `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	// Resources: "pods", "pods/status", "*" (every resource, no
	// subresource), "*/scale" or "*/*".
	// +listType=atomic
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// Scope: "Cluster", "Namespaced" or "*" (the default).
	Scope *ScopeType `json:"scope,omitempty" protobuf:"bytes,4,opt,name=scope"`
}

// ScopeType is the scope of the resources a rule names.
type ScopeType string

// The scopes.
const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// OperationType is a write a rule applies to.
type OperationType string

// The operations.
const (
	OperationAll OperationType = "*"
	Create       OperationType = "CREATE"
	Update       OperationType = "UPDATE"
	Delete       OperationType = "DELETE"
	Connect      OperationType = "CONNECT"
)

// RuleWithOperations is a Rule with the operations it applies to.
type RuleWithOperations struct {
	// Operations: CREATE, UPDATE, DELETE, CONNECT or "*" for all.
	// +listType=atomic
	Operations []OperationType `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations,casttype=OperationType"`
	// Rule names the resources.
	Rule `json:",inline" protobuf:"bytes,2,opt,name=rule"`
}

// NamedRuleWithOperations is a RuleWithOperations limited to some names.
type NamedRuleWithOperations struct {
	// ResourceNames the rule applies to; empty means every name.
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	// RuleWithOperations names the resources and operations.
	RuleWithOperations `json:",inline" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}

// FailurePolicyType says what happens when a webhook or policy cannot
// answer: Ignore lets the request through, Fail refuses it.
type FailurePolicyType string

// The failure policies.
const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match requests made through another
// version of a resource: Exact only as named, Equivalent also through the
// equivalent versions.
type MatchPolicyType string

// The match policies.
const (
	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass says whether a webhook has effects beyond its answer.
type SideEffectClass string

// The side effect classes; v1 webhooks may only be None or NoneOnDryRun.
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook or policy is called
// again when a later one changed the object.
type ReinvocationPolicyType string

// The reinvocation policies.
const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// MatchCondition is a CEL expression a request must satisfy to be sent on.
type MatchCondition struct {
	// Name identifies the condition: a qualified name, unique in its list.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Expression is CEL evaluating to a bool.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=expression"`
}

// ServiceReference names the Service a webhook listens behind.
type ServiceReference struct {
	// Namespace of the Service.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name of the Service.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// Path of the URL requests are sent to.
	Path *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	// Port of the Service: 443 when not set; between 1 and 65535.
	Port *int32 `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// WebhookClientConfig says how to reach a webhook: by URL or by Service.
type WebhookClientConfig struct {
	// URL of the webhook, https://host[:port]/path, without user, query
	// or fragment.
	URL *string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// Service of the webhook, when it runs in the cluster.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// CABundle is the PEM of the CA that signed the webhook's certificate;
	// the API server's trust roots when empty.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ValidatingWebhook is one webhook asked whether a request may proceed.
type ValidatingWebhook struct {
	// Name of the webhook: a fully qualified name, unique in the
	// configuration (imagepolicy.kubernetes.io).
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ClientConfig says how to reach the webhook.
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// Rules name the operations and resources sent to the webhook.
	// +listType=atomic
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// FailurePolicy when the webhook cannot answer: Fail (default) or
	// Ignore.
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// MatchPolicy: Equivalent (default) or Exact.
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	// NamespaceSelector limits the webhook to objects in, or being,
	// matching namespaces; {} (the default) matches every namespace.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// ObjectSelector limits the webhook to objects with matching labels;
	// {} (the default) matches every object.
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	// SideEffects: None or NoneOnDryRun. Required.
	SideEffects *SideEffectClass `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	// TimeoutSeconds the webhook has to answer, 1 to 30; 10 by default.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// AdmissionReviewVersions the webhook accepts, in order of
	// preference; the API server sends the first it knows (v1, v1beta1).
	// +listType=atomic
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// MatchConditions a request must all satisfy to be sent; at most 64.
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,rep,name=matchConditions"`
}

// MutatingWebhook is one webhook asked to change an object.
type MutatingWebhook struct {
	// Name of the webhook: a fully qualified name, unique in the
	// configuration.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ClientConfig says how to reach the webhook.
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// Rules name the operations and resources sent to the webhook.
	// +listType=atomic
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// FailurePolicy when the webhook cannot answer: Fail (default) or
	// Ignore.
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// MatchPolicy: Equivalent (default) or Exact.
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	// NamespaceSelector limits the webhook to objects in, or being,
	// matching namespaces; {} (the default) matches every namespace.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// ObjectSelector limits the webhook to objects with matching labels;
	// {} (the default) matches every object.
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,11,opt,name=objectSelector"`
	// SideEffects: None or NoneOnDryRun. Required.
	SideEffects *SideEffectClass `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	// TimeoutSeconds the webhook has to answer, 1 to 30; 10 by default.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// AdmissionReviewVersions the webhook accepts, in order of preference.
	// +listType=atomic
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// ReinvocationPolicy: Never (default) or IfNeeded, to be called again
	// when a later plugin changed the object.
	ReinvocationPolicy *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
	// MatchConditions a request must all satisfy to be sent; at most 64.
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,rep,name=matchConditions"`
}

// ValidatingWebhookConfiguration lists webhooks asked whether requests
// may proceed.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ValidatingWebhookConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Webhooks of the configuration.
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	Webhooks []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// ValidatingWebhookConfigurationList is a list of
// ValidatingWebhookConfigurations.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ValidatingWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the configurations.
	Items []ValidatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingWebhookConfiguration lists webhooks asked to change objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type MutatingWebhookConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Webhooks of the configuration.
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	Webhooks []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// MutatingWebhookConfigurationList is a list of
// MutatingWebhookConfigurations.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type MutatingWebhookConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the configurations.
	Items []MutatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ParamKind names the kind of the objects that parameterize a policy.
type ParamKind struct {
	// APIVersion of the parameters, group/version.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	// Kind of the parameters.
	Kind string `json:"kind,omitempty" protobuf:"bytes,2,opt,name=kind"`
}

// MatchResources says which requests a policy or binding applies to:
// those of ResourceRules, in and of the selected namespaces and objects,
// but none of ExcludeResourceRules.
type MatchResources struct {
	// NamespaceSelector limits to objects in, or being, matching
	// namespaces; {} (the default) matches every namespace.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	// ObjectSelector limits to objects with matching labels; {} (the
	// default) matches every object.
	ObjectSelector *metav1.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	// ResourceRules the request must match one of.
	// +listType=atomic
	ResourceRules []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	// ExcludeResourceRules the request must match none of.
	// +listType=atomic
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	// MatchPolicy: Equivalent (default) or Exact.
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy,casttype=MatchPolicyType"`
}

// Variable is a named CEL expression the other expressions of a policy
// can use as variables.NAME.
type Variable struct {
	// Name of the variable: a C identifier.
	Name string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	// Expression is CEL.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// Validation is one CEL check of a validating policy.
type Validation struct {
	// Expression is CEL evaluating to true when the request is valid.
	Expression string `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	// Message returned when the check fails.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Reason returned when the check fails: Unauthorized, Forbidden,
	// Invalid or RequestEntityTooLarge; Invalid when not set.
	Reason *metav1.StatusReason `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// MessageExpression is CEL evaluating to the message; it wins over
	// Message when it evaluates.
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// AuditAnnotation is an audit annotation a validating policy adds.
type AuditAnnotation struct {
	// Key of the annotation, prefixed with the policy's name.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// ValueExpression is CEL evaluating to the value (a string or null).
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicySpec is the checks of a policy and what they
// apply to.
type ValidatingAdmissionPolicySpec struct {
	// ParamKind of the parameters the bindings name; none when nil.
	ParamKind *ParamKind `json:"paramKind,omitempty" protobuf:"bytes,1,opt,name=paramKind"`
	// MatchConstraints say which requests the policy applies to. Required.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty" protobuf:"bytes,2,opt,name=matchConstraints"`
	// Validations are the checks.
	// +listType=atomic
	Validations []Validation `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	// FailurePolicy when the policy cannot be evaluated: Fail (default) or
	// Ignore.
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// AuditAnnotations added to the audit event.
	// +listType=atomic
	AuditAnnotations []AuditAnnotation `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	// MatchConditions a request must all satisfy to be checked.
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	// Variables the expressions can use.
	// +listType=atomic
	Variables []Variable `json:"variables,omitempty" protobuf:"bytes,7,rep,name=variables"`
}

// ExpressionWarning is a type checking warning about one expression.
type ExpressionWarning struct {
	// FieldRef is the path of the expression.
	FieldRef string `json:"fieldRef" protobuf:"bytes,2,opt,name=fieldRef"`
	// Warning is what the type checker found.
	Warning string `json:"warning" protobuf:"bytes,3,opt,name=warning"`
}

// TypeChecking is the result of type checking a policy's expressions.
type TypeChecking struct {
	// ExpressionWarnings found.
	// +listType=atomic
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty" protobuf:"bytes,1,rep,name=expressionWarnings"`
}

// ValidatingAdmissionPolicyStatus is what the API server found checking a
// policy.
type ValidatingAdmissionPolicyStatus struct {
	// ObservedGeneration is the generation the status is about.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// TypeChecking results.
	TypeChecking *TypeChecking `json:"typeChecking,omitempty" protobuf:"bytes,2,opt,name=typeChecking"`
	// Conditions of the policy.
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`
}

// ValidatingAdmissionPolicy checks requests with CEL expressions, where a
// binding applies it.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ValidatingAdmissionPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the policy.
	Spec ValidatingAdmissionPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the API server found checking the policy.
	Status ValidatingAdmissionPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ValidatingAdmissionPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the policies.
	Items []ValidatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ParameterNotFoundActionType says what a binding does when its
// parameters are missing: Allow the request or Deny it.
type ParameterNotFoundActionType string

// The actions.
const (
	AllowAction ParameterNotFoundActionType = "Allow"
	DenyAction  ParameterNotFoundActionType = "Deny"
)

// ParamRef names the parameters of a binding: one object by name, or
// those a selector matches.
type ParamRef struct {
	// Name of the parameter object.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Namespace of the parameters, for namespaced kinds; empty means the
	// namespace of the request.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// Selector of the parameter objects, when no name is given.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,opt,name=selector"`
	// ParameterNotFoundAction: Allow or Deny. Required.
	ParameterNotFoundAction *ParameterNotFoundActionType `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,opt,name=parameterNotFoundAction"`
}

// ValidationAction says what a failed check does: Deny the request, Warn
// the client, or Audit (annotate the audit event).
type ValidationAction string

// The validation actions.
const (
	Deny  ValidationAction = "Deny"
	Warn  ValidationAction = "Warn"
	Audit ValidationAction = "Audit"
)

// ValidatingAdmissionPolicyBindingSpec applies a policy.
type ValidatingAdmissionPolicyBindingSpec struct {
	// PolicyName of the policy bound. Required.
	PolicyName string `json:"policyName,omitempty" protobuf:"bytes,1,opt,name=policyName"`
	// ParamRef names the parameters, for a policy with a paramKind.
	ParamRef *ParamRef `json:"paramRef,omitempty" protobuf:"bytes,2,opt,name=paramRef"`
	// MatchResources narrow the policy's own; nil keeps them.
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,opt,name=matchResources"`
	// ValidationActions taken on a failed check. Required.
	// +listType=set
	ValidationActions []ValidationAction `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ValidatingAdmissionPolicyBinding applies a ValidatingAdmissionPolicy to
// requests, with parameters.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ValidatingAdmissionPolicyBinding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the binding.
	Spec ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// ValidatingAdmissionPolicyBindingList is a list of
// ValidatingAdmissionPolicyBindings.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ValidatingAdmissionPolicyBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the bindings.
	Items []ValidatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PatchType is how a mutation says what to change.
type PatchType string

// The patch types.
const (
	PatchTypeApplyConfiguration PatchType = "ApplyConfiguration"
	PatchTypeJSONPatch          PatchType = "JSONPatch"
)

// ApplyConfiguration is a CEL expression evaluating to an apply
// configuration merged into the object.
type ApplyConfiguration struct {
	// Expression is CEL.
	Expression string `json:"expression,omitempty" protobuf:"bytes,1,opt,name=expression"`
}

// JSONPatch is a CEL expression evaluating to JSON patch operations.
type JSONPatch struct {
	// Expression is CEL.
	Expression string `json:"expression,omitempty" protobuf:"bytes,1,opt,name=expression"`
}

// Mutation is one change a mutating policy makes.
type Mutation struct {
	// PatchType: ApplyConfiguration or JSONPatch. Required.
	PatchType PatchType `json:"patchType" protobuf:"bytes,2,opt,name=patchType,casttype=PatchType"`
	// ApplyConfiguration when PatchType is ApplyConfiguration.
	ApplyConfiguration *ApplyConfiguration `json:"applyConfiguration,omitempty" protobuf:"bytes,3,opt,name=applyConfiguration"`
	// JSONPatch when PatchType is JSONPatch.
	JSONPatch *JSONPatch `json:"jsonPatch,omitempty" protobuf:"bytes,4,opt,name=jsonPatch"`
}

// MutatingAdmissionPolicySpec is the changes of a policy and what they
// apply to.
type MutatingAdmissionPolicySpec struct {
	// ParamKind of the parameters the bindings name; none when nil.
	ParamKind *ParamKind `json:"paramKind,omitempty" protobuf:"bytes,1,opt,name=paramKind"`
	// MatchConstraints say which requests the policy applies to. Required.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty" protobuf:"bytes,2,opt,name=matchConstraints"`
	// Variables the expressions can use.
	// +listType=atomic
	Variables []Variable `json:"variables,omitempty" protobuf:"bytes,3,rep,name=variables"`
	// Mutations are the changes, applied in order.
	// +listType=atomic
	Mutations []Mutation `json:"mutations,omitempty" protobuf:"bytes,4,rep,name=mutations"`
	// FailurePolicy when the policy cannot be evaluated: Fail (default) or
	// Ignore.
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,5,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// MatchConditions a request must all satisfy to be changed.
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	// ReinvocationPolicy: Never or IfNeeded. Required.
	ReinvocationPolicy ReinvocationPolicyType `json:"reinvocationPolicy,omitempty" protobuf:"bytes,7,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
}

// MutatingAdmissionPolicy changes objects with CEL expressions, where a
// binding applies it.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type MutatingAdmissionPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the policy.
	Spec MutatingAdmissionPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// MutatingAdmissionPolicyList is a list of MutatingAdmissionPolicies.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type MutatingAdmissionPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the policies.
	Items []MutatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingAdmissionPolicyBindingSpec applies a mutating policy.
type MutatingAdmissionPolicyBindingSpec struct {
	// PolicyName of the policy bound. Required.
	PolicyName string `json:"policyName,omitempty" protobuf:"bytes,1,opt,name=policyName"`
	// ParamRef names the parameters, for a policy with a paramKind.
	ParamRef *ParamRef `json:"paramRef,omitempty" protobuf:"bytes,2,opt,name=paramRef"`
	// MatchResources narrow the policy's own; nil keeps them.
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,opt,name=matchResources"`
}

// MutatingAdmissionPolicyBinding applies a MutatingAdmissionPolicy to
// requests, with parameters.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type MutatingAdmissionPolicyBinding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the binding.
	Spec MutatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// MutatingAdmissionPolicyBindingList is a list of
// MutatingAdmissionPolicyBindings.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type MutatingAdmissionPolicyBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the bindings.
	Items []MutatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
