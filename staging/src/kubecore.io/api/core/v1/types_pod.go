package v1

import (
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// Pod is a group of containers scheduled together onto one node, sharing
// network and volumes.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Pod struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the pod's desired behaviour.
	Spec PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the kubelet and scheduler last reported; it may lag.
	Status PodStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodList is a list of pods.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the pods.
	Items []Pod `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodTemplateSpec is the pod a controller stamps out: metadata and spec.
type PodTemplateSpec struct {
	// Metadata given to each pod made from the template.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec given to each pod made from the template.
	Spec PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// PodTemplate is a stored pod template.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Template is the pod description.
	Template PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,2,opt,name=template"`
}

// PodTemplateList is a list of pod templates.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the pod templates.
	Items []PodTemplate `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodSpec describes a pod's containers, volumes and scheduling needs.
type PodSpec struct {
	// Volumes the pod's containers can mount.
	// +listType=map
	// +listMapKey=name
	Volumes []Volume `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,1,rep,name=volumes"`
	// InitContainers run one after another, each to completion, before
	// the app containers start. One whose restartPolicy is Always is a
	// sidecar: it starts in order and keeps running beside the app.
	// +listType=map
	// +listMapKey=name
	InitContainers []Container `json:"initContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,20,rep,name=initContainers"`
	// Containers are the pod's app containers; at least one is required.
	// +listType=map
	// +listMapKey=name
	Containers []Container `json:"containers" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=containers"`
	// EphemeralContainers are debugging containers added to a running pod
	// through the ephemeralcontainers subresource.
	// +listType=map
	// +listMapKey=name
	EphemeralContainers []EphemeralContainer `json:"ephemeralContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,34,rep,name=ephemeralContainers"`
	// RestartPolicy applies to every container: Always (the default),
	// OnFailure or Never.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,3,opt,name=restartPolicy"`
	// TerminationGracePeriodSeconds is how long containers get between the
	// stop signal and the kill; defaults to 30.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,4,opt,name=terminationGracePeriodSeconds"`
	// ActiveDeadlineSeconds bounds how long the pod may run before it is
	// failed.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,5,opt,name=activeDeadlineSeconds"`
	// DNSPolicy says how the pod's resolv.conf is made; defaults to
	// ClusterFirst.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty" protobuf:"bytes,6,opt,name=dnsPolicy"`
	// NodeSelector lists labels a node must carry to run the pod.
	// +mapType=atomic
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,7,rep,name=nodeSelector"`
	// ServiceAccountName is the identity the pod runs as.
	ServiceAccountName string `json:"serviceAccountName,omitempty" protobuf:"bytes,8,opt,name=serviceAccountName"`
	// DeprecatedServiceAccount is the old name of serviceAccountName.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty" protobuf:"bytes,9,opt,name=serviceAccount"`
	// AutomountServiceAccountToken says whether an API token is mounted.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,21,opt,name=automountServiceAccountToken"`
	// NodeName binds the pod to a node, bypassing the scheduler when set at
	// creation.
	NodeName string `json:"nodeName,omitempty" protobuf:"bytes,10,opt,name=nodeName"`
	// HostNetwork runs the pod in the node's network namespace.
	HostNetwork bool `json:"hostNetwork,omitempty" protobuf:"varint,11,opt,name=hostNetwork"`
	// HostPID shares the node's process namespace.
	HostPID bool `json:"hostPID,omitempty" protobuf:"varint,12,opt,name=hostPID"`
	// HostIPC shares the node's IPC namespace.
	HostIPC bool `json:"hostIPC,omitempty" protobuf:"varint,13,opt,name=hostIPC"`
	// ShareProcessNamespace puts all the pod's containers in one process
	// namespace.
	ShareProcessNamespace *bool `json:"shareProcessNamespace,omitempty" protobuf:"varint,27,opt,name=shareProcessNamespace"`
	// SecurityContext holds pod-wide security settings.
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty" protobuf:"bytes,14,opt,name=securityContext"`
	// ImagePullSecrets name secrets with registry credentials.
	// +listType=map
	// +listMapKey=name
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,15,rep,name=imagePullSecrets"`
	// Hostname of the pod; defaults to the pod's name.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,16,opt,name=hostname"`
	// Subdomain makes the pod's FQDN
	// "<hostname>.<subdomain>.<namespace>.svc.<cluster domain>".
	Subdomain string `json:"subdomain,omitempty" protobuf:"bytes,17,opt,name=subdomain"`
	// Affinity holds node and inter-pod scheduling preferences.
	Affinity *Affinity `json:"affinity,omitempty" protobuf:"bytes,18,opt,name=affinity"`
	// SchedulerName picks the scheduler; empty means the default one.
	SchedulerName string `json:"schedulerName,omitempty" protobuf:"bytes,19,opt,name=schedulerName"`
	// Tolerations let the pod run on nodes with matching taints.
	// +listType=atomic
	Tolerations []Toleration `json:"tolerations,omitempty" protobuf:"bytes,22,rep,name=tolerations"`
	// HostAliases are extra entries for the pod's /etc/hosts.
	// +listType=map
	// +listMapKey=ip
	HostAliases []HostAlias `json:"hostAliases,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,23,rep,name=hostAliases"`
	// PriorityClassName names the PriorityClass that sets the priority.
	PriorityClassName string `json:"priorityClassName,omitempty" protobuf:"bytes,24,opt,name=priorityClassName"`
	// Priority is resolved from priorityClassName by admission.
	Priority *int32 `json:"priority,omitempty" protobuf:"varint,25,opt,name=priority"`
	// DNSConfig adjusts the resolv.conf the DNS policy produces.
	DNSConfig *PodDNSConfig `json:"dnsConfig,omitempty" protobuf:"bytes,26,opt,name=dnsConfig"`
	// ReadinessGates are extra pod conditions that must be True for the
	// pod to be Ready.
	// +listType=atomic
	ReadinessGates []PodReadinessGate `json:"readinessGates,omitempty" protobuf:"bytes,28,rep,name=readinessGates"`
	// RuntimeClassName picks the RuntimeClass to run the pod with.
	RuntimeClassName *string `json:"runtimeClassName,omitempty" protobuf:"bytes,29,opt,name=runtimeClassName"`
	// EnableServiceLinks injects environment variables for services in the
	// namespace; defaults to true.
	EnableServiceLinks *bool `json:"enableServiceLinks,omitempty" protobuf:"varint,30,opt,name=enableServiceLinks"`
	// PreemptionPolicy says whether the pod may preempt lower-priority
	// pods; defaults to PreemptLowerPriority.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,31,opt,name=preemptionPolicy"`
	// Overhead is the resources the pod's sandbox uses on top of its
	// containers, set from the RuntimeClass.
	Overhead ResourceList `json:"overhead,omitempty" protobuf:"bytes,32,rep,name=overhead"`
	// TopologySpreadConstraints spread matching pods across topology
	// domains.
	// +listType=map
	// +listMapKey=topologyKey
	// +listMapKey=whenUnsatisfiable
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty" patchStrategy:"merge" patchMergeKey:"topologyKey" protobuf:"bytes,33,rep,name=topologySpreadConstraints"`
	// SetHostnameAsFQDN makes the pod's hostname its fully qualified name.
	SetHostnameAsFQDN *bool `json:"setHostnameAsFQDN,omitempty" protobuf:"varint,35,opt,name=setHostnameAsFQDN"`
	// OS is the operating system the pod's containers need.
	OS *PodOS `json:"os,omitempty" protobuf:"bytes,36,opt,name=os"`
	// HostUsers, when false, gives the pod its own user namespace.
	HostUsers *bool `json:"hostUsers,omitempty" protobuf:"varint,37,opt,name=hostUsers"`
	// SchedulingGates hold the pod back from scheduling while any remain.
	// +listType=map
	// +listMapKey=name
	SchedulingGates []PodSchedulingGate `json:"schedulingGates,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,38,rep,name=schedulingGates"`
	// ResourceClaims name dynamic resource claims the pod uses.
	// +listType=map
	// +listMapKey=name
	ResourceClaims []PodResourceClaim `json:"resourceClaims,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,39,rep,name=resourceClaims"`
	// Resources are pod-level requests and limits shared by all containers.
	Resources *ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,40,opt,name=resources"`
}

// RestartPolicy says when the kubelet restarts a pod's exited containers.
type RestartPolicy string

// The pod restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// ContainerRestartPolicy overrides the pod's restart policy for one
// container. On an init container, Always makes it a sidecar.
type ContainerRestartPolicy string

// The container restart policies.
const (
	ContainerRestartPolicyAlways    ContainerRestartPolicy = "Always"
	ContainerRestartPolicyNever     ContainerRestartPolicy = "Never"
	ContainerRestartPolicyOnFailure ContainerRestartPolicy = "OnFailure"
)

// DNSPolicy says how a pod's DNS resolution is set up.
type DNSPolicy string

// The DNS policies.
const (
	// DNSClusterFirstWithHostNet uses cluster DNS even with hostNetwork.
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	// DNSClusterFirst uses cluster DNS, falling back to the node's
	// resolver; with hostNetwork it acts as Default.
	DNSClusterFirst DNSPolicy = "ClusterFirst"
	// DNSDefault uses the node's resolver settings.
	DNSDefault DNSPolicy = "Default"
	// DNSNone uses only what dnsConfig gives.
	DNSNone DNSPolicy = "None"
)

// DefaultTerminationGracePeriodSeconds is the grace period of a pod that
// does not set one.
const DefaultTerminationGracePeriodSeconds = 30

// DefaultSchedulerName is the scheduler of pods that do not name one.
const DefaultSchedulerName = "default-scheduler"

// PreemptionPolicy says whether a pod may preempt others.
type PreemptionPolicy string

// The preemption policies.
const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// Container is one container of a pod.
type Container struct {
	// Name is unique within the pod (a DNS label).
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Image is the container image reference.
	Image string `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	// Command replaces the image's entrypoint. $(VAR) references expand
	// from the container's environment; $$ escapes a dollar.
	// +listType=atomic
	Command []string `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	// Args replace the image's cmd, expanded as command is.
	// +listType=atomic
	Args []string `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	// WorkingDir is the container's working directory.
	WorkingDir string `json:"workingDir,omitempty" protobuf:"bytes,5,opt,name=workingDir"`
	// Ports the container exposes; informational except hostPort.
	// +listType=map
	// +listMapKey=containerPort
	// +listMapKey=protocol
	Ports []ContainerPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort" protobuf:"bytes,6,rep,name=ports"`
	// EnvFrom imports every key of config maps or secrets as variables.
	// +listType=atomic
	EnvFrom []EnvFromSource `json:"envFrom,omitempty" protobuf:"bytes,19,rep,name=envFrom"`
	// Env sets environment variables; these win over envFrom.
	// +listType=map
	// +listMapKey=name
	Env []EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=env"`
	// Resources are the container's requests and limits.
	Resources ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	// ResizePolicy says whether resizing a resource restarts the container.
	// +listType=atomic
	ResizePolicy []ContainerResizePolicy `json:"resizePolicy,omitempty" protobuf:"bytes,23,rep,name=resizePolicy"`
	// RestartPolicy overrides the pod's for this container; only Always on
	// init containers (sidecars) is accepted.
	RestartPolicy *ContainerRestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,24,opt,name=restartPolicy"`
	// VolumeMounts mount pod volumes into the filesystem.
	// +listType=map
	// +listMapKey=mountPath
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath" protobuf:"bytes,9,rep,name=volumeMounts"`
	// VolumeDevices expose block volumes as devices.
	// +listType=map
	// +listMapKey=devicePath
	VolumeDevices []VolumeDevice `json:"volumeDevices,omitempty" patchStrategy:"merge" patchMergeKey:"devicePath" protobuf:"bytes,21,rep,name=volumeDevices"`
	// LivenessProbe restarts the container when it fails.
	LivenessProbe *Probe `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	// ReadinessProbe takes the container out of service endpoints while it
	// fails.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	// StartupProbe holds the other probes off until it first succeeds.
	StartupProbe *Probe `json:"startupProbe,omitempty" protobuf:"bytes,22,opt,name=startupProbe"`
	// Lifecycle holds hooks run after start and before stop.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty" protobuf:"bytes,12,opt,name=lifecycle"`
	// TerminationMessagePath is the file whose content becomes the
	// termination message; defaults to /dev/termination-log.
	TerminationMessagePath string `json:"terminationMessagePath,omitempty" protobuf:"bytes,13,opt,name=terminationMessagePath"`
	// TerminationMessagePolicy is File or FallbackToLogsOnError.
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty" protobuf:"bytes,20,opt,name=terminationMessagePolicy"`
	// ImagePullPolicy is Always, Never or IfNotPresent; defaults to Always
	// for :latest images and IfNotPresent otherwise.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy"`
	// SecurityContext holds the container's security settings; they win
	// over the pod's.
	SecurityContext *SecurityContext `json:"securityContext,omitempty" protobuf:"bytes,15,opt,name=securityContext"`
	// Stdin keeps a stdin buffer open for attach.
	Stdin bool `json:"stdin,omitempty" protobuf:"varint,16,opt,name=stdin"`
	// StdinOnce closes stdin after the first attach detaches.
	StdinOnce bool `json:"stdinOnce,omitempty" protobuf:"varint,17,opt,name=stdinOnce"`
	// TTY allocates a terminal; needs stdin.
	TTY bool `json:"tty,omitempty" protobuf:"varint,18,opt,name=tty"`
}

// EphemeralContainerCommon is the part of an ephemeral container that has
// the shape of a Container. Ports, probes, lifecycle and resources are not
// allowed on ephemeral containers.
type EphemeralContainerCommon struct {
	// Name is unique among all the pod's containers.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Image is the container image reference.
	Image string `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	// Command replaces the image's entrypoint.
	// +listType=atomic
	Command []string `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	// Args replace the image's cmd.
	// +listType=atomic
	Args []string `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	// WorkingDir is the container's working directory.
	WorkingDir string `json:"workingDir,omitempty" protobuf:"bytes,5,opt,name=workingDir"`
	// Ports are not allowed.
	// +listType=map
	// +listMapKey=containerPort
	// +listMapKey=protocol
	Ports []ContainerPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort" protobuf:"bytes,6,rep,name=ports"`
	// EnvFrom imports every key of config maps or secrets as variables.
	// +listType=atomic
	EnvFrom []EnvFromSource `json:"envFrom,omitempty" protobuf:"bytes,19,rep,name=envFrom"`
	// Env sets environment variables.
	// +listType=map
	// +listMapKey=name
	Env []EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=env"`
	// Resources are not allowed.
	Resources ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	// ResizePolicy is not allowed.
	// +listType=atomic
	ResizePolicy []ContainerResizePolicy `json:"resizePolicy,omitempty" protobuf:"bytes,23,rep,name=resizePolicy"`
	// RestartPolicy is not allowed.
	RestartPolicy *ContainerRestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,24,opt,name=restartPolicy"`
	// VolumeMounts mount pod volumes; subPath is not allowed.
	// +listType=map
	// +listMapKey=mountPath
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath" protobuf:"bytes,9,rep,name=volumeMounts"`
	// VolumeDevices expose block volumes as devices.
	// +listType=map
	// +listMapKey=devicePath
	VolumeDevices []VolumeDevice `json:"volumeDevices,omitempty" patchStrategy:"merge" patchMergeKey:"devicePath" protobuf:"bytes,21,rep,name=volumeDevices"`
	// LivenessProbe is not allowed.
	LivenessProbe *Probe `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	// ReadinessProbe is not allowed.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	// StartupProbe is not allowed.
	StartupProbe *Probe `json:"startupProbe,omitempty" protobuf:"bytes,22,opt,name=startupProbe"`
	// Lifecycle is not allowed.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty" protobuf:"bytes,12,opt,name=lifecycle"`
	// TerminationMessagePath is the file read for the termination message.
	TerminationMessagePath string `json:"terminationMessagePath,omitempty" protobuf:"bytes,13,opt,name=terminationMessagePath"`
	// TerminationMessagePolicy is File or FallbackToLogsOnError.
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty" protobuf:"bytes,20,opt,name=terminationMessagePolicy"`
	// ImagePullPolicy is Always, Never or IfNotPresent.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy"`
	// SecurityContext holds the container's security settings.
	SecurityContext *SecurityContext `json:"securityContext,omitempty" protobuf:"bytes,15,opt,name=securityContext"`
	// Stdin keeps a stdin buffer open for attach.
	Stdin bool `json:"stdin,omitempty" protobuf:"varint,16,opt,name=stdin"`
	// StdinOnce closes stdin after the first attach detaches.
	StdinOnce bool `json:"stdinOnce,omitempty" protobuf:"varint,17,opt,name=stdinOnce"`
	// TTY allocates a terminal; needs stdin.
	TTY bool `json:"tty,omitempty" protobuf:"varint,18,opt,name=tty"`
}

// EphemeralContainer is a debugging container added to a running pod.
type EphemeralContainer struct {
	EphemeralContainerCommon `json:",inline" protobuf:"bytes,1,opt,name=ephemeralContainerCommon"`
	// TargetContainerName names a container whose process namespace the
	// ephemeral container joins.
	TargetContainerName string `json:"targetContainerName,omitempty" protobuf:"bytes,2,opt,name=targetContainerName"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	// Name of the port (an IANA service name), for services to refer to.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// HostPort exposes the port on the node's address.
	HostPort int32 `json:"hostPort,omitempty" protobuf:"varint,2,opt,name=hostPort"`
	// ContainerPort is the port number in the pod's network namespace.
	ContainerPort int32 `json:"containerPort" protobuf:"varint,3,opt,name=containerPort"`
	// Protocol is TCP (the default), UDP or SCTP.
	// +default="TCP"
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,4,opt,name=protocol"`
	// HostIP is the node address hostPort binds to.
	HostIP string `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
}

// EnvVar is one environment variable.
type EnvVar struct {
	// Name of the variable.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Value, with $(VAR) references to earlier variables expanded.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// ValueFrom takes the value from elsewhere; not with value.
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty" protobuf:"bytes,3,opt,name=valueFrom"`
}

// EnvVarSource is where a variable's value comes from; set one member.
type EnvVarSource struct {
	// FieldRef takes a field of the pod, such as metadata.name or
	// status.podIP.
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty" protobuf:"bytes,1,opt,name=fieldRef"`
	// ResourceFieldRef takes a container's request or limit.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,2,opt,name=resourceFieldRef"`
	// ConfigMapKeyRef takes one key of a config map.
	ConfigMapKeyRef *ConfigMapKeySelector `json:"configMapKeyRef,omitempty" protobuf:"bytes,3,opt,name=configMapKeyRef"`
	// SecretKeyRef takes one key of a secret.
	SecretKeyRef *SecretKeySelector `json:"secretKeyRef,omitempty" protobuf:"bytes,4,opt,name=secretKeyRef"`
}

// ObjectFieldSelector selects a field of the pod.
// +structType=atomic
type ObjectFieldSelector struct {
	// APIVersion the field path is written in; defaults to "v1".
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	// FieldPath of the field, such as "metadata.labels['app']".
	FieldPath string `json:"fieldPath" protobuf:"bytes,2,opt,name=fieldPath"`
}

// ResourceFieldSelector selects a container's request or limit.
// +structType=atomic
type ResourceFieldSelector struct {
	// ContainerName is required in volumes and optional in env.
	ContainerName string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	// Resource is such as "limits.cpu" or "requests.memory".
	Resource string `json:"resource" protobuf:"bytes,2,opt,name=resource"`
	// Divisor scales the value; defaults to 1.
	Divisor resource.Quantity `json:"divisor,omitempty" protobuf:"bytes,3,opt,name=divisor"`
}

// ConfigMapKeySelector selects one key of a config map.
// +structType=atomic
type ConfigMapKeySelector struct {
	// The config map to read.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Key to read.
	Key string `json:"key" protobuf:"bytes,2,opt,name=key"`
	// Optional allows the config map or key to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// SecretKeySelector selects one key of a secret.
// +structType=atomic
type SecretKeySelector struct {
	// The secret to read.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Key to read.
	Key string `json:"key" protobuf:"bytes,2,opt,name=key"`
	// Optional allows the secret or key to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// EnvFromSource imports a whole config map or secret as variables.
type EnvFromSource struct {
	// Prefix is prepended to every imported name.
	Prefix string `json:"prefix,omitempty" protobuf:"bytes,1,opt,name=prefix"`
	// ConfigMapRef is the config map to import.
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty" protobuf:"bytes,2,opt,name=configMapRef"`
	// SecretRef is the secret to import.
	SecretRef *SecretEnvSource `json:"secretRef,omitempty" protobuf:"bytes,3,opt,name=secretRef"`
}

// ConfigMapEnvSource names a config map whose keys become variables.
type ConfigMapEnvSource struct {
	// The config map to import.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Optional allows the config map to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// SecretEnvSource names a secret whose keys become variables.
type SecretEnvSource struct {
	// The secret to import.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Optional allows the secret to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// ResourceRequirements are compute requests and limits.
type ResourceRequirements struct {
	// Limits are the most the container may use.
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits"`
	// Requests are what the scheduler reserves; they default to the limits.
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests"`
	// Claims name entries of spec.resourceClaims the container uses.
	// +listType=map
	// +listMapKey=name
	Claims []ResourceClaim `json:"claims,omitempty" protobuf:"bytes,3,rep,name=claims"`
}

// ResourceClaim names one of the pod's resource claims.
type ResourceClaim struct {
	// Name of an entry in the pod's spec.resourceClaims.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Request picks one request of the claim; empty means all.
	Request string `json:"request,omitempty" protobuf:"bytes,2,opt,name=request"`
}

// ContainerResizePolicy says what resizing one resource does.
type ContainerResizePolicy struct {
	// ResourceName is cpu or memory.
	ResourceName ResourceName `json:"resourceName" protobuf:"bytes,1,opt,name=resourceName"`
	// RestartPolicy is NotRequired or RestartContainer.
	RestartPolicy ResourceResizeRestartPolicy `json:"restartPolicy" protobuf:"bytes,2,opt,name=restartPolicy"`
}

// ResourceResizeRestartPolicy says whether a resize restarts the container.
type ResourceResizeRestartPolicy string

// The resize restart policies.
const (
	NotRequired      ResourceResizeRestartPolicy = "NotRequired"
	RestartContainer ResourceResizeRestartPolicy = "RestartContainer"
)

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	// Name of the pod volume.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ReadOnly mounts read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
	// RecursiveReadOnly makes submounts of a read-only mount read-only too.
	RecursiveReadOnly *RecursiveReadOnlyMode `json:"recursiveReadOnly,omitempty" protobuf:"bytes,7,opt,name=recursiveReadOnly"`
	// MountPath is where the volume appears; it may not contain ':'.
	MountPath string `json:"mountPath" protobuf:"bytes,3,opt,name=mountPath"`
	// SubPath mounts a sub-directory of the volume instead of its root.
	SubPath string `json:"subPath,omitempty" protobuf:"bytes,4,opt,name=subPath"`
	// MountPropagation says how mounts propagate between host and
	// container; defaults to None.
	MountPropagation *MountPropagationMode `json:"mountPropagation,omitempty" protobuf:"bytes,5,opt,name=mountPropagation"`
	// SubPathExpr is subPath with $(VAR) references expanded.
	SubPathExpr string `json:"subPathExpr,omitempty" protobuf:"bytes,6,opt,name=subPathExpr"`
}

// MountPropagationMode says how mounts propagate.
type MountPropagationMode string

// The mount propagation modes.
const (
	MountPropagationNone            MountPropagationMode = "None"
	MountPropagationHostToContainer MountPropagationMode = "HostToContainer"
	MountPropagationBidirectional   MountPropagationMode = "Bidirectional"
)

// RecursiveReadOnlyMode says whether read-only applies to submounts.
type RecursiveReadOnlyMode string

// The recursive read-only modes.
const (
	RecursiveReadOnlyDisabled   RecursiveReadOnlyMode = "Disabled"
	RecursiveReadOnlyIfPossible RecursiveReadOnlyMode = "IfPossible"
	RecursiveReadOnlyEnabled    RecursiveReadOnlyMode = "Enabled"
)

// VolumeDevice maps a block volume to a device path.
type VolumeDevice struct {
	// Name of the pod volume, which must be a block-mode claim.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// DevicePath is the device's path in the container.
	DevicePath string `json:"devicePath" protobuf:"bytes,2,opt,name=devicePath"`
}

// Probe is a periodic health check of a container.
type Probe struct {
	// The check to run.
	ProbeHandler `json:",inline" protobuf:"bytes,1,opt,name=handler"`
	// InitialDelaySeconds waits after start before the first probe.
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty" protobuf:"varint,2,opt,name=initialDelaySeconds"`
	// TimeoutSeconds bounds one probe; defaults to 1.
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,3,opt,name=timeoutSeconds"`
	// PeriodSeconds is the interval between probes; defaults to 10.
	PeriodSeconds int32 `json:"periodSeconds,omitempty" protobuf:"varint,4,opt,name=periodSeconds"`
	// SuccessThreshold is how many successes in a row count as success
	// after a failure; defaults to 1.
	SuccessThreshold int32 `json:"successThreshold,omitempty" protobuf:"varint,5,opt,name=successThreshold"`
	// FailureThreshold is how many failures in a row count as failure;
	// defaults to 3.
	FailureThreshold int32 `json:"failureThreshold,omitempty" protobuf:"varint,6,opt,name=failureThreshold"`
	// TerminationGracePeriodSeconds overrides the pod's grace period when
	// this probe's failure kills the container.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,7,opt,name=terminationGracePeriodSeconds"`
}

// ProbeHandler is the check a probe runs; set one member.
type ProbeHandler struct {
	// Exec runs a command in the container; exit 0 is healthy.
	Exec *ExecAction `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	// HTTPGet issues a GET; 2xx and 3xx are healthy.
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
	// TCPSocket opens a connection; success is healthy.
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty" protobuf:"bytes,3,opt,name=tcpSocket"`
	// GRPC calls the gRPC health checking service.
	GRPC *GRPCAction `json:"grpc,omitempty" protobuf:"bytes,4,opt,name=grpc"`
}

// ExecAction runs a command in the container, without a shell.
type ExecAction struct {
	// Command and its arguments.
	// +listType=atomic
	Command []string `json:"command,omitempty" protobuf:"bytes,1,rep,name=command"`
}

// HTTPGetAction is an HTTP GET request.
type HTTPGetAction struct {
	// Path of the request.
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// Port is a number or a container port's name.
	Port intstr.IntOrString `json:"port" protobuf:"bytes,2,opt,name=port"`
	// Host to connect to; defaults to the pod IP.
	Host string `json:"host,omitempty" protobuf:"bytes,3,opt,name=host"`
	// Scheme is HTTP (the default) or HTTPS; certificates are not checked.
	Scheme URIScheme `json:"scheme,omitempty" protobuf:"bytes,4,opt,name=scheme"`
	// HTTPHeaders are extra request headers.
	// +listType=atomic
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty" protobuf:"bytes,5,rep,name=httpHeaders"`
}

// URIScheme is HTTP or HTTPS.
type URIScheme string

// The URI schemes of HTTP probes and hooks.
const (
	URISchemeHTTP  URIScheme = "HTTP"
	URISchemeHTTPS URIScheme = "HTTPS"
)

// HTTPHeader is one header of a probe or hook request.
type HTTPHeader struct {
	// Name of the header.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Value of the header.
	Value string `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// TCPSocketAction opens a TCP connection.
type TCPSocketAction struct {
	// Port is a number or a container port's name.
	Port intstr.IntOrString `json:"port" protobuf:"bytes,1,opt,name=port"`
	// Host to connect to; defaults to the pod IP.
	Host string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// GRPCAction calls grpc.health.v1.Health/Check.
type GRPCAction struct {
	// Port number of the gRPC service.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// Service is the name passed in the health check request.
	Service *string `json:"service" protobuf:"bytes,2,opt,name=service"`
}

// SleepAction pauses for a while.
type SleepAction struct {
	// Seconds to sleep.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
}

// Lifecycle holds a container's start and stop hooks.
type Lifecycle struct {
	// PostStart runs right after the container is created; the container
	// is killed if it fails.
	PostStart *LifecycleHandler `json:"postStart,omitempty" protobuf:"bytes,1,opt,name=postStart"`
	// PreStop runs before the stop signal, within the grace period.
	PreStop *LifecycleHandler `json:"preStop,omitempty" protobuf:"bytes,2,opt,name=preStop"`
}

// LifecycleHandler is the action of a hook; set one member.
type LifecycleHandler struct {
	// Exec runs a command in the container.
	Exec *ExecAction `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	// HTTPGet issues a GET.
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
	// TCPSocket is accepted for compatibility and does nothing.
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty" protobuf:"bytes,3,opt,name=tcpSocket"`
	// Sleep pauses.
	Sleep *SleepAction `json:"sleep,omitempty" protobuf:"bytes,4,opt,name=sleep"`
}

// TerminationMessagePolicy says where a termination message comes from.
type TerminationMessagePolicy string

// The termination message policies.
const (
	// TerminationMessageReadFile reads terminationMessagePath only.
	TerminationMessageReadFile TerminationMessagePolicy = "File"
	// TerminationMessageFallbackToLogsOnError uses the log tail when the
	// file is empty and the container failed.
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// TerminationMessagePathDefault is the default terminationMessagePath.
const TerminationMessagePathDefault = "/dev/termination-log"

// PullPolicy says when an image is pulled.
type PullPolicy string

// The image pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// SecurityContext is a container's security settings.
type SecurityContext struct {
	// Capabilities to add to and drop from the runtime's default set.
	Capabilities *Capabilities `json:"capabilities,omitempty" protobuf:"bytes,1,opt,name=capabilities"`
	// Privileged runs the container as root on the host would.
	Privileged *bool `json:"privileged,omitempty" protobuf:"varint,2,opt,name=privileged"`
	// SELinuxOptions sets the SELinux context.
	SELinuxOptions *SELinuxOptions `json:"seLinuxOptions,omitempty" protobuf:"bytes,3,opt,name=seLinuxOptions"`
	// WindowsOptions holds Windows-only settings.
	WindowsOptions *WindowsSecurityContextOptions `json:"windowsOptions,omitempty" protobuf:"bytes,10,opt,name=windowsOptions"`
	// RunAsUser is the UID of the entrypoint.
	RunAsUser *int64 `json:"runAsUser,omitempty" protobuf:"varint,4,opt,name=runAsUser"`
	// RunAsGroup is the GID of the entrypoint.
	RunAsGroup *int64 `json:"runAsGroup,omitempty" protobuf:"varint,8,opt,name=runAsGroup"`
	// RunAsNonRoot refuses to start the container as UID 0.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty" protobuf:"varint,5,opt,name=runAsNonRoot"`
	// ReadOnlyRootFilesystem mounts the root filesystem read-only.
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty" protobuf:"varint,6,opt,name=readOnlyRootFilesystem"`
	// AllowPrivilegeEscalation controls the no_new_privs flag.
	AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty" protobuf:"varint,7,opt,name=allowPrivilegeEscalation"`
	// ProcMount is Default or Unmasked.
	ProcMount *ProcMountType `json:"procMount,omitempty" protobuf:"bytes,9,opt,name=procMount"`
	// SeccompProfile is the seccomp filter.
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty" protobuf:"bytes,11,opt,name=seccompProfile"`
	// AppArmorProfile is the AppArmor profile.
	AppArmorProfile *AppArmorProfile `json:"appArmorProfile,omitempty" protobuf:"bytes,12,opt,name=appArmorProfile"`
}

// Capability is a POSIX capability name, such as NET_ADMIN.
type Capability string

// Capabilities lists capabilities to add and drop.
type Capabilities struct {
	// Add these capabilities.
	// +listType=atomic
	Add []Capability `json:"add,omitempty" protobuf:"bytes,1,rep,name=add"`
	// Drop these capabilities.
	// +listType=atomic
	Drop []Capability `json:"drop,omitempty" protobuf:"bytes,2,rep,name=drop"`
}

// ProcMountType says how /proc is masked.
type ProcMountType string

// The /proc mount types.
const (
	DefaultProcMount  ProcMountType = "Default"
	UnmaskedProcMount ProcMountType = "Unmasked"
)

// SELinuxOptions is an SELinux label.
type SELinuxOptions struct {
	// User of the label.
	User string `json:"user,omitempty" protobuf:"bytes,1,opt,name=user"`
	// Role of the label.
	Role string `json:"role,omitempty" protobuf:"bytes,2,opt,name=role"`
	// Type of the label.
	Type string `json:"type,omitempty" protobuf:"bytes,3,opt,name=type"`
	// Level of the label.
	Level string `json:"level,omitempty" protobuf:"bytes,4,opt,name=level"`
}

// WindowsSecurityContextOptions holds Windows-only security settings.
type WindowsSecurityContextOptions struct {
	// GMSACredentialSpecName names a GMSA credential spec resource.
	GMSACredentialSpecName *string `json:"gmsaCredentialSpecName,omitempty" protobuf:"bytes,1,opt,name=gmsaCredentialSpecName"`
	// GMSACredentialSpec is the inlined credential spec.
	GMSACredentialSpec *string `json:"gmsaCredentialSpec,omitempty" protobuf:"bytes,2,opt,name=gmsaCredentialSpec"`
	// RunAsUserName is the Windows user of the entrypoint.
	RunAsUserName *string `json:"runAsUserName,omitempty" protobuf:"bytes,3,opt,name=runAsUserName"`
	// HostProcess runs the container as a Windows host process.
	HostProcess *bool `json:"hostProcess,omitempty" protobuf:"varint,4,opt,name=hostProcess"`
}

// SeccompProfile selects a seccomp filter.
type SeccompProfile struct {
	// Type is RuntimeDefault, Unconfined or Localhost.
	Type SeccompProfileType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// LocalhostProfile is the profile file, relative to the kubelet's
	// seccomp directory; only with type Localhost.
	LocalhostProfile *string `json:"localhostProfile,omitempty" protobuf:"bytes,2,opt,name=localhostProfile"`
}

// SeccompProfileType is the kind of seccomp profile.
type SeccompProfileType string

// The seccomp profile types.
const (
	SeccompProfileTypeUnconfined     SeccompProfileType = "Unconfined"
	SeccompProfileTypeRuntimeDefault SeccompProfileType = "RuntimeDefault"
	SeccompProfileTypeLocalhost      SeccompProfileType = "Localhost"
)

// AppArmorProfile selects an AppArmor profile.
type AppArmorProfile struct {
	// Type is RuntimeDefault, Unconfined or Localhost.
	Type AppArmorProfileType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// LocalhostProfile is the profile loaded on the node; only with type
	// Localhost.
	LocalhostProfile *string `json:"localhostProfile,omitempty" protobuf:"bytes,2,opt,name=localhostProfile"`
}

// AppArmorProfileType is the kind of AppArmor profile.
type AppArmorProfileType string

// The AppArmor profile types.
const (
	AppArmorProfileTypeUnconfined     AppArmorProfileType = "Unconfined"
	AppArmorProfileTypeRuntimeDefault AppArmorProfileType = "RuntimeDefault"
	AppArmorProfileTypeLocalhost      AppArmorProfileType = "Localhost"
)

// PodSecurityContext holds pod-wide security settings; the container
// settings of the same name win over these.
type PodSecurityContext struct {
	// SELinuxOptions sets the SELinux context of every container.
	SELinuxOptions *SELinuxOptions `json:"seLinuxOptions,omitempty" protobuf:"bytes,1,opt,name=seLinuxOptions"`
	// WindowsOptions holds Windows-only settings.
	WindowsOptions *WindowsSecurityContextOptions `json:"windowsOptions,omitempty" protobuf:"bytes,8,opt,name=windowsOptions"`
	// RunAsUser is the UID of every container's entrypoint.
	RunAsUser *int64 `json:"runAsUser,omitempty" protobuf:"varint,2,opt,name=runAsUser"`
	// RunAsGroup is the GID of every container's entrypoint.
	RunAsGroup *int64 `json:"runAsGroup,omitempty" protobuf:"varint,6,opt,name=runAsGroup"`
	// RunAsNonRoot refuses to start containers as UID 0.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty" protobuf:"varint,3,opt,name=runAsNonRoot"`
	// SupplementalGroups are added to each container's first process.
	// +listType=atomic
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty" protobuf:"varint,4,rep,name=supplementalGroups"`
	// SupplementalGroupsPolicy is Merge (the default) or Strict.
	SupplementalGroupsPolicy *SupplementalGroupsPolicy `json:"supplementalGroupsPolicy,omitempty" protobuf:"bytes,12,opt,name=supplementalGroupsPolicy"`
	// FSGroup owns the files of volumes that support ownership changes,
	// and is added to every container's groups.
	FSGroup *int64 `json:"fsGroup,omitempty" protobuf:"varint,5,opt,name=fsGroup"`
	// Sysctls are namespaced kernel parameters set for the pod.
	// +listType=atomic
	Sysctls []Sysctl `json:"sysctls,omitempty" protobuf:"bytes,7,rep,name=sysctls"`
	// FSGroupChangePolicy is OnRootMismatch or Always.
	FSGroupChangePolicy *PodFSGroupChangePolicy `json:"fsGroupChangePolicy,omitempty" protobuf:"bytes,9,opt,name=fsGroupChangePolicy"`
	// SeccompProfile is the seccomp filter of every container.
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty" protobuf:"bytes,10,opt,name=seccompProfile"`
	// AppArmorProfile is the AppArmor profile of every container.
	AppArmorProfile *AppArmorProfile `json:"appArmorProfile,omitempty" protobuf:"bytes,11,opt,name=appArmorProfile"`
	// SELinuxChangePolicy is Recursive or MountOption.
	SELinuxChangePolicy *PodSELinuxChangePolicy `json:"seLinuxChangePolicy,omitempty" protobuf:"bytes,13,opt,name=seLinuxChangePolicy"`
}

// SupplementalGroupsPolicy says how supplemental groups are computed.
type SupplementalGroupsPolicy string

// The supplemental group policies.
const (
	SupplementalGroupsPolicyMerge  SupplementalGroupsPolicy = "Merge"
	SupplementalGroupsPolicyStrict SupplementalGroupsPolicy = "Strict"
)

// PodFSGroupChangePolicy says when volume ownership is changed.
type PodFSGroupChangePolicy string

// The fsGroup change policies.
const (
	FSGroupChangeOnRootMismatch PodFSGroupChangePolicy = "OnRootMismatch"
	FSGroupChangeAlways         PodFSGroupChangePolicy = "Always"
)

// PodSELinuxChangePolicy says how volumes get their SELinux label.
type PodSELinuxChangePolicy string

// The SELinux change policies.
const (
	SELinuxChangePolicyRecursive   PodSELinuxChangePolicy = "Recursive"
	SELinuxChangePolicyMountOption PodSELinuxChangePolicy = "MountOption"
)

// Sysctl is one kernel parameter.
type Sysctl struct {
	// Name of the parameter.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Value of the parameter.
	Value string `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// Affinity groups the pod's scheduling affinities.
type Affinity struct {
	// NodeAffinity constrains and ranks nodes by their labels.
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty" protobuf:"bytes,1,opt,name=nodeAffinity"`
	// PodAffinity places the pod near matching pods.
	PodAffinity *PodAffinity `json:"podAffinity,omitempty" protobuf:"bytes,2,opt,name=podAffinity"`
	// PodAntiAffinity places the pod away from matching pods.
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty" protobuf:"bytes,3,opt,name=podAntiAffinity"`
}

// NodeAffinity holds node affinity rules.
type NodeAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution must hold for the pod
	// to be placed on a node; later label changes do not evict it.
	RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,1,opt,name=requiredDuringSchedulingIgnoredDuringExecution"`
	// PreferredDuringSchedulingIgnoredDuringExecution ranks nodes by the
	// summed weights of the terms they match.
	// +listType=atomic
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,2,rep,name=preferredDuringSchedulingIgnoredDuringExecution"`
}

// NodeSelector is an OR of node selector terms.
// +structType=atomic
type NodeSelector struct {
	// NodeSelectorTerms are ORed.
	// +listType=atomic
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms" protobuf:"bytes,1,rep,name=nodeSelectorTerms"`
}

// NodeSelectorTerm is an AND of requirements; an empty term matches no
// node.
// +structType=atomic
type NodeSelectorTerm struct {
	// MatchExpressions are requirements on node labels.
	// +listType=atomic
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
	// MatchFields are requirements on node fields (metadata.name only).
	// +listType=atomic
	MatchFields []NodeSelectorRequirement `json:"matchFields,omitempty" protobuf:"bytes,2,rep,name=matchFields"`
}

// NodeSelectorRequirement relates a key to a set of values.
type NodeSelectorRequirement struct {
	// Key is the label key or field path.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Operator is In, NotIn, Exists, DoesNotExist, Gt or Lt.
	Operator NodeSelectorOperator `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	// Values are required for In and NotIn, empty for Exists and
	// DoesNotExist, and one integer for Gt and Lt.
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// NodeSelectorOperator is the operator of a NodeSelectorRequirement.
type NodeSelectorOperator string

// The node selector operators.
const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// PreferredSchedulingTerm is a weighted node selector term.
type PreferredSchedulingTerm struct {
	// Weight from 1 to 100.
	Weight int32 `json:"weight" protobuf:"varint,1,opt,name=weight"`
	// Preference is the term a node should match.
	Preference NodeSelectorTerm `json:"preference" protobuf:"bytes,2,opt,name=preference"`
}

// PodAffinity holds inter-pod affinity rules.
type PodAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution terms must all hold.
	// +listType=atomic
	RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,1,rep,name=requiredDuringSchedulingIgnoredDuringExecution"`
	// PreferredDuringSchedulingIgnoredDuringExecution terms add their
	// weight to the nodes that satisfy them.
	// +listType=atomic
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,2,rep,name=preferredDuringSchedulingIgnoredDuringExecution"`
}

// PodAntiAffinity holds inter-pod anti-affinity rules.
type PodAntiAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution terms must all hold.
	// +listType=atomic
	RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,1,rep,name=requiredDuringSchedulingIgnoredDuringExecution"`
	// PreferredDuringSchedulingIgnoredDuringExecution terms subtract their
	// weight from the nodes that violate them.
	// +listType=atomic
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,2,rep,name=preferredDuringSchedulingIgnoredDuringExecution"`
}

// PodAffinityTerm selects a set of pods and a topology: "on a node in the
// same <topologyKey> domain as one of these pods".
type PodAffinityTerm struct {
	// LabelSelector selects the pods; nil matches none.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,1,opt,name=labelSelector"`
	// Namespaces to look in, added to those namespaceSelector selects;
	// both empty means the pod's own namespace.
	// +listType=atomic
	Namespaces []string `json:"namespaces,omitempty" protobuf:"bytes,2,rep,name=namespaces"`
	// TopologyKey is the node label that defines a domain; required.
	TopologyKey string `json:"topologyKey" protobuf:"bytes,3,opt,name=topologyKey"`
	// NamespaceSelector selects namespaces to look in; {} selects all.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,4,opt,name=namespaceSelector"`
	// MatchLabelKeys are label keys whose values on the incoming pod are
	// added to labelSelector as "key in (value)".
	// +listType=atomic
	MatchLabelKeys []string `json:"matchLabelKeys,omitempty" protobuf:"bytes,5,rep,name=matchLabelKeys"`
	// MismatchLabelKeys are label keys whose values on the incoming pod are
	// added to labelSelector as "key notin (value)".
	// +listType=atomic
	MismatchLabelKeys []string `json:"mismatchLabelKeys,omitempty" protobuf:"bytes,6,rep,name=mismatchLabelKeys"`
}

// WeightedPodAffinityTerm is a pod affinity term with a weight.
type WeightedPodAffinityTerm struct {
	// Weight from 1 to 100.
	Weight int32 `json:"weight" protobuf:"varint,1,opt,name=weight"`
	// PodAffinityTerm is the weighted term.
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm" protobuf:"bytes,2,opt,name=podAffinityTerm"`
}

// Toleration lets a pod be scheduled onto, or stay on, a node with a
// matching taint.
type Toleration struct {
	// Key of the taint; empty with operator Exists matches every taint.
	Key string `json:"key,omitempty" protobuf:"bytes,1,opt,name=key"`
	// Operator is Equal (the default) or Exists.
	Operator TolerationOperator `json:"operator,omitempty" protobuf:"bytes,2,opt,name=operator"`
	// Value to compare with Equal.
	Value string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
	// Effect to match; empty matches every effect.
	Effect TaintEffect `json:"effect,omitempty" protobuf:"bytes,4,opt,name=effect"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated;
	// nil means forever.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty" protobuf:"varint,5,opt,name=tolerationSeconds"`
}

// TolerationOperator is how a toleration compares values.
type TolerationOperator string

// The toleration operators.
const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// HostAlias adds names for an IP to the pod's /etc/hosts.
type HostAlias struct {
	// IP address of the entry.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	// Hostnames for the address.
	// +listType=atomic
	Hostnames []string `json:"hostnames,omitempty" protobuf:"bytes,2,rep,name=hostnames"`
}

// PodDNSConfig adjusts the pod's resolv.conf.
type PodDNSConfig struct {
	// Nameservers are added to those the policy gives.
	// +listType=atomic
	Nameservers []string `json:"nameservers,omitempty" protobuf:"bytes,1,rep,name=nameservers"`
	// Searches are added search domains.
	// +listType=atomic
	Searches []string `json:"searches,omitempty" protobuf:"bytes,2,rep,name=searches"`
	// Options are resolver options; they replace same-named ones.
	// +listType=atomic
	Options []PodDNSConfigOption `json:"options,omitempty" protobuf:"bytes,3,rep,name=options"`
}

// PodDNSConfigOption is one resolver option, such as ndots:2.
type PodDNSConfigOption struct {
	// Name of the option.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Value of the option, if it takes one.
	Value *string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
}

// PodReadinessGate names an extra condition for pod readiness.
type PodReadinessGate struct {
	// ConditionType is the pod condition that must be True.
	ConditionType PodConditionType `json:"conditionType" protobuf:"bytes,1,opt,name=conditionType"`
}

// TopologySpreadConstraint limits how unevenly matching pods spread over
// the domains of a topology key.
type TopologySpreadConstraint struct {
	// MaxSkew is the largest allowed difference in matching pods between
	// two domains.
	MaxSkew int32 `json:"maxSkew" protobuf:"varint,1,opt,name=maxSkew"`
	// TopologyKey is the node label that defines the domains.
	TopologyKey string `json:"topologyKey" protobuf:"bytes,2,opt,name=topologyKey"`
	// WhenUnsatisfiable is DoNotSchedule or ScheduleAnyway.
	WhenUnsatisfiable UnsatisfiableConstraintAction `json:"whenUnsatisfiable" protobuf:"bytes,3,opt,name=whenUnsatisfiable"`
	// LabelSelector selects the pods counted.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,4,opt,name=labelSelector"`
	// MinDomains treats fewer eligible domains as a global minimum of 0.
	MinDomains *int32 `json:"minDomains,omitempty" protobuf:"varint,5,opt,name=minDomains"`
	// NodeAffinityPolicy says whether node affinity limits the domains
	// counted: Honor (the default) or Ignore.
	NodeAffinityPolicy *NodeInclusionPolicy `json:"nodeAffinityPolicy,omitempty" protobuf:"bytes,6,opt,name=nodeAffinityPolicy"`
	// NodeTaintsPolicy says whether taints limit the domains counted:
	// Ignore (the default) or Honor.
	NodeTaintsPolicy *NodeInclusionPolicy `json:"nodeTaintsPolicy,omitempty" protobuf:"bytes,7,opt,name=nodeTaintsPolicy"`
	// MatchLabelKeys are label keys whose values on the incoming pod are
	// added to labelSelector.
	// +listType=atomic
	MatchLabelKeys []string `json:"matchLabelKeys,omitempty" protobuf:"bytes,8,rep,name=matchLabelKeys"`
}

// UnsatisfiableConstraintAction is what to do when a spread constraint
// cannot be met.
type UnsatisfiableConstraintAction string

// The actions of a spread constraint.
const (
	DoNotSchedule  UnsatisfiableConstraintAction = "DoNotSchedule"
	ScheduleAnyway UnsatisfiableConstraintAction = "ScheduleAnyway"
)

// NodeInclusionPolicy says whether a node filter applies when counting
// spread domains.
type NodeInclusionPolicy string

// The node inclusion policies.
const (
	NodeInclusionPolicyIgnore NodeInclusionPolicy = "Ignore"
	NodeInclusionPolicyHonor  NodeInclusionPolicy = "Honor"
)

// PodOS is the operating system a pod needs.
type PodOS struct {
	// Name is linux or windows.
	Name OSName `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// OSName is an operating system name.
type OSName string

// The operating systems.
const (
	Linux   OSName = "linux"
	Windows OSName = "windows"
)

// PodSchedulingGate holds a pod back from scheduling.
type PodSchedulingGate struct {
	// Name of the gate.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// PodResourceClaim names a dynamic resource claim of the pod.
type PodResourceClaim struct {
	// Name by which containers refer to the claim.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ResourceClaimName names an existing ResourceClaim.
	ResourceClaimName *string `json:"resourceClaimName,omitempty" protobuf:"bytes,3,opt,name=resourceClaimName"`
	// ResourceClaimTemplateName names a template to make a claim from.
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty" protobuf:"bytes,4,opt,name=resourceClaimTemplateName"`
}

// PodStatus is the observed state of a pod.
type PodStatus struct {
	// ObservedGeneration is the pod generation this status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,17,opt,name=observedGeneration"`
	// Phase summarises where the pod is in its life cycle.
	Phase PodPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Conditions are the pod's current conditions.
	// +listType=map
	// +listMapKey=type
	Conditions []PodCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
	// Message explains the pod's state to a human.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Reason is a CamelCase cause, such as "Evicted".
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// NominatedNodeName is the node a preempting pod expects to run on.
	NominatedNodeName string `json:"nominatedNodeName,omitempty" protobuf:"bytes,11,opt,name=nominatedNodeName"`
	// HostIP is the primary address of the pod's node.
	HostIP string `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
	// HostIPs are the node's addresses, primary first.
	// +listType=atomic
	HostIPs []HostIP `json:"hostIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,16,rep,name=hostIPs"`
	// PodIP is the pod's primary address.
	PodIP string `json:"podIP,omitempty" protobuf:"bytes,6,opt,name=podIP"`
	// PodIPs are the pod's addresses, primary first.
	// +listType=map
	// +listMapKey=ip
	PodIPs []PodIP `json:"podIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,12,rep,name=podIPs"`
	// StartTime is when the kubelet accepted the pod.
	StartTime *metav1.Time `json:"startTime,omitempty" protobuf:"bytes,7,opt,name=startTime"`
	// InitContainerStatuses are the init containers' statuses, in order.
	// +listType=atomic
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty" protobuf:"bytes,10,rep,name=initContainerStatuses"`
	// ContainerStatuses are the app containers' statuses.
	// +listType=atomic
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty" protobuf:"bytes,8,rep,name=containerStatuses"`
	// QOSClass is derived from the containers' requests and limits.
	QOSClass PodQOSClass `json:"qosClass,omitempty" protobuf:"bytes,9,opt,name=qosClass"`
	// EphemeralContainerStatuses are the ephemeral containers' statuses.
	// +listType=atomic
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty" protobuf:"bytes,13,rep,name=ephemeralContainerStatuses"`
	// Resize reports a pending resize; superseded by resize conditions.
	Resize PodResizeStatus `json:"resize,omitempty" protobuf:"bytes,14,opt,name=resize"`
	// ResourceClaimStatuses name the claims generated for the pod.
	// +listType=map
	// +listMapKey=name
	ResourceClaimStatuses []PodResourceClaimStatus `json:"resourceClaimStatuses,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,15,rep,name=resourceClaimStatuses"`
}

// PodPhase is the coarse life-cycle state of a pod.
type PodPhase string

// The pod phases.
const (
	// PodPending is accepted but not all containers have started.
	PodPending PodPhase = "Pending"
	// PodRunning is bound to a node with all containers started.
	PodRunning PodPhase = "Running"
	// PodSucceeded has all containers exited with success, for good.
	PodSucceeded PodPhase = "Succeeded"
	// PodFailed has all containers exited, at least one in failure.
	PodFailed PodPhase = "Failed"
	// PodUnknown could not be determined.
	PodUnknown PodPhase = "Unknown"
)

// PodConditionType is the type of a pod condition.
type PodConditionType string

// The pod condition types.
const (
	// PodScheduled: the pod is bound to a node.
	PodScheduled PodConditionType = "PodScheduled"
	// PodReadyToStartContainers: the sandbox and network are up.
	PodReadyToStartContainers PodConditionType = "PodReadyToStartContainers"
	// PodInitialized: all init containers have completed.
	PodInitialized PodConditionType = "Initialized"
	// ContainersReady: every container is ready.
	ContainersReady PodConditionType = "ContainersReady"
	// PodReady: the pod can serve and belongs in service endpoints.
	PodReady PodConditionType = "Ready"
	// DisruptionTarget: the pod is about to be terminated by a disruption.
	DisruptionTarget PodConditionType = "DisruptionTarget"
	// PodResizePending: a resize was asked for and cannot be done yet.
	PodResizePending PodConditionType = "PodResizePending"
	// PodResizeInProgress: a resize is being applied.
	PodResizeInProgress PodConditionType = "PodResizeInProgress"
)

// Reasons of the PodScheduled condition.
const (
	// PodReasonUnschedulable: no node fits the pod now.
	PodReasonUnschedulable = "Unschedulable"
	// PodReasonSchedulingGated: scheduling gates remain.
	PodReasonSchedulingGated = "SchedulingGated"
	// PodReasonSchedulerError: the scheduler failed internally.
	PodReasonSchedulerError = "SchedulerError"
	// PodReasonTerminationByKubelet: the kubelet evicted the pod.
	PodReasonTerminationByKubelet = "TerminationByKubelet"
	// PodReasonPreemptionByScheduler: the pod was preempted.
	PodReasonPreemptionByScheduler = "PreemptionByScheduler"
)

// PodCondition is one observation about a pod.
type PodCondition struct {
	// Type of the condition.
	Type PodConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// ObservedGeneration is the pod generation the condition reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,7,opt,name=observedGeneration"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastProbeTime is when the condition was last checked.
	LastProbeTime metav1.Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message explains the condition to a human.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// PodResizeStatus is the state of an in-place resize.
type PodResizeStatus string

// The resize states.
const (
	PodResizeStatusInProgress PodResizeStatus = "InProgress"
	PodResizeStatusDeferred   PodResizeStatus = "Deferred"
	PodResizeStatusInfeasible PodResizeStatus = "Infeasible"
)

// PodQOSClass is a pod's quality-of-service class.
type PodQOSClass string

// The QoS classes.
const (
	// PodQOSGuaranteed: every container has equal requests and limits.
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	// PodQOSBurstable: some requests, not Guaranteed.
	PodQOSBurstable PodQOSClass = "Burstable"
	// PodQOSBestEffort: no requests or limits at all.
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// HostIP is one address of the pod's node.
type HostIP struct {
	// IP address.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// PodIP is one address of the pod.
type PodIP struct {
	// IP address.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// PodResourceClaimStatus names the claim made for a pod resource claim.
type PodResourceClaimStatus struct {
	// Name of the entry in spec.resourceClaims.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ResourceClaimName is the generated claim; nil when none is needed.
	ResourceClaimName *string `json:"resourceClaimName,omitempty" protobuf:"bytes,2,opt,name=resourceClaimName"`
}

// ContainerStatus is the observed state of one container.
type ContainerStatus struct {
	// Name of the container.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// State is the container's current state.
	State ContainerState `json:"state,omitempty" protobuf:"bytes,2,opt,name=state"`
	// LastTerminationState is how the previous instance ended.
	LastTerminationState ContainerState `json:"lastState,omitempty" protobuf:"bytes,3,opt,name=lastState"`
	// Ready reports the readiness probe (true with none).
	Ready bool `json:"ready" protobuf:"varint,4,opt,name=ready"`
	// RestartCount counts restarts of the container.
	RestartCount int32 `json:"restartCount" protobuf:"varint,5,opt,name=restartCount"`
	// Image is the image the container runs.
	Image string `json:"image" protobuf:"bytes,6,opt,name=image"`
	// ImageID is the image's digest reference.
	ImageID string `json:"imageID" protobuf:"bytes,7,opt,name=imageID"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,8,opt,name=containerID"`
	// Started reports the startup probe (true after start with none).
	Started *bool `json:"started,omitempty" protobuf:"varint,9,opt,name=started"`
	// AllocatedResources are the resources the node allocated.
	AllocatedResources ResourceList `json:"allocatedResources,omitempty" protobuf:"bytes,10,rep,name=allocatedResources"`
	// Resources are the requests and limits actually applied.
	Resources *ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,11,opt,name=resources"`
	// VolumeMounts are the mounts as applied.
	// +listType=map
	// +listMapKey=mountPath
	VolumeMounts []VolumeMountStatus `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath" protobuf:"bytes,12,rep,name=volumeMounts"`
	// User is the identity the first process runs as.
	User *ContainerUser `json:"user,omitempty" protobuf:"bytes,13,opt,name=user"`
}

// ContainerState is exactly one of waiting, running or terminated; none
// set means waiting.
type ContainerState struct {
	// Waiting: not running yet.
	Waiting *ContainerStateWaiting `json:"waiting,omitempty" protobuf:"bytes,1,opt,name=waiting"`
	// Running: started and not exited.
	Running *ContainerStateRunning `json:"running,omitempty" protobuf:"bytes,2,opt,name=running"`
	// Terminated: exited.
	Terminated *ContainerStateTerminated `json:"terminated,omitempty" protobuf:"bytes,3,opt,name=terminated"`
}

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting struct {
	// Reason, such as ContainerCreating or CrashLoopBackOff.
	Reason string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	// Message with details.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	// StartedAt is when the container last started.
	StartedAt metav1.Time `json:"startedAt,omitempty" protobuf:"bytes,1,opt,name=startedAt"`
}

// ContainerStateTerminated is an exited container.
type ContainerStateTerminated struct {
	// ExitCode of the last process.
	ExitCode int32 `json:"exitCode" protobuf:"varint,1,opt,name=exitCode"`
	// Signal that killed the process, if any.
	Signal int32 `json:"signal,omitempty" protobuf:"varint,2,opt,name=signal"`
	// Reason, such as Completed, Error or OOMKilled.
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Message with details, such as the termination message.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// StartedAt is when the container started.
	StartedAt metav1.Time `json:"startedAt,omitempty" protobuf:"bytes,5,opt,name=startedAt"`
	// FinishedAt is when the container exited.
	FinishedAt metav1.Time `json:"finishedAt,omitempty" protobuf:"bytes,6,opt,name=finishedAt"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,7,opt,name=containerID"`
}

// VolumeMountStatus is a mount as the runtime applied it.
type VolumeMountStatus struct {
	// Name of the volume.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// MountPath in the container.
	MountPath string `json:"mountPath" protobuf:"bytes,2,opt,name=mountPath"`
	// ReadOnly as applied.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
	// RecursiveReadOnly as applied: Disabled or Enabled.
	RecursiveReadOnly *RecursiveReadOnlyMode `json:"recursiveReadOnly,omitempty" protobuf:"bytes,4,opt,name=recursiveReadOnly"`
}

// ContainerUser is the identity of a container's first process.
type ContainerUser struct {
	// Linux identity.
	Linux *LinuxContainerUser `json:"linux,omitempty" protobuf:"bytes,1,opt,name=linux"`
}

// LinuxContainerUser is a Linux UID, GID and groups.
type LinuxContainerUser struct {
	// UID of the process.
	UID int64 `json:"uid" protobuf:"varint,1,opt,name=uid"`
	// GID of the process.
	GID int64 `json:"gid" protobuf:"varint,2,opt,name=gid"`
	// SupplementalGroups of the process.
	// +listType=atomic
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty" protobuf:"varint,3,rep,name=supplementalGroups"`
}

// PodAttachOptions are the query of a pods/attach request; admission sees
// an attach as a CONNECT of this object.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodAttachOptions struct {
	metav1.TypeMeta `json:",inline"`
	// Stdin passes the client's standard input to the container.
	Stdin bool `json:"stdin,omitempty"`
	// Stdout returns the container's standard output.
	Stdout bool `json:"stdout,omitempty"`
	// Stderr returns the container's standard error.
	Stderr bool `json:"stderr,omitempty"`
	// TTY allocates a terminal for the streams.
	TTY bool `json:"tty,omitempty"`
	// Container is the container attached to; the pod's only one when empty.
	Container string `json:"container,omitempty"`
}

// PodExecOptions are the query of a pods/exec request; admission sees an
// exec as a CONNECT of this object.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodExecOptions struct {
	metav1.TypeMeta `json:",inline"`
	// Stdin passes the client's standard input to the command.
	Stdin bool `json:"stdin,omitempty"`
	// Stdout returns the command's standard output.
	Stdout bool `json:"stdout,omitempty"`
	// Stderr returns the command's standard error.
	Stderr bool `json:"stderr,omitempty"`
	// TTY allocates a terminal for the command.
	TTY bool `json:"tty,omitempty"`
	// Container is the container the command runs in; the pod's only one
	// when empty.
	Container string `json:"container,omitempty"`
	// Command is the command and its arguments, run without a shell.
	Command []string `json:"command"`
}

// PodPortForwardOptions are the query of a pods/portforward request;
// admission sees a port forward as a CONNECT of this object.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodPortForwardOptions struct {
	metav1.TypeMeta `json:",inline"`
	// Ports are the pod's ports a WebSocket client forwards (SPDY clients
	// name theirs per stream).
	Ports []int32 `json:"ports,omitempty"`
}
