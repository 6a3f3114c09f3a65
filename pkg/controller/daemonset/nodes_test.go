package daemonset

import (
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

func testDaemonSet(mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "ds-uid", Generation: 2},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "agent:1"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero}},
		},
	}
	for _, m := range mutate {
		m(ds)
	}
	return ds
}

func testNode(name string, mutate ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
	for _, m := range mutate {
		m(n)
	}
	return n
}

func taint(key string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect}) }
}

func TestDecide(t *testing.T) {
	withSelector := func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} }
	ssd := func(n *corev1.Node) { n.Labels["disk"] = "ssd" }
	for _, tc := range []struct {
		name      string
		ds        []func(*appsv1.DaemonSet)
		node      []func(*corev1.Node)
		run, keep bool
	}{
		{"plain node", nil, nil, true, true},
		{"node selector matches", []func(*appsv1.DaemonSet){withSelector}, []func(*corev1.Node){ssd}, true, true},
		{"node selector misses", []func(*appsv1.DaemonSet){withSelector}, nil, false, false},
		{"required affinity misses", []func(*appsv1.DaemonSet){func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}},
			}}}
		}}, nil, false, false},
		{"required affinity by name matches", []func(*appsv1.DaemonSet){func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = pinToNode(nil, "n1")
		}}, nil, true, true},
		{"template nodeName elsewhere", []func(*appsv1.DaemonSet){func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "other" }}, nil, false, false},
		{"NoSchedule taint: no new pod, the old stays", nil, []func(*corev1.Node){taint("dedicated", corev1.TaintEffectNoSchedule)}, false, true},
		{"NoExecute taint: the pod goes", nil, []func(*corev1.Node){taint("dedicated", corev1.TaintEffectNoExecute)}, false, false},
		{"PreferNoSchedule taint is ignored", nil, []func(*corev1.Node){taint("dedicated", corev1.TaintEffectPreferNoSchedule)}, true, true},
		{"tolerated taint", []func(*appsv1.DaemonSet){func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		}}, []func(*corev1.Node){taint("dedicated", corev1.TaintEffectNoExecute)}, true, true},
		{"cordoned node", nil, []func(*corev1.Node){func(n *corev1.Node) { n.Spec.Unschedulable = true }, taint(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)}, true, true},
		{"not-ready and unreachable", nil, []func(*corev1.Node){taint(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute), taint(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)}, true, true},
		{"resource pressure", nil, []func(*corev1.Node){taint(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule), taint(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule), taint(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)}, true, true},
		{"network unavailable, pod network", nil, []func(*corev1.Node){taint(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)}, false, true},
		{"network unavailable, host network", []func(*appsv1.DaemonSet){func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }},
			[]func(*corev1.Node){taint(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)}, true, true},
		{"node being deleted", nil, []func(*corev1.Node){func(n *corev1.Node) { n.DeletionTimestamp = &metav1.Time{Time: time.Now()} }}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := newPlacement(testDaemonSet(tc.ds...))
			if err != nil {
				t.Fatal(err)
			}
			run, keep := p.decide(testNode("n1", tc.node...))
			if run != tc.run || keep != tc.keep {
				t.Errorf("run %v keep %v, want %v %v", run, keep, tc.run, tc.keep)
			}
		})
	}
}

func TestAddDaemonTolerations(t *testing.T) {
	seconds := int64(300)
	spec := &corev1.PodSpec{Tolerations: []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds},
		{Key: "mine", Operator: corev1.TolerationOpExists},
	}}
	addDaemonTolerations(spec)
	if len(spec.Tolerations) != 7 {
		t.Fatalf("tolerations %+v", spec.Tolerations)
	}
	if spec.Tolerations[0].TolerationSeconds != nil || spec.Tolerations[1].Key != "mine" {
		t.Errorf("not-ready toleration keeps its seconds or the template's own is lost: %+v", spec.Tolerations[:2])
	}
	addDaemonTolerations(spec)
	if len(spec.Tolerations) != 7 {
		t.Errorf("adding twice gave %d tolerations", len(spec.Tolerations))
	}
}

func TestPinToNodeAndTarget(t *testing.T) {
	a := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: nodeNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{"old"}}}}},
	}}, PodAntiAffinity: &corev1.PodAntiAffinity{}}
	got := pinToNode(a, "n2")
	terms := got.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Values[0] != "n2" || got.PodAntiAffinity == nil {
		t.Fatalf("pinned affinity %+v", got)
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Affinity: pinToNode(nil, "n3")}}
	if n, ok := targetNode(pod); !ok || n != "n3" {
		t.Errorf("unbound pod's target %q %v", n, ok)
	}
	pod.Spec.NodeName = "n4"
	if n, _ := targetNode(pod); n != "n4" {
		t.Errorf("bound pod's target %q", n)
	}
	if _, ok := targetNode(&corev1.Pod{}); ok {
		t.Error("a pod pinned nowhere has no target")
	}
}

func TestNewPod(t *testing.T) {
	ds := testDaemonSet()
	pod, err := newPod(ds, "n1", "abc")
	if err != nil {
		t.Fatal(err)
	}
	if pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != "abc" || pod.Labels[TemplateGenerationLabel] != "2" || pod.Labels["app"] != "agent" {
		t.Errorf("labels %v", pod.Labels)
	}
	if n, ok := targetNode(pod); !ok || n != "n1" || pod.Spec.NodeName != "" || pod.GenerateName != "agent-" || !metav1.IsControlledBy(pod, ds) {
		t.Errorf("pod %+v", pod)
	}
	if len(ds.Spec.Template.Spec.Tolerations) != 0 || ds.Spec.Template.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != "" {
		t.Error("newPod changed the template")
	}
	ds.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "7"}
	if pod, _ := newPod(ds, "n1", "abc"); pod.Labels[TemplateGenerationLabel] != "7" {
		t.Errorf("template generation from the annotation: %v", pod.Labels)
	}
}
