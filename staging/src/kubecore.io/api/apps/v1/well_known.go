package v1

// Labels the workload controllers put on the pods and revisions they own.
const (
	// DefaultDeploymentUniqueLabelKey labels a Deployment's ReplicaSets and
	// their pods with the hash of the pod template, so that the selectors of
	// two ReplicaSets of one Deployment never overlap.
	DefaultDeploymentUniqueLabelKey = "pod-template-hash"

	// ControllerRevisionHashLabelKey labels the pods of a StatefulSet or
	// DaemonSet with the name of the ControllerRevision they were made from.
	ControllerRevisionHashLabelKey = "controller-revision-hash"

	// StatefulSetRevisionLabel is the revision label of StatefulSet pods.
	StatefulSetRevisionLabel = ControllerRevisionHashLabelKey

	// DefaultDaemonSetUniqueLabelKey is the revision label of DaemonSet pods.
	DefaultDaemonSetUniqueLabelKey = ControllerRevisionHashLabelKey

	// StatefulSetPodNameLabel labels each StatefulSet pod with its own name,
	// so that a Service can select exactly one replica.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"

	// PodIndexLabel labels each StatefulSet pod with its ordinal.
	PodIndexLabel = "apps.kubernetes.io/pod-index"
)

// Annotations the deployment controller keeps on Deployments and ReplicaSets.
const (
	// RevisionAnnotation holds the rollout sequence number of a ReplicaSet,
	// copied to its Deployment when that ReplicaSet is the newest one.
	RevisionAnnotation = "deployment.kubernetes.io/revision"

	// RevisionHistoryAnnotation lists, comma separated, the earlier revisions
	// a ReplicaSet served before a rollback made it current again.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"

	// DesiredReplicasAnnotation records on a ReplicaSet the Deployment's
	// spec.replicas at the time the ReplicaSet was last scaled.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"

	// MaxReplicasAnnotation records on a ReplicaSet the Deployment's
	// spec.replicas plus its resolved maxSurge.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"

	// DeprecatedRollbackTo is the annotation the removed rollback
	// subresource used; the controller never copies it to a ReplicaSet.
	DeprecatedRollbackTo = "deprecated.deployment.rollback.to"

	// DeprecatedTemplateGeneration is the annotation older DaemonSet
	// controllers kept the template generation in.
	DeprecatedTemplateGeneration = "deprecated.daemonset.template.generation"
)

// Reasons of the Deployment conditions, as the deployment controller writes
// them; `kubectl rollout status` fails on ProgressDeadlineExceeded.
const (
	// Progressing reasons.
	ReplicaSetUpdatedReason = "ReplicaSetUpdated"
	FailedRSCreateReason    = "ReplicaSetCreateError"
	NewReplicaSetReason     = "NewReplicaSetCreated"
	FoundNewRSReason        = "FoundNewReplicaSet"
	NewRSAvailableReason    = "NewReplicaSetAvailable"
	TimedOutReason          = "ProgressDeadlineExceeded"
	PausedDeployReason      = "DeploymentPaused"
	ResumedDeployReason     = "DeploymentResumed"

	// Available reasons.
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)
