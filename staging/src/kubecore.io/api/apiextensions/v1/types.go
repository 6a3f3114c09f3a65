package v1

import (
	"bytes"
	"encoding/json"
	"errors"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// CustomResourceDefinition adds a resource to the API: its group, names,
// scope and versions, each with the schema its objects are checked
// against. The resource is served once the definition is Established.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CustomResourceDefinition struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; the name is <plural>.<group>.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The resource the definition describes.
	Spec CustomResourceDefinitionSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The definition's observed state: conditions and accepted names.
	Status CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CustomResourceDefinitionList is a list of CustomResourceDefinitions.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CustomResourceDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The definitions.
	Items []CustomResourceDefinition `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ResourceScope says whether the custom objects live in namespaces.
type ResourceScope string

// The scopes.
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// CustomResourceDefinitionSpec describes the resource.
type CustomResourceDefinitionSpec struct {
	// The API group of the resource (/apis/<group>/...).
	Group string `json:"group" protobuf:"bytes,1,opt,name=group"`
	// The resource's names: plural, singular, kind, list kind, short names.
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	// Cluster or Namespaced.
	Scope ResourceScope `json:"scope" protobuf:"bytes,4,opt,name=scope"`
	// The versions served, exactly one of them the storage version.
	Versions []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	// How objects convert between versions; only None is supported.
	Conversion *CustomResourceConversion `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// Keep fields the schema does not declare; must be false in v1.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceDefinitionNames are the names of the resource.
type CustomResourceDefinitionNames struct {
	// The plural resource name, in lower case: the URL segment.
	Plural string `json:"plural" protobuf:"bytes,1,opt,name=plural"`
	// The singular name, in lower case; the lower-cased kind by default.
	Singular string `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	// Short names for the CLI.
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,rep,name=shortNames"`
	// The kind of the objects, in CamelCase.
	Kind string `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	// The kind of lists; <kind>List by default.
	ListKind string `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	// Groups of resources this one belongs to ("all").
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion struct {
	// None: only apiVersion changes. Webhook: a webhook converts.
	Strategy ConversionStrategyType `json:"strategy" protobuf:"bytes,1,opt,name=strategy"`
	// Webhook says how to call the webhook when Strategy is Webhook.
	Webhook *WebhookConversion `json:"webhook,omitempty" protobuf:"bytes,2,opt,name=webhook"`
}

// WebhookConversion is where a conversion webhook is and what it speaks.
type WebhookConversion struct {
	// ClientConfig says how to reach the webhook.
	ClientConfig *WebhookClientConfig `json:"clientConfig,omitempty" protobuf:"bytes,2,opt,name=clientConfig"`
	// ConversionReviewVersions are the ConversionReview versions the
	// webhook accepts, preferred first; the API server sends the first it
	// knows (v1).
	// +listType=atomic
	ConversionReviewVersions []string `json:"conversionReviewVersions" protobuf:"bytes,3,rep,name=conversionReviewVersions"`
}

// WebhookClientConfig says how to reach a webhook over TLS: a URL or a
// Service, and the CA that signed its certificate.
type WebhookClientConfig struct {
	// URL is https://host[:port]/path, without user info, query or fragment.
	URL *string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// Service is the Service in front of the webhook.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// CABundle is the PEM CA bundle that validates the webhook's
	// certificate; the system roots when empty.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference names a port of a Service and a path on it.
type ServiceReference struct {
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	Name      string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// Path is the URL path requests are sent to.
	Path *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	// Port is the Service port; 443 by default.
	Port *int32 `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// ConversionStrategyType names a conversion strategy.
type ConversionStrategyType string

// The conversion strategies.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceDefinitionVersion is one version of the resource.
type CustomResourceDefinitionVersion struct {
	// The version name ("v1", "v1beta1"): /apis/<group>/<name>/...
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Whether the version is served.
	Served bool `json:"served" protobuf:"varint,2,opt,name=served"`
	// Whether objects are stored in this version; exactly one version is.
	Storage bool `json:"storage" protobuf:"varint,3,opt,name=storage"`
	// Whether the version is deprecated; requests get a warning.
	Deprecated bool `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	// The warning of a deprecated version, instead of the default one.
	DeprecationWarning *string `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	// The schema objects of this version are validated, pruned and
	// defaulted with.
	Schema *CustomResourceValidation `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	// The status and scale subresources.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	// Extra columns of Table output (kubectl get).
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	// The fields, besides metadata.name and metadata.namespace, that
	// field selectors of lists and watches can use.
	SelectableFields []SelectableField `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// SelectableField is a field of custom objects that field selectors can
// use, named by its path without the leading dot (".spec.color" is
// spec.color).
type SelectableField struct {
	// A simple JSONPath, relative to each object, of a string, integer or
	// boolean field.
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath"`
}

// CustomResourceColumnDefinition is one extra column of Table output.
type CustomResourceColumnDefinition struct {
	// The column header.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// The OpenAPI type of the cells: integer, number, string, boolean or date.
	Type string `json:"type" protobuf:"bytes,2,opt,name=type"`
	// An OpenAPI format of the cells.
	Format string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	// A description of the column.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// 0 for the default columns; higher ones show only with -o wide.
	Priority int32 `json:"priority,omitempty" protobuf:"varint,5,opt,name=priority"`
	// A simple JSONPath, relative to each object, of the cell's value.
	JSONPath string `json:"jsonPath" protobuf:"bytes,6,opt,name=jsonPath"`
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Serve /status: the main resource ignores status, /status everything
	// else.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// Serve /scale as an autoscaling/v1 Scale.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
}

// CustomResourceSubresourceStatus enables the status subresource; it has
// no fields.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps a Scale onto the objects' fields.
type CustomResourceSubresourceScale struct {
	// The JSON path (".spec.replicas") of the desired replicas.
	SpecReplicasPath string `json:"specReplicasPath" protobuf:"bytes,1,opt,name=specReplicasPath"`
	// The JSON path (".status.replicas") of the observed replicas.
	StatusReplicasPath string `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath"`
	// The JSON path (".status.selector") of the label selector string.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	// The OpenAPI v3 schema of the objects.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// JSONSchemaProps is a JSON-Schema following OpenAPI v3, with Kubernetes'
// extensions.
type JSONSchemaProps struct {
	ID                   string                     `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	Schema               string                     `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	Ref                  *string                    `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	Description          string                     `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Type                 string                     `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	Format               string                     `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	Title                string                     `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	Default              *JSON                      `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	Maximum              *float64                   `json:"maximum,omitempty" protobuf:"fixed64,9,opt,name=maximum"`
	ExclusiveMaximum     bool                       `json:"exclusiveMaximum,omitempty" protobuf:"varint,10,opt,name=exclusiveMaximum"`
	Minimum              *float64                   `json:"minimum,omitempty" protobuf:"fixed64,11,opt,name=minimum"`
	ExclusiveMinimum     bool                       `json:"exclusiveMinimum,omitempty" protobuf:"varint,12,opt,name=exclusiveMinimum"`
	MaxLength            *int64                     `json:"maxLength,omitempty" protobuf:"varint,13,opt,name=maxLength"`
	MinLength            *int64                     `json:"minLength,omitempty" protobuf:"varint,14,opt,name=minLength"`
	Pattern              string                     `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	MaxItems             *int64                     `json:"maxItems,omitempty" protobuf:"varint,16,opt,name=maxItems"`
	MinItems             *int64                     `json:"minItems,omitempty" protobuf:"varint,17,opt,name=minItems"`
	UniqueItems          bool                       `json:"uniqueItems,omitempty" protobuf:"varint,18,opt,name=uniqueItems"`
	MultipleOf           *float64                   `json:"multipleOf,omitempty" protobuf:"fixed64,19,opt,name=multipleOf"`
	Enum                 []JSON                     `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	MaxProperties        *int64                     `json:"maxProperties,omitempty" protobuf:"varint,21,opt,name=maxProperties"`
	MinProperties        *int64                     `json:"minProperties,omitempty" protobuf:"varint,22,opt,name=minProperties"`
	Required             []string                   `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`
	Items                *JSONSchemaPropsOrArray    `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	AllOf                []JSONSchemaProps          `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	OneOf                []JSONSchemaProps          `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	AnyOf                []JSONSchemaProps          `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	Not                  *JSONSchemaProps           `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	Properties           map[string]JSONSchemaProps `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties"`
	AdditionalProperties *JSONSchemaPropsOrBool     `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	PatternProperties    map[string]JSONSchemaProps `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties"`
	Example              *JSON                      `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	Nullable             bool                       `json:"nullable,omitempty" protobuf:"varint,37,opt,name=nullable"`

	// x-kubernetes-preserve-unknown-fields keeps fields the schema does
	// not declare, here and below, instead of pruning them.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"varint,38,opt,name=xKubernetesPreserveUnknownFields"`
	// x-kubernetes-embedded-resource: the value is an object with its own
	// apiVersion, kind and metadata.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"varint,39,opt,name=xKubernetesEmbeddedResource"`
	// x-kubernetes-int-or-string: the value is an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty" protobuf:"varint,40,opt,name=xKubernetesIntOrString"`
	// x-kubernetes-list-map-keys are the keys of a list of type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	// x-kubernetes-list-type: atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	// x-kubernetes-map-type: granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	// x-kubernetes-validations are CEL rules the value must satisfy.
	XValidations ValidationRules `json:"x-kubernetes-validations,omitempty" patchStrategy:"merge" patchMergeKey:"rule" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
}

// ValidationRules are the CEL rules of one schema node.
type ValidationRules []ValidationRule

// ValidationRule is one CEL rule of a schema node: self is the node's
// value, oldSelf (in a transition rule) its value before an update.
type ValidationRule struct {
	// The CEL expression; it must evaluate to true.
	Rule string `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	// The message of a violation; "failed rule: <rule>" when empty.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// A CEL expression computing the message of a violation; it wins over
	// message when it evaluates to a non-empty single-line string.
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	// The reason of a violation: FieldValueInvalid (the default),
	// FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.
	Reason *FieldValueErrorReason `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// A JSON path, relative to the node, of the field a violation names.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	// Evaluate a transition rule on create too, with oldSelf an optional
	// that is none.
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty" protobuf:"varint,6,opt,name=optionalOldSelf"`
}

// FieldValueErrorReason is the reason of a validation rule's violation.
type FieldValueErrorReason string

// The reasons of validation rules.
const (
	FieldValueRequired  FieldValueErrorReason = "FieldValueRequired"
	FieldValueDuplicate FieldValueErrorReason = "FieldValueDuplicate"
	FieldValueInvalid   FieldValueErrorReason = "FieldValueInvalid"
	FieldValueForbidden FieldValueErrorReason = "FieldValueForbidden"
)

// JSON is any JSON value, kept as its encoding; null is kept as no bytes.
type JSON struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// MarshalJSON writes the value (null when empty).
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) == 0 {
		return []byte("null"), nil
	}
	return j.Raw, nil
}

// UnmarshalJSON keeps a copy of the value; null leaves it empty.
func (j *JSON) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		j.Raw = nil
		return nil
	}
	j.Raw = append(j.Raw[:0], data...)
	return nil
}

// JSONSchemaPropsOrArray is the value of items: one schema for every
// element, or (not supported in structural schemas) one per position.
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps  `json:"-" protobuf:"bytes,1,opt,name=schema"`
	JSONSchemas []JSONSchemaProps `json:"-" protobuf:"bytes,2,rep,name=jSONSchemas"`
}

// MarshalJSON writes the schema or the array of schemas.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema or an array of schemas.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '{':
		s.Schema, s.JSONSchemas = &JSONSchemaProps{}, nil
		return json.Unmarshal(data, s.Schema)
	case len(data) > 0 && data[0] == '[':
		s.Schema = nil
		return json.Unmarshal(data, &s.JSONSchemas)
	case bytes.Equal(data, []byte("null")):
		*s = JSONSchemaPropsOrArray{}
		return nil
	}
	return errors.New("items must be a schema or an array of schemas")
}

// JSONSchemaPropsOrBool is the value of additionalProperties: a boolean
// or the schema of the additional values.
type JSONSchemaPropsOrBool struct {
	Allows bool             `json:"-" protobuf:"varint,1,opt,name=allows"`
	Schema *JSONSchemaProps `json:"-" protobuf:"bytes,2,opt,name=schema"`
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads a boolean or a schema (which allows).
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '{':
		s.Allows, s.Schema = true, &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case bytes.Equal(data, []byte("true")), bytes.Equal(data, []byte("false")):
		s.Schema = nil
		return json.Unmarshal(data, &s.Allows)
	case bytes.Equal(data, []byte("null")):
		*s = JSONSchemaPropsOrBool{}
		return nil
	}
	return errors.New("additionalProperties must be a boolean or a schema")
}

// CustomResourceDefinitionStatus is the observed state of a definition.
type CustomResourceDefinitionStatus struct {
	// The definition's conditions: NamesAccepted, Established, Terminating.
	// +listType=map
	// +listMapKey=type
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
	// The names actually served; they may differ from spec.names while a
	// conflict lasts.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames"`
	// The versions objects have ever been stored in.
	StoredVersions []string `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
}

// CustomResourceDefinitionConditionType names a condition.
type CustomResourceDefinitionConditionType string

// The condition types.
const (
	// Established: the resource is served.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted: the names conflict with no other resource.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// Terminating: the definition is being deleted, its objects first.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// CustomResourceDefinitionCondition is one condition of a definition.
type CustomResourceDefinitionCondition struct {
	// The condition's type.
	Type CustomResourceDefinitionConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// When the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// A CamelCase reason for the status.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// A human-readable message.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// CustomResourceCleanupFinalizer holds a definition being deleted until
// every object of its resource is gone.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"
