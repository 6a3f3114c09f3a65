package v1

import metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

// Lease is a time-bounded claim on a name, held by one identity and renewed
// while it lives: leader election and node heartbeats use it.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Lease struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Holder and timing of the lease.
	Spec LeaseSpec `json:"spec,omitempty"`
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
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// Seconds other candidates wait after renewTime before they may take the
	// lease over.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// When the current holder acquired the lease.
	AcquireTime *metav1.MicroTime `json:"acquireTime,omitempty"`
	// When the current holder last renewed the lease.
	RenewTime *metav1.MicroTime `json:"renewTime,omitempty"`
	// Number of times the lease changed holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
	// Strategy coordinated leader election uses to pick the holder; unset
	// means no coordination.
	Strategy *CoordinatedLeaseStrategy `json:"strategy,omitempty"`
	// Identity the holder should hand the lease over to; only with strategy.
	PreferredHolder *string `json:"preferredHolder,omitempty"`
}

// LeaseList is a list of Leases.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type LeaseList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`

	// The Leases.
	Items []Lease `json:"items"`
}
