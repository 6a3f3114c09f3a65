package v1

import (
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
)

// ResourceSlice represents one or more resources in a pool of similar
// resources, managed by a common driver.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceSlice struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Contains the information published by the driver. Changing the spec
	// automatically increments the metadata.generation number.
	Spec ResourceSliceSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// ResourceSliceSpec contains the information published by the driver in
// one ResourceSlice.
type ResourceSliceSpec struct {
	// Driver identifies the DRA driver providing the capacity information.
	// This field is immutable.
	Driver string `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	// Pool describes the pool that this ResourceSlice belongs to.
	Pool ResourcePool `json:"pool" protobuf:"bytes,2,opt,name=pool"`
	// NodeName identifies the node which provides the resources in this
	// pool. Exactly one of NodeName, NodeSelector, AllNodes and
	// PerDeviceNodeSelection must be set. This field is immutable.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,3,opt,name=nodeName"`
	// NodeSelector defines which nodes have access to the resources in the
	// pool, when that pool is not limited to a single node.
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty" protobuf:"bytes,4,opt,name=nodeSelector"`
	// AllNodes indicates that all nodes have access to the resources in the
	// pool.
	AllNodes *bool `json:"allNodes,omitempty" protobuf:"varint,5,opt,name=allNodes"`
	// Devices lists some or all of the devices in this pool. Must not have
	// more than 128 entries.
	Devices []Device `json:"devices,omitempty" protobuf:"bytes,6,rep,name=devices"`
	// PerDeviceNodeSelection defines whether the access from nodes to
	// resources in the pool is set on the ResourceSlice level or on each
	// device.
	PerDeviceNodeSelection *bool `json:"perDeviceNodeSelection,omitempty" protobuf:"varint,7,opt,name=perDeviceNodeSelection"`
	// SharedCounters defines a list of counter sets, each of which has a
	// name and a list of counters available.
	SharedCounters []CounterSet `json:"sharedCounters,omitempty" protobuf:"bytes,8,rep,name=sharedCounters"`
}

// CounterSet defines a named set of counters that are available to be
// used by devices defined in the ResourceSlice.
type CounterSet struct {
	// Name defines the name of the counter set. It must be a DNS label.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Counters defines the set of counters for this CounterSet.
	Counters map[string]Counter `json:"counters,omitempty" protobuf:"bytes,2,rep,name=counters"`
}

// ResourcePool describes the pool that ResourceSlices belong to.
type ResourcePool struct {
	// Name is used to identify the pool. For node-local devices, this is
	// often the node name, but this is not required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Generation tracks the change in a pool over time. Whenever a driver
	// changes something about one or more of the resources in a pool, it
	// must change the generation in all ResourceSlices which are part of
	// that pool.
	Generation int64 `json:"generation" protobuf:"varint,2,opt,name=generation"`
	// ResourceSliceCount is the total number of ResourceSlices in the pool
	// at this generation number. Must be greater than zero.
	ResourceSliceCount int64 `json:"resourceSliceCount" protobuf:"varint,3,opt,name=resourceSliceCount"`
}

// Device represents one individual hardware instance that can be
// selected based on its attributes.
type Device struct {
	// Name is unique identifier among all devices managed by the driver in
	// the pool. It must be a DNS label.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Attributes defines the set of attributes for this device. The name of
	// each attribute must be unique in that set.
	Attributes map[QualifiedName]DeviceAttribute `json:"attributes,omitempty" protobuf:"bytes,2,rep,name=attributes"`
	// Capacity defines the set of capacities for this device. The name of
	// each capacity must be unique in that set.
	Capacity map[QualifiedName]DeviceCapacity `json:"capacity,omitempty" protobuf:"bytes,3,rep,name=capacity"`
	// ConsumesCounters defines a list of references to sharedCounters and
	// the set of counters that the device will consume from those counter
	// sets.
	ConsumesCounters []DeviceCounterConsumption `json:"consumesCounters,omitempty" protobuf:"bytes,4,rep,name=consumesCounters"`
	// NodeName identifies the node where the device is available. Only
	// with perDeviceNodeSelection.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,5,opt,name=nodeName"`
	// NodeSelector defines the nodes where the device is available. Only
	// with perDeviceNodeSelection.
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty" protobuf:"bytes,6,opt,name=nodeSelector"`
	// AllNodes indicates that all nodes have access to the device. Only
	// with perDeviceNodeSelection.
	AllNodes *bool `json:"allNodes,omitempty" protobuf:"varint,7,opt,name=allNodes"`
	// If specified, these are the driver-defined taints.
	Taints []DeviceTaint `json:"taints,omitempty" protobuf:"bytes,8,rep,name=taints"`
}

// DeviceCounterConsumption defines a set of counters that a device will
// consume from a CounterSet.
type DeviceCounterConsumption struct {
	// CounterSet is the name of the set from which the counters defined
	// will be consumed.
	CounterSet string `json:"counterSet" protobuf:"bytes,1,opt,name=counterSet"`
	// Counters defines the counters that will be consumed by the device.
	Counters map[string]Counter `json:"counters,omitempty" protobuf:"bytes,2,rep,name=counters"`
}

// Counter describes a quantity associated with a device.
type Counter struct {
	// Value defines how much of a certain device counter is available.
	Value resource.Quantity `json:"value" protobuf:"bytes,1,opt,name=value"`
}

// QualifiedName is the name of a device attribute or capacity: an
// optional domain and a C identifier ("model", "dra.example.com/model").
type QualifiedName string

// FullyQualifiedName is a QualifiedName where the domain is set.
type FullyQualifiedName string

// DeviceAttribute must have exactly one field set.
type DeviceAttribute struct {
	// IntValue is a number.
	IntValue *int64 `json:"int,omitempty" protobuf:"varint,2,opt,name=int"`
	// BoolValue is a true/false value.
	BoolValue *bool `json:"bool,omitempty" protobuf:"varint,3,opt,name=bool"`
	// StringValue is a string. Must not be longer than 64 characters.
	StringValue *string `json:"string,omitempty" protobuf:"bytes,4,opt,name=string"`
	// VersionValue is a semantic version according to semver.org spec
	// 2.0.0. Must not be longer than 64 characters.
	VersionValue *string `json:"version,omitempty" protobuf:"bytes,5,opt,name=version"`
}

// DeviceCapacity describes a quantity associated with a device.
type DeviceCapacity struct {
	// Value defines how much of a certain capacity that device has.
	Value resource.Quantity `json:"value" protobuf:"bytes,1,opt,name=value"`
}

// DeviceTaint is the taint of a device: it keeps claims that do not
// tolerate it from being allocated the device.
type DeviceTaint struct {
	// The taint key to be applied to a device. Must be a label name.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// The taint value corresponding to the taint key. Must be a label
	// value.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// The effect of the taint on claims that do not tolerate the taint and
	// through such claims on the pods using them. Valid effects are
	// NoSchedule and NoExecute.
	Effect DeviceTaintEffect `json:"effect" protobuf:"bytes,3,opt,name=effect"`
	// TimeAdded represents the time at which the taint was added.
	TimeAdded *metav1.Time `json:"timeAdded,omitempty" protobuf:"bytes,4,opt,name=timeAdded"`
}

// DeviceTaintEffect is the effect of a device taint.
type DeviceTaintEffect string

// The device taint effects.
const (
	DeviceTaintEffectNoSchedule DeviceTaintEffect = "NoSchedule"
	DeviceTaintEffectNoExecute  DeviceTaintEffect = "NoExecute"
)

// ResourceSliceList is a collection of ResourceSlices.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceSliceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of resource ResourceSlices.
	Items []ResourceSlice `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ResourceClaim describes a request for access to resources in the
// cluster, for use by workloads.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceClaim struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes what is being requested and how to configure it. The
	// spec is immutable.
	Spec ResourceClaimSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status describes whether the claim is ready to use and what has been
	// allocated.
	Status ResourceClaimStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceClaimSpec defines what is being requested in a ResourceClaim and
// how to configure it.
type ResourceClaimSpec struct {
	// Devices defines how to request devices.
	Devices DeviceClaim `json:"devices" protobuf:"bytes,1,opt,name=devices"`
}

// DeviceClaim defines how to request devices with a ResourceClaim.
type DeviceClaim struct {
	// Requests represent individual requests for distinct devices which
	// must all be satisfied.
	Requests []DeviceRequest `json:"requests" protobuf:"bytes,1,rep,name=requests"`
	// These constraints must be satisfied by the set of devices that get
	// allocated for the claim.
	Constraints []DeviceConstraint `json:"constraints,omitempty" protobuf:"bytes,2,rep,name=constraints"`
	// This field holds configuration for multiple potential drivers which
	// could satisfy requests in this claim.
	Config []DeviceClaimConfiguration `json:"config,omitempty" protobuf:"bytes,3,rep,name=config"`
}

// DeviceRequest is a request for devices required for a claim. Exactly
// one of Exactly and FirstAvailable must be set.
type DeviceRequest struct {
	// Name can be used to reference this request in a
	// pod.spec.containers[].resources.claims entry and in a constraint of
	// the claim. It must be a DNS label.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Exactly specifies the details for a single request that must be met
	// exactly for the request to be satisfied.
	Exactly *ExactDeviceRequest `json:"exactly,omitempty" protobuf:"bytes,2,opt,name=exactly"`
	// FirstAvailable contains subrequests, of which exactly one will be
	// selected by the scheduler.
	FirstAvailable []DeviceSubRequest `json:"firstAvailable,omitempty" protobuf:"bytes,3,rep,name=firstAvailable"`
}

// ExactDeviceRequest is a request for one or more identical devices.
type ExactDeviceRequest struct {
	// DeviceClassName references a specific DeviceClass, which can define
	// additional configuration and selectors to be inherited by this
	// request.
	DeviceClassName string `json:"deviceClassName" protobuf:"bytes,1,opt,name=deviceClassName"`
	// Selectors define criteria which must be satisfied by a specific
	// device in order for that device to be considered for this request.
	Selectors []DeviceSelector `json:"selectors,omitempty" protobuf:"bytes,2,rep,name=selectors"`
	// AllocationMode and its related fields define how devices are
	// allocated to satisfy this request: ExactCount (the default) or All.
	AllocationMode DeviceAllocationMode `json:"allocationMode,omitempty" protobuf:"bytes,3,opt,name=allocationMode"`
	// Count is used only when the count mode is "ExactCount". Must be
	// greater than zero. If AllocationMode is ExactCount and this field is
	// not specified, the default is one.
	Count int64 `json:"count,omitempty" protobuf:"varint,4,opt,name=count"`
	// AdminAccess indicates that this is a claim for administrative access
	// to the device(s).
	AdminAccess *bool `json:"adminAccess,omitempty" protobuf:"varint,5,opt,name=adminAccess"`
	// If specified, the request's tolerations.
	Tolerations []DeviceToleration `json:"tolerations,omitempty" protobuf:"bytes,6,rep,name=tolerations"`
}

// DeviceSubRequest describes a request for device provided in the
// claim.spec.devices.requests[].firstAvailable array.
type DeviceSubRequest struct {
	// Name can be used to reference this subrequest in the list of
	// constraints or the list of configurations for the claim. It must be
	// a DNS label.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// DeviceClassName references a specific DeviceClass.
	DeviceClassName string `json:"deviceClassName" protobuf:"bytes,2,opt,name=deviceClassName"`
	// Selectors define criteria which must be satisfied by a specific
	// device in order for that device to be considered for this
	// subrequest.
	Selectors []DeviceSelector `json:"selectors,omitempty" protobuf:"bytes,3,rep,name=selectors"`
	// AllocationMode and its related fields define how devices are
	// allocated to satisfy this subrequest.
	AllocationMode DeviceAllocationMode `json:"allocationMode,omitempty" protobuf:"bytes,4,opt,name=allocationMode"`
	// Count is used only when the count mode is "ExactCount".
	Count int64 `json:"count,omitempty" protobuf:"varint,5,opt,name=count"`
	// If specified, the request's tolerations.
	Tolerations []DeviceToleration `json:"tolerations,omitempty" protobuf:"bytes,6,rep,name=tolerations"`
}

// DeviceAllocationMode is how a request is satisfied.
type DeviceAllocationMode string

// The allocation modes.
const (
	// DeviceAllocationModeExactCount: exactly count devices.
	DeviceAllocationModeExactCount DeviceAllocationMode = "ExactCount"
	// DeviceAllocationModeAll: every matching device of the pool.
	DeviceAllocationModeAll DeviceAllocationMode = "All"
)

// DeviceSelector must have exactly one field set.
type DeviceSelector struct {
	// CEL contains a CEL expression for selecting a device.
	CEL *CELDeviceSelector `json:"cel,omitempty" protobuf:"bytes,1,opt,name=cel"`
}

// CELDeviceSelector contains a CEL expression for selecting a device.
type CELDeviceSelector struct {
	// Expression is a CEL expression which evaluates a single device. It
	// must evaluate to true when the device under consideration satisfies
	// the desired criteria, and false when it does not.
	Expression string `json:"expression" protobuf:"bytes,1,opt,name=expression"`
}

// DeviceConstraint must have exactly one field set besides Requests.
type DeviceConstraint struct {
	// Requests is a list of the one or more requests in this claim which
	// must co-satisfy this constraint.
	Requests []string `json:"requests,omitempty" protobuf:"bytes,1,rep,name=requests"`
	// MatchAttribute requires that all devices in question have this
	// attribute and that its type and value are the same across those
	// devices.
	MatchAttribute *FullyQualifiedName `json:"matchAttribute,omitempty" protobuf:"bytes,2,opt,name=matchAttribute"`
	// DistinctAttribute requires that all devices in question have this
	// attribute and that its type and value are unique across those
	// devices.
	DistinctAttribute *FullyQualifiedName `json:"distinctAttribute,omitempty" protobuf:"bytes,3,opt,name=distinctAttribute"`
}

// DeviceClaimConfiguration is used for configuration parameters in
// DeviceClaim.
type DeviceClaimConfiguration struct {
	// Requests lists the names of requests where the configuration
	// applies. If empty, it applies to all requests.
	Requests []string `json:"requests,omitempty" protobuf:"bytes,1,rep,name=requests"`

	DeviceConfiguration `json:",inline" protobuf:"bytes,2,opt,name=deviceConfiguration"`
}

// DeviceConfiguration must have exactly one field set.
type DeviceConfiguration struct {
	// Opaque provides driver-specific configuration parameters.
	Opaque *OpaqueDeviceConfiguration `json:"opaque,omitempty" protobuf:"bytes,1,opt,name=opaque"`
}

// OpaqueDeviceConfiguration contains configuration parameters for a
// driver in a format defined by the driver vendor.
type OpaqueDeviceConfiguration struct {
	// Driver is used to determine which kubelet plugin needs to be passed
	// these configuration parameters. It must be a DNS subdomain.
	Driver string `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	// Parameters can contain arbitrary data. It is the responsibility of
	// the driver developer to handle validation and versioning.
	Parameters runtime.RawExtension `json:"parameters" protobuf:"bytes,2,opt,name=parameters"`
}

// DeviceToleration tolerates a device taint.
type DeviceToleration struct {
	// Key is the taint key that the toleration applies to. Empty means
	// match all taint keys.
	Key string `json:"key,omitempty" protobuf:"bytes,1,opt,name=key"`
	// Operator represents a key's relationship to the value. Valid
	// operators are Exists and Equal. Defaults to Equal.
	Operator DeviceTolerationOperator `json:"operator,omitempty" protobuf:"bytes,2,opt,name=operator"`
	// Value is the taint value the toleration matches to.
	Value string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
	// Effect indicates the taint effect to match. Empty means match all
	// taint effects.
	Effect DeviceTaintEffect `json:"effect,omitempty" protobuf:"bytes,4,opt,name=effect"`
	// TolerationSeconds represents the period of time the toleration (which
	// must be of effect NoExecute) tolerates the taint.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty" protobuf:"varint,5,opt,name=tolerationSeconds"`
}

// DeviceTolerationOperator is how a toleration matches a taint's value.
type DeviceTolerationOperator string

// The toleration operators.
const (
	DeviceTolerationOpExists DeviceTolerationOperator = "Exists"
	DeviceTolerationOpEqual  DeviceTolerationOperator = "Equal"
)

// ResourceClaimStatus tracks whether the resource has been allocated and
// what the result of that was.
type ResourceClaimStatus struct {
	// Allocation is set once the claim has been allocated successfully.
	Allocation *AllocationResult `json:"allocation,omitempty" protobuf:"bytes,1,opt,name=allocation"`
	// ReservedFor indicates which entities are currently allowed to use
	// the claim. There can be at most 256 such reservations.
	ReservedFor []ResourceClaimConsumerReference `json:"reservedFor,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,2,rep,name=reservedFor"`
	// Devices contains the status of each device allocated for this claim,
	// as reported by the driver.
	Devices []AllocatedDeviceStatus `json:"devices,omitempty" protobuf:"bytes,4,rep,name=devices"`
}

// ResourceClaimConsumerReference contains enough information to let you
// locate the consumer of a ResourceClaim.
type ResourceClaimConsumerReference struct {
	// APIGroup is the group for the resource being referenced. It is empty
	// for the core API.
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,1,opt,name=apiGroup"`
	// Resource is the type of resource being referenced, for example
	// "pods".
	Resource string `json:"resource" protobuf:"bytes,3,opt,name=resource"`
	// Name is the name of resource being referenced.
	Name string `json:"name" protobuf:"bytes,4,opt,name=name"`
	// UID identifies exactly one incarnation of the resource.
	UID types.UID `json:"uid" protobuf:"bytes,5,opt,name=uid"`
}

// AllocationResult contains attributes of an allocated resource.
type AllocationResult struct {
	// Devices is the result of allocating devices.
	Devices DeviceAllocationResult `json:"devices,omitempty" protobuf:"bytes,1,opt,name=devices"`
	// NodeSelector defines where the allocated resources are available. If
	// unset, they are available everywhere.
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty" protobuf:"bytes,3,opt,name=nodeSelector"`
	// AllocationTimestamp stores the time when the resources were
	// allocated.
	AllocationTimestamp *metav1.Time `json:"allocationTimestamp,omitempty" protobuf:"bytes,5,opt,name=allocationTimestamp"`
}

// DeviceAllocationResult is the result of allocating devices.
type DeviceAllocationResult struct {
	// Results lists all allocated devices.
	Results []DeviceRequestAllocationResult `json:"results,omitempty" protobuf:"bytes,1,rep,name=results"`
	// This field is a combination of all the claim and class configuration
	// parameters.
	Config []DeviceAllocationConfiguration `json:"config,omitempty" protobuf:"bytes,2,rep,name=config"`
}

// DeviceRequestAllocationResult contains the allocation result for one
// request.
type DeviceRequestAllocationResult struct {
	// Request is the name of the request in the claim which caused this
	// device to be allocated.
	Request string `json:"request" protobuf:"bytes,1,opt,name=request"`
	// Driver specifies the name of the DRA driver whose kubelet plugin
	// should be invoked to process the allocation once the claim is needed
	// on a node.
	Driver string `json:"driver" protobuf:"bytes,2,opt,name=driver"`
	// This name together with the driver name and the device name field
	// identify which device was allocated.
	Pool string `json:"pool" protobuf:"bytes,3,opt,name=pool"`
	// Device references one device instance via its name in the driver's
	// resource pool. It must be a DNS label.
	Device string `json:"device" protobuf:"bytes,4,opt,name=device"`
	// AdminAccess indicates that this device was allocated for
	// administrative access.
	AdminAccess *bool `json:"adminAccess,omitempty" protobuf:"varint,5,opt,name=adminAccess"`
	// A copy of all tolerations specified in the request at the time when
	// the device got allocated.
	Tolerations []DeviceToleration `json:"tolerations,omitempty" protobuf:"bytes,6,rep,name=tolerations"`
}

// DeviceAllocationConfiguration gets embedded in an AllocationResult.
type DeviceAllocationConfiguration struct {
	// Source records whether the configuration comes from a class and thus
	// is not something that a normal user would have been able to set or
	// from a claim.
	Source AllocationConfigSource `json:"source" protobuf:"bytes,1,opt,name=source"`
	// Requests lists the names of requests where the configuration
	// applies. If empty, its applies to all requests.
	Requests []string `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests"`

	DeviceConfiguration `json:",inline" protobuf:"bytes,3,opt,name=deviceConfiguration"`
}

// AllocationConfigSource says where an allocated configuration came from.
type AllocationConfigSource string

// The configuration sources.
const (
	AllocationConfigSourceClass AllocationConfigSource = "FromClass"
	AllocationConfigSourceClaim AllocationConfigSource = "FromClaim"
)

// AllocatedDeviceStatus contains the status of an allocated device, as
// reported by its driver.
type AllocatedDeviceStatus struct {
	// Driver specifies the name of the DRA driver whose kubelet plugin
	// should be invoked to process the allocation.
	Driver string `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	// This name together with the driver name and the device name field
	// identify which device was allocated.
	Pool string `json:"pool" protobuf:"bytes,2,opt,name=pool"`
	// Device references one device instance via its name in the driver's
	// resource pool.
	Device string `json:"device" protobuf:"bytes,3,opt,name=device"`
	// Conditions contains the latest observation of the device's state.
	Conditions []metav1.Condition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions"`
	// Data contains arbitrary driver-specific data.
	Data *runtime.RawExtension `json:"data,omitempty" protobuf:"bytes,5,opt,name=data"`
}

// ResourceClaimList is a collection of claims.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceClaimList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of resource claims.
	Items []ResourceClaim `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// DeviceClass is a vendor- or admin-provided resource that contains device
// configuration and selectors. It can be referenced in the device
// requests of a claim to apply these presets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type DeviceClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec defines what can be allocated and how to configure it.
	Spec DeviceClassSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// DeviceClassSpec is used in a DeviceClass to define what can be allocated
// and how to configure it.
type DeviceClassSpec struct {
	// Each selector must be satisfied by a device which is claimed via
	// this class.
	Selectors []DeviceSelector `json:"selectors,omitempty" protobuf:"bytes,1,rep,name=selectors"`
	// Config defines configuration parameters that apply to each device
	// that is claimed via this class.
	Config []DeviceClassConfiguration `json:"config,omitempty" protobuf:"bytes,2,rep,name=config"`
	// ExtendedResourceName is the extended resource name for the devices of
	// this class.
	ExtendedResourceName *string `json:"extendedResourceName,omitempty" protobuf:"bytes,4,opt,name=extendedResourceName"`
}

// DeviceClassConfiguration is used in DeviceClass.
type DeviceClassConfiguration struct {
	DeviceConfiguration `json:",inline" protobuf:"bytes,1,opt,name=deviceConfiguration"`
}

// DeviceClassList is a collection of classes.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type DeviceClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of resource classes.
	Items []DeviceClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ResourceClaimTemplate is used to produce ResourceClaim objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceClaimTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Describes the ResourceClaim that is to be generated. This field is
	// immutable.
	Spec ResourceClaimTemplateSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// ResourceClaimTemplateSpec contains the metadata and fields for a
// ResourceClaim.
type ResourceClaimTemplateSpec struct {
	// ObjectMeta may contain labels and annotations that will be copied
	// into the ResourceClaim when creating it.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec for the ResourceClaim.
	Spec ResourceClaimSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// ResourceClaimTemplateList is a collection of claim templates.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceClaimTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of resource claim templates.
	Items []ResourceClaimTemplate `json:"items" protobuf:"bytes,2,rep,name=items"`
}
