package testtypes

import (
	"encoding/json"
	"fmt"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// TypeMeta is the kind of an object, as in meta/v1.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetObjectKind returns t.
func (t *TypeMeta) GetObjectKind() schema.ObjectKind { return t }

// SetGroupVersionKind sets apiVersion and kind.
func (t *TypeMeta) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	t.APIVersion, t.Kind = gvk.ToAPIVersionAndKind()
}

// GroupVersionKind returns the kind from apiVersion and kind.
func (t *TypeMeta) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(t.APIVersion, t.Kind)
}

// ObjectMeta is a cut-down meta/v1 ObjectMeta.
type ObjectMeta struct {
	Name              string            `json:"name,omitempty"`
	GenerateName      string            `json:"generateName,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	Generation        int64             `json:"generation,omitempty"`
	CreationTimestamp string            `json:"creationTimestamp,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	OwnerReferences   []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
}

// OwnerReference points at an owner.
type OwnerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller *bool  `json:"controller,omitempty"`
}

// ListMeta is the metadata of a list.
type ListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Continue        string `json:"continue,omitempty"`
}

// Pod is a cut-down core/v1 Pod.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec   `json:"spec,omitempty"`
	Status     PodStatus `json:"status,omitempty"`
}

// PodList is a list of pods.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []Pod `json:"items"`
}

// PodSpec is what a pod runs.
type PodSpec struct {
	Containers                    []Container       `json:"containers"`
	InitContainers                []Container       `json:"initContainers,omitempty"`
	RestartPolicy                 string            `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64            `json:"terminationGracePeriodSeconds,omitempty"`
	DNSPolicy                     string            `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string `json:"nodeSelector,omitempty"`
	ServiceAccountName            string            `json:"serviceAccountName,omitempty"`
	NodeName                      string            `json:"nodeName,omitempty"`
	HostNetwork                   bool              `json:"hostNetwork,omitempty"`
	SchedulerName                 string            `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration      `json:"tolerations,omitempty"`
	Volumes                       []Volume          `json:"volumes,omitempty"`
	Priority                      *int32            `json:"priority,omitempty"`
}

// Container is one container of a pod.
type Container struct {
	Name            string               `json:"name"`
	Image           string               `json:"image,omitempty"`
	Command         []string             `json:"command,omitempty"`
	Args            []string             `json:"args,omitempty"`
	WorkingDir      string               `json:"workingDir,omitempty"`
	Ports           []ContainerPort      `json:"ports,omitempty"`
	Env             []EnvVar             `json:"env,omitempty"`
	Resources       ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts    []VolumeMount        `json:"volumeMounts,omitempty"`
	ImagePullPolicy string               `json:"imagePullPolicy,omitempty"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

// EnvVar is an environment variable.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

// VolumeMount mounts a volume in a container.
type VolumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// Volume is a pod volume.
type Volume struct {
	Name     string    `json:"name"`
	EmptyDir *EmptyDir `json:"emptyDir,omitempty"`
}

// EmptyDir is a scratch volume.
type EmptyDir struct {
	Medium string `json:"medium,omitempty"`
}

// Toleration tolerates a taint.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// PodStatus is the observed state of a pod.
type PodStatus struct {
	Phase             string            `json:"phase,omitempty"`
	Conditions        []PodCondition    `json:"conditions,omitempty"`
	HostIP            string            `json:"hostIP,omitempty"`
	PodIP             string            `json:"podIP,omitempty"`
	StartTime         string            `json:"startTime,omitempty"`
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass          string            `json:"qosClass,omitempty"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
}

// ContainerStatus is the state of one container.
type ContainerStatus struct {
	Name         string `json:"name"`
	Ready        bool   `json:"ready"`
	RestartCount int32  `json:"restartCount"`
	Image        string `json:"image"`
	ContainerID  string `json:"containerID,omitempty"`
	Started      *bool  `json:"started,omitempty"`
}

// Status is an unversioned result, like meta/v1 Status.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Status struct {
	TypeMeta `json:",inline"`
	Status   string `json:"status,omitempty"`
	Message  string `json:"message,omitempty"`
	Code     int32  `json:"code,omitempty"`
}

// Unstructured is an object the scheme does not know: it keeps any JSON
// object and takes its kind from it.
type Unstructured struct {
	Object map[string]any
}

var _ runtime.Object = (*Unstructured)(nil)

// GetObjectKind returns u.
func (u *Unstructured) GetObjectKind() schema.ObjectKind { return u }

// SetGroupVersionKind sets apiVersion and kind in the content.
func (u *Unstructured) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	u.Object["apiVersion"], u.Object["kind"] = gvk.ToAPIVersionAndKind()
}

// GroupVersionKind reads apiVersion and kind from the content.
func (u *Unstructured) GroupVersionKind() schema.GroupVersionKind {
	av, _ := u.Object["apiVersion"].(string)
	k, _ := u.Object["kind"].(string)
	return schema.FromAPIVersionAndKind(av, k)
}

// DeepCopyObject copies the content.
func (u *Unstructured) DeepCopyObject() runtime.Object {
	return &Unstructured{Object: runtime.DeepCopyJSON(u.Object)}
}

// MarshalJSON writes the content.
func (u *Unstructured) MarshalJSON() ([]byte, error) { return json.Marshal(u.Object) }

// UnmarshalJSON reads a JSON object.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("unstructured: %w", err)
	}
	u.Object = m
	return nil
}
