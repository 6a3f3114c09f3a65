package describe

import (
	"context"
	"fmt"
	"io"
	"strings"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/dynamic"
)

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// describePodTemplate prints the "Pod Template:" section of a workload.
func describePodTemplate(w *prefixWriter, t *corev1.PodTemplateSpec) {
	w.write(level0, "Pod Template:\n")
	w.writeLabels(level0, "  Labels", t.Labels)
	if len(t.Annotations) > 0 {
		w.writeAnnotations(level0, "  Annotations", t.Annotations)
	}
	if t.Spec.ServiceAccountName != "" {
		w.write(level1, "Service Account:\t%s\n", t.Spec.ServiceAccountName)
	}
	if len(t.Spec.InitContainers) > 0 {
		describeContainers(w, "Init Containers", t.Spec.InitContainers, nil, "  ")
	}
	describeContainers(w, "Containers", t.Spec.Containers, nil, "  ")
	describeVolumes(w, t.Spec.Volumes, "  ")
	if t.Spec.PriorityClassName != "" {
		w.write(level1, "Priority Class Name:\t%s\n", t.Spec.PriorityClassName)
	}
	w.writeLabels(level0, "  Node-Selectors", t.Spec.NodeSelector)
	writeTolerations(w, level0, "  Tolerations", t.Spec.Tolerations)
}

func describeDeployment(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var dep appsv1.Deployment
	if err := convert(obj, &dep); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", dep.Name)
	w.write(level0, "Namespace:\t%s\n", dep.Namespace)
	w.write(level0, "CreationTimestamp:\t%s\n", timestamp(dep.CreationTimestamp.Time))
	w.writeLabels(level0, "Labels", dep.Labels)
	w.writeAnnotations(level0, "Annotations", dep.Annotations)
	w.write(level0, "Selector:\t%s\n", metav1.FormatLabelSelector(dep.Spec.Selector))
	replicas := int32(1)
	if dep.Spec.Replicas != nil {
		replicas = *dep.Spec.Replicas
	}
	st := dep.Status
	w.write(level0, "Replicas:\t%d desired | %d updated | %d total | %d available | %d unavailable\n",
		replicas, st.UpdatedReplicas, st.Replicas, st.AvailableReplicas, st.UnavailableReplicas)
	w.write(level0, "StrategyType:\t%s\n", dep.Spec.Strategy.Type)
	w.write(level0, "MinReadySeconds:\t%d\n", dep.Spec.MinReadySeconds)
	if ru := dep.Spec.Strategy.RollingUpdate; ru != nil {
		w.write(level0, "RollingUpdateStrategy:\t%s max unavailable, %s max surge\n", ru.MaxUnavailable.String(), ru.MaxSurge.String())
	}
	describePodTemplate(w, &dep.Spec.Template)
	if len(dep.Status.Conditions) > 0 {
		w.write(level0, "Conditions:\n  Type\tStatus\tReason\n")
		w.write(level1, "----\t------\t------\n")
		for _, c := range dep.Status.Conditions {
			w.write(level1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
		}
	}
	if old, newRS, err := d.replicaSetsOf(ctx, &dep); err == nil && (len(old) > 0 || newRS != nil) {
		w.write(level0, "OldReplicaSets:\t%s\n", replicaSetNames(old))
		var n []*appsv1.ReplicaSet
		if newRS != nil {
			n = []*appsv1.ReplicaSet{newRS}
		}
		w.write(level0, "NewReplicaSet:\t%s\n", replicaSetNames(n))
	}
	d.writeEvents(ctx, w, dep.ObjectMeta)
	return nil
}

// replicaSetsOf returns the replica sets a deployment controls: the one
// running its current template, and the others.
func (d *Describer) replicaSetsOf(ctx context.Context, dep *appsv1.Deployment) ([]*appsv1.ReplicaSet, *appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		return nil, nil, err
	}
	var list appsv1.ReplicaSetList
	if err := d.list(ctx, replicaSetsGVR, dep.Namespace, metav1.ListOptions{LabelSelector: sel.String()}, &list); err != nil {
		return nil, nil, err
	}
	var old []*appsv1.ReplicaSet
	var newRS *appsv1.ReplicaSet
	for i := range list.Items {
		rs := &list.Items[i]
		ref := metav1.GetControllerOf(rs)
		if ref == nil || ref.UID != dep.UID {
			continue
		}
		if newRS == nil && sameTemplate(&rs.Spec.Template, &dep.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return old, newRS, nil
}

// sameTemplate compares templates, ignoring the hash label the controller adds.
func sameTemplate(a, b *corev1.PodTemplateSpec) bool {
	strip := func(t *corev1.PodTemplateSpec) string {
		c := t.DeepCopy()
		delete(c.Labels, "pod-template-hash")
		return fmt.Sprintf("%v", *c)
	}
	return strip(a) == strip(b)
}

func replicaSetNames(rss []*appsv1.ReplicaSet) string {
	if len(rss) == 0 {
		return "<none>"
	}
	var parts []string
	for _, rs := range rss {
		want := int32(0)
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		parts = append(parts, fmt.Sprintf("%s (%d/%d replicas created)", rs.Name, rs.Status.Replicas, want))
	}
	return strings.Join(parts, ", ")
}

func describeReplicaSet(ctx context.Context, d *Describer, w *prefixWriter, obj *dynamic.Unstructured) error {
	var rs appsv1.ReplicaSet
	if err := convert(obj, &rs); err != nil {
		return err
	}
	w.write(level0, "Name:\t%s\n", rs.Name)
	w.write(level0, "Namespace:\t%s\n", rs.Namespace)
	w.write(level0, "Selector:\t%s\n", metav1.FormatLabelSelector(rs.Spec.Selector))
	w.writeLabels(level0, "Labels", rs.Labels)
	w.writeAnnotations(level0, "Annotations", rs.Annotations)
	if ref := metav1.GetControllerOf(&rs); ref != nil {
		w.write(level0, "Controlled By:\t%s/%s\n", ref.Kind, ref.Name)
	}
	want := int32(1)
	if rs.Spec.Replicas != nil {
		want = *rs.Spec.Replicas
	}
	w.write(level0, "Replicas:\t%d current / %d desired\n", rs.Status.Replicas, want)
	running, waiting, succeeded, failed := d.podPhases(ctx, &rs)
	w.write(level0, "Pods Status:\t%d Running / %d Waiting / %d Succeeded / %d Failed\n", running, waiting, succeeded, failed)
	describePodTemplate(w, &rs.Spec.Template)
	if len(rs.Status.Conditions) > 0 {
		w.write(level0, "Conditions:\n  Type\tStatus\tReason\n")
		w.write(level1, "----\t------\t------\n")
		for _, c := range rs.Status.Conditions {
			w.write(level1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
		}
	}
	d.writeEvents(ctx, w, rs.ObjectMeta)
	return nil
}

// podPhases counts the phases of the pods a replica set controls.
func (d *Describer) podPhases(ctx context.Context, rs *appsv1.ReplicaSet) (running, waiting, succeeded, failed int) {
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return
	}
	var pods corev1.PodList
	if err := d.list(ctx, podsGVR, rs.Namespace, metav1.ListOptions{LabelSelector: sel.String()}, &pods); err != nil {
		return
	}
	for _, p := range pods.Items {
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != rs.UID {
			continue
		}
		switch p.Status.Phase {
		case corev1.PodRunning:
			running++
		case corev1.PodPending:
			waiting++
		case corev1.PodSucceeded:
			succeeded++
		case corev1.PodFailed:
			failed++
		}
	}
	return
}

// PodTemplate writes the "Pod Template:" section of t alone, its tabs not
// aligned, as rollout history and undo print one revision.
func PodTemplate(out io.Writer, t *corev1.PodTemplateSpec) {
	describePodTemplate(newRawPrefixWriter(out), t)
}
