package v1

import metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

// Lease is a time-bounded claim on a name, held by one identity and renewed
// while it lives: leader election and node heartbeats use it.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Lease struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Holder and timing of the lease.
	Spec LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// CoordinatedLeaseStrategy names how coordinated leader election picks a
// holder among the candidates.
type CoordinatedLeaseStrategy string

// The values of CoordinatedLeaseStrategy.
const (
	// OldestEmulationVersion picks the candidate with the lowest emulation
	// version, then the lowest binary version, then the oldest.
	OldestEmulationVersion CoordinatedLeaseStrategy = "OldestEmulationVersion"
)

// LeaseSpec is the state of a Lease.
type LeaseSpec struct {
	// Identity of the current holder.
	HolderIdentity *string `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	// Seconds other candidates wait after renewTime before they may take the
	// lease over.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	// When the current holder acquired the lease.
	AcquireTime *metav1.MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	// When the current holder last renewed the lease.
	RenewTime *metav1.MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	// Number of times the lease changed holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
	// Strategy coordinated leader election uses to pick the holder; unset
	// means no coordination.
	Strategy *CoordinatedLeaseStrategy `json:"strategy,omitempty" protobuf:"bytes,6,opt,name=strategy"`
	// Identity the holder should hand the lease over to; only with strategy.
	PreferredHolder *string `json:"preferredHolder,omitempty" protobuf:"bytes,7,opt,name=preferredHolder"`
}

// LeaseList is a list of Leases.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type LeaseList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The Leases.
	Items []Lease `json:"items" protobuf:"bytes,2,rep,name=items"`
}
