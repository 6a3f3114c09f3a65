package v1

// Labels every controller-managed EndpointSlice carries.
const (
	// LabelServiceName names the Service a slice belongs to; kubectl
	// selects a Service's slices by it.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names the controller (or other agent) that manages a
	// slice; a controller leaves slices managed by others alone.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
)

// LabelSkipMirror on an Endpoints object set to "true" tells the
// EndpointSlice mirroring controller to leave it alone: its owner writes
// its slices itself.
const LabelSkipMirror = "endpointslice.kubernetes.io/skip-mirror"
