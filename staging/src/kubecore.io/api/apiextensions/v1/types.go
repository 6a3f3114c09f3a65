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
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The resource the definition describes.
	Spec CustomResourceDefinitionSpec `json:"spec"`
	// The definition's observed state: conditions and accepted names.
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionList is a list of CustomResourceDefinitions.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CustomResourceDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The definitions.
	Items []CustomResourceDefinition `json:"items"`
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
	Group string `json:"group"`
	// The resource's names: plural, singular, kind, list kind, short names.
	Names CustomResourceDefinitionNames `json:"names"`
	// Cluster or Namespaced.
	Scope ResourceScope `json:"scope"`
	// The versions served, exactly one of them the storage version.
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// How objects convert between versions; only None is supported.
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// Keep fields the schema does not declare; must be false in v1.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionNames are the names of the resource.
type CustomResourceDefinitionNames struct {
	// The plural resource name, in lower case: the URL segment.
	Plural string `json:"plural"`
	// The singular name, in lower case; the lower-cased kind by default.
	Singular string `json:"singular,omitempty"`
	// Short names for the CLI.
	ShortNames []string `json:"shortNames,omitempty"`
	// The kind of the objects, in CamelCase.
	Kind string `json:"kind"`
	// The kind of lists; <kind>List by default.
	ListKind string `json:"listKind,omitempty"`
	// Groups of resources this one belongs to ("all").
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceConversion says how objects convert between versions.
type CustomResourceConversion struct {
	// None: only apiVersion changes. Webhook is not supported.
	Strategy ConversionStrategyType `json:"strategy"`
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
	Name string `json:"name"`
	// Whether the version is served.
	Served bool `json:"served"`
	// Whether objects are stored in this version; exactly one version is.
	Storage bool `json:"storage"`
	// Whether the version is deprecated; requests get a warning.
	Deprecated bool `json:"deprecated,omitempty"`
	// The warning of a deprecated version, instead of the default one.
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// The schema objects of this version are validated, pruned and
	// defaulted with.
	Schema *CustomResourceValidation `json:"schema,omitempty"`
	// The status and scale subresources.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// Extra columns of Table output (kubectl get).
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
}

// CustomResourceColumnDefinition is one extra column of Table output.
type CustomResourceColumnDefinition struct {
	// The column header.
	Name string `json:"name"`
	// The OpenAPI type of the cells: integer, number, string, boolean or date.
	Type string `json:"type"`
	// An OpenAPI format of the cells.
	Format string `json:"format,omitempty"`
	// A description of the column.
	Description string `json:"description,omitempty"`
	// 0 for the default columns; higher ones show only with -o wide.
	Priority int32 `json:"priority,omitempty"`
	// A simple JSONPath, relative to each object, of the cell's value.
	JSONPath string `json:"jsonPath"`
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Serve /status: the main resource ignores status, /status everything
	// else.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Serve /scale as an autoscaling/v1 Scale.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables the status subresource; it has
// no fields.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps a Scale onto the objects' fields.
type CustomResourceSubresourceScale struct {
	// The JSON path (".spec.replicas") of the desired replicas.
	SpecReplicasPath string `json:"specReplicasPath"`
	// The JSON path (".status.replicas") of the observed replicas.
	StatusReplicasPath string `json:"statusReplicasPath"`
	// The JSON path (".status.selector") of the label selector string.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	// The OpenAPI v3 schema of the objects.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// JSONSchemaProps is a JSON-Schema following OpenAPI v3, with Kubernetes'
// extensions.
type JSONSchemaProps struct {
	ID                   string                     `json:"id,omitempty"`
	Schema               string                     `json:"$schema,omitempty"`
	Ref                  *string                    `json:"$ref,omitempty"`
	Description          string                     `json:"description,omitempty"`
	Type                 string                     `json:"type,omitempty"`
	Format               string                     `json:"format,omitempty"`
	Title                string                     `json:"title,omitempty"`
	Default              *JSON                      `json:"default,omitempty"`
	Maximum              *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum     bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum              *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum     bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength            *int64                     `json:"maxLength,omitempty"`
	MinLength            *int64                     `json:"minLength,omitempty"`
	Pattern              string                     `json:"pattern,omitempty"`
	MaxItems             *int64                     `json:"maxItems,omitempty"`
	MinItems             *int64                     `json:"minItems,omitempty"`
	UniqueItems          bool                       `json:"uniqueItems,omitempty"`
	MultipleOf           *float64                   `json:"multipleOf,omitempty"`
	Enum                 []JSON                     `json:"enum,omitempty"`
	MaxProperties        *int64                     `json:"maxProperties,omitempty"`
	MinProperties        *int64                     `json:"minProperties,omitempty"`
	Required             []string                   `json:"required,omitempty"`
	Items                *JSONSchemaPropsOrArray    `json:"items,omitempty"`
	AllOf                []JSONSchemaProps          `json:"allOf,omitempty"`
	OneOf                []JSONSchemaProps          `json:"oneOf,omitempty"`
	AnyOf                []JSONSchemaProps          `json:"anyOf,omitempty"`
	Not                  *JSONSchemaProps           `json:"not,omitempty"`
	Properties           map[string]JSONSchemaProps `json:"properties,omitempty"`
	AdditionalProperties *JSONSchemaPropsOrBool     `json:"additionalProperties,omitempty"`
	PatternProperties    map[string]JSONSchemaProps `json:"patternProperties,omitempty"`
	Example              *JSON                      `json:"example,omitempty"`
	Nullable             bool                       `json:"nullable,omitempty"`

	// x-kubernetes-preserve-unknown-fields keeps fields the schema does
	// not declare, here and below, instead of pruning them.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// x-kubernetes-embedded-resource: the value is an object with its own
	// apiVersion, kind and metadata.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// x-kubernetes-int-or-string: the value is an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// x-kubernetes-list-map-keys are the keys of a list of type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// x-kubernetes-list-type: atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty"`
	// x-kubernetes-map-type: granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty"`
}

// JSON is any JSON value, kept as its encoding; null is kept as no bytes.
type JSON struct {
	Raw []byte `json:"-"`
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
	Schema      *JSONSchemaProps  `json:"-"`
	JSONSchemas []JSONSchemaProps `json:"-"`
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
	Allows bool             `json:"-"`
	Schema *JSONSchemaProps `json:"-"`
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
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	// The names actually served; they may differ from spec.names while a
	// conflict lasts.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// The versions objects have ever been stored in.
	StoredVersions []string `json:"storedVersions"`
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
	Type CustomResourceDefinitionConditionType `json:"type"`
	// True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// When the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// A CamelCase reason for the status.
	Reason string `json:"reason,omitempty"`
	// A human-readable message.
	Message string `json:"message,omitempty"`
}

// CustomResourceCleanupFinalizer holds a definition being deleted until
// every object of its resource is gone.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"
