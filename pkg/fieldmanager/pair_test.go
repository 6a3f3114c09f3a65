package fieldmanager

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestUpdateWithoutEqualFieldsRecordsTheSame: an update that leaves the
// top-level fields equal in the live and new object out of its Compare
// records the same managedFields as one that compares the whole objects,
// at the main resource and at pods/status, for random pods whose new
// version takes each of metadata, spec and status from the live pod or
// from another random pod.
func TestUpdateWithoutEqualFieldsRecordsTheSame(t *testing.T) {
	c := newClock()
	main := podManagerFor(t, c)
	status, err := main.ForSubresource("status", fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels")))
	if err != nil {
		t.Fatal(err)
	}
	whole := map[*FieldManager]*FieldManager{}
	for _, f := range []*FieldManager{main, status} {
		w, err := New(f.opts)
		if err != nil {
			t.Fatal(err)
		}
		w.compareWhole = true
		whole[f] = w
	}
	pod := func(m map[string]any) runtime.Object {
		data, _ := json.Marshal(m)
		return typedFrom(t, string(data), &corev1.Pod{})()
	}
	r := rand.New(rand.NewPCG(3, 4))
	pruned := 0
	for range 500 {
		a, b := randomPod(r), randomPod(r)
		n := map[string]any{}
		for k, v := range a {
			n[k] = v
		}
		for _, k := range []string{"metadata", "spec", "status"} {
			if r.IntN(2) == 0 {
				continue
			}
			if v, ok := b[k]; ok {
				n[k] = v
			} else {
				delete(n, k)
			}
		}
		live, err := main.Update(nil, pod(a), "creator")
		if err != nil {
			continue
		}
		if _, _, ok := withoutEqualFields(live, pod(n)); !ok {
			t.Fatal("a Go-typed pair was not pruned")
		}
		pruned++
		for f, w := range whole {
			got, errA := f.Update(live.DeepCopyObject(), pod(n), "updater")
			want, errB := w.Update(live.DeepCopyObject(), pod(n), "updater")
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s: error %v, comparing whole objects %v", f.Subresource(), errA, errB)
			}
			if errA != nil {
				continue
			}
			ga, _ := json.Marshal(managedFields(t, got))
			wa, _ := json.Marshal(managedFields(t, want))
			if string(ga) != string(wa) {
				in, _ := json.Marshal(n)
				t.Fatalf("%q: update to %s recorded\n%s\ncomparing whole objects\n%s", f.Subresource(), in, ga, wa)
			}
		}
	}
	if pruned < 100 {
		t.Fatalf("only %d of 500 random pods were compared", pruned)
	}
}

// BenchmarkUpdatePodStatus is the kubelet's write of a started pod's
// status at pods/status (phase, podIP, conditions, a container status) on
// the pod of BenchmarkUpdatePod: with the equal metadata and spec left out
// of the Compare, and comparing the whole objects as before.
func BenchmarkUpdatePodStatus(b *testing.B) {
	for _, whole := range []bool{false, true} {
		name := "equal-fields-left-out"
		if whole {
			name = "whole-objects"
		}
		b.Run(name, func(b *testing.B) {
			main := podManager(b)
			f, err := main.ForSubresource("status", fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels")))
			if err != nil {
				b.Fatal(err)
			}
			f.compareWhole = whole
			pending := benchObject(b, benchPod, &corev1.Pod{})
			pending.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: pending.Status.Conditions[1:]}
			out, err := main.Update(nil, pending, "kube-controller-manager")
			if err != nil {
				b.Fatal(err)
			}
			live := out.(*corev1.Pod)
			next := live.DeepCopy()
			next.Status = *benchObject(b, benchPod, &corev1.Pod{}).Status.DeepCopy()
			started := true
			next.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: "nginx:1.27", Ready: true, Started: &started,
				ContainerID: "containerd://0123456789abcdef", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				for range rounds {
					next.ManagedFields = nil
					if _, err := f.Update(live, next, "kubelet"); err != nil {
						b.Fatal(err)
					}
				}
			}
			us := perOp(b, start, rounds)
			b.ReportMetric(us, "cpu-µs/op")
			b.Logf("figure: managedFields on a pod status write (%s) %.1f µs CPU", name, us)
		})
	}
}
