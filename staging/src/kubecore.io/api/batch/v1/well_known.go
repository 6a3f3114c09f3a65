package v1

// Labels, annotations and finalizers the job and cronjob controllers put on
// the objects they make, with Kubernetes' names.
const (
	// JobNameLabel labels a Job's pods with the Job's name; the unprefixed
	// LegacyJobNameLabel is set beside it, as older clients select on it.
	JobNameLabel       = "batch.kubernetes.io/job-name"
	LegacyJobNameLabel = "job-name"

	// ControllerUIDLabel labels a Job's pods with the Job's uid; the
	// generated selector of a Job selects on it. LegacyControllerUIDLabel
	// is its unprefixed twin.
	ControllerUIDLabel       = "batch.kubernetes.io/controller-uid"
	LegacyControllerUIDLabel = "controller-uid"

	// JobCompletionIndexAnnotation holds the completion index of a pod of
	// an Indexed Job; JobCompletionIndexLabel carries the same value as a
	// label.
	JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
	JobCompletionIndexLabel      = "batch.kubernetes.io/job-completion-index"

	// JobIndexFailureCountAnnotation counts, on a pod of a Job with
	// backoffLimitPerIndex, the failures of its index before it was made;
	// JobIndexIgnoredFailureCountAnnotation counts those a pod failure
	// policy ignored.
	JobIndexFailureCountAnnotation        = "batch.kubernetes.io/job-index-failure-count"
	JobIndexIgnoredFailureCountAnnotation = "batch.kubernetes.io/job-index-ignored-failure-count"

	// JobCompletionIndexEnv is the environment variable through which a
	// container of an Indexed Job reads its completion index.
	JobCompletionIndexEnv = "JOB_COMPLETION_INDEX"

	// JobTrackingFinalizer is put on every pod a Job makes, and removed once
	// the Job's status has counted the pod, so that no finished pod is
	// deleted before it was counted.
	JobTrackingFinalizer = "batch.kubernetes.io/job-tracking"

	// CronJobScheduledTimestampAnnotation records on a Job made by a
	// CronJob the time (RFC 3339) it was scheduled for.
	CronJobScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

	// CronJobInstantiateAnnotation marks a Job that `kubectl create job
	// --from=cronjob/NAME` made by hand from a CronJob's template.
	CronJobInstantiateAnnotation = "cronjob.kubernetes.io/instantiate"
)

// Reasons of the Job conditions and Events, as the job controller gives
// them.
const (
	JobReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	JobReasonDeadlineExceeded     = "DeadlineExceeded"
	JobReasonCompletionsReached   = "CompletionsReached"
	JobReasonSuspended            = "JobSuspended"
	JobReasonResumed              = "JobResumed"
	// JobReasonPodFailurePolicy: a FailJob rule of the pod failure policy
	// matched a failed pod.
	JobReasonPodFailurePolicy = "PodFailurePolicy"
	// JobReasonFailedIndexes: every index finished and some failed.
	JobReasonFailedIndexes = "FailedIndexes"
	// JobReasonMaxFailedIndexesExceeded: more indexes failed than
	// maxFailedIndexes.
	JobReasonMaxFailedIndexesExceeded = "MaxFailedIndexesExceeded"
	// JobReasonSuccessPolicy: a rule of the success policy was met.
	JobReasonSuccessPolicy = "SuccessPolicy"
)
