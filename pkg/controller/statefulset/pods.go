package statefulset

import (
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// podName is the name of the pod of set with ordinal.
func podName(set *appsv1.StatefulSet, ordinal int) string {
	return set.Name + "-" + strconv.Itoa(ordinal)
}

// claimName is the name of the claim of template for the pod of set with
// ordinal: <template>-<set>-<ordinal>.
func claimName(template string, set *appsv1.StatefulSet, ordinal int) string {
	return template + "-" + podName(set, ordinal)
}

// ordinalOf returns the ordinal in a pod name of set, if it is one.
func ordinalOf(set *appsv1.StatefulSet, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, set.Name+"-")
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// isMember reports whether pod is named as a pod of set.
func isMember(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	_, ok := ordinalOf(set, pod.Name)
	return ok
}

// startOrdinal is the first ordinal of set (spec.ordinals.start).
func startOrdinal(set *appsv1.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

func replicasOf(set *appsv1.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// newPod makes the pod of set with ordinal from template, at revision.
func newPod(set *appsv1.StatefulSet, template *corev1.PodTemplateSpec, revision string, ordinal int) (*corev1.Pod, error) {
	pod, err := podcontrol.NewPod(template, set, metav1.NewControllerRef(set, controllerKind))
	if err != nil {
		return nil, err
	}
	pod.GenerateName = ""
	pod.Name = podName(set, ordinal)
	setIdentityLabels(set, pod, ordinal)
	pod.Labels[appsv1.ControllerRevisionHashLabelKey] = revision
	pod.Spec.Hostname = pod.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
	for _, t := range set.Spec.VolumeClaimTemplates {
		v := corev1.Volume{Name: t.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(t.Name, set, ordinal)},
		}}
		if i := slices.IndexFunc(pod.Spec.Volumes, func(o corev1.Volume) bool { return o.Name == t.Name }); i >= 0 {
			pod.Spec.Volumes[i] = v
		} else {
			pod.Spec.Volumes = append(pod.Spec.Volumes, v)
		}
	}
	return pod, nil
}

// setIdentityLabels sets the labels naming a pod of set.
func setIdentityLabels(set *appsv1.StatefulSet, pod *corev1.Pod, ordinal int) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
}

// identityMatches reports whether pod carries its identity labels.
func identityMatches(pod *corev1.Pod, ordinal int) bool {
	return pod.Labels[appsv1.StatefulSetPodNameLabel] == pod.Name &&
		pod.Labels[appsv1.PodIndexLabel] == strconv.Itoa(ordinal)
}

func revisionOf(pod *corev1.Pod) string { return pod.Labels[appsv1.ControllerRevisionHashLabelKey] }

func isTerminating(pod *corev1.Pod) bool { return pod.DeletionTimestamp != nil }

func isFinished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// isCreated reports a pod the API server accepted (it has a phase).
func isCreated(pod *corev1.Pod) bool { return pod.Status.Phase != "" }

func isRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && podcontrol.IsPodReady(pod)
}

// isHealthy is running, ready and not going away.
func isHealthy(pod *corev1.Pod) bool { return isRunningAndReady(pod) && !isTerminating(pod) }

// availableIn is how long until a ready pod has been ready for
// minReadySeconds; zero when it is available or not ready.
func availableIn(pod *corev1.Pod, minReadySeconds int32, now time.Time) time.Duration {
	if minReadySeconds == 0 || !isRunningAndReady(pod) {
		return 0
	}
	c := podcontrol.PodReadyCondition(pod)
	if c == nil {
		return 0
	}
	left := c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Sub(now)
	return max(left, 0)
}
