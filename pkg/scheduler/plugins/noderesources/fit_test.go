package noderesources

import (
	"context"
	"slices"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func container(kv ...string) corev1.Container {
	return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: rl(kv...)}}
}

func pod(containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: containers}}
}

func node(alloc corev1.ResourceList, pods ...*corev1.Pod) *framework.NodeInfo {
	n := framework.NewNodeInfo()
	n.SetNode(&corev1.Node{Status: corev1.NodeStatus{Allocatable: alloc}})
	for _, p := range pods {
		pi, _ := framework.NewPodInfo(p)
		n.AddPodInfo(pi)
	}
	return n
}

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		cpu     int64
		memory  int64
		nzCPU   int64
		nzMemMi int64
	}{
		{"sum of containers", pod(container("cpu", "100m", "memory", "1Mi"), container("cpu", "200m")), 300, 1 << 20, 300, 201},
		{"init container larger", &corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu", "2")},
			Containers:     []corev1.Container{container("cpu", "500m"), container("cpu", "500m")},
		}}, 2000, 0, 2000, 400},
		{"init container smaller", &corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{container("cpu", "100m")},
			Containers:     []corev1.Container{container("cpu", "500m"), container("cpu", "500m")},
		}}, 1000, 0, 1000, 400},
		{"sidecar adds to containers and later init steps", &corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{
				{Name: "side", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}},
				container("cpu", "1500m"),
			},
			Containers: []corev1.Container{container("cpu", "500m")},
		}}, 2500, 0, 2500, 400},
		{"overhead", &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("cpu", "1")}, Overhead: rl("cpu", "250m")}}, 1250, 0, 1250, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, nz := framework.PodRequests(tc.pod)
			if r.MilliCPU != tc.cpu || r.Memory != tc.memory {
				t.Errorf("requests = %dm cpu %d memory, want %dm %d", r.MilliCPU, r.Memory, tc.cpu, tc.memory)
			}
			if nz.MilliCPU != tc.nzCPU || nz.Memory != tc.nzMemMi<<20 {
				t.Errorf("non-zero requests = %dm cpu %dMi, want %dm %dMi", nz.MilliCPU, nz.Memory>>20, tc.nzCPU, tc.nzMemMi)
			}
		})
	}
}

func TestFitFilter(t *testing.T) {
	alloc := rl("cpu", "2", "memory", "2Gi", "pods", "2", "example.com/gpu", "1")
	busy := pod(container("cpu", "1500m", "memory", "1Gi"))
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		node    *framework.NodeInfo
		code    framework.Code
		reasons []string
	}{
		{"fits", pod(container("cpu", "500m", "memory", "1Gi")), node(alloc, busy), framework.Success, nil},
		{"insufficient cpu", pod(container("cpu", "600m")), node(alloc, busy), framework.Unschedulable, []string{"Insufficient cpu"}},
		{"insufficient cpu and memory", pod(container("cpu", "1", "memory", "1500Mi")), node(alloc, busy), framework.Unschedulable, []string{"Insufficient cpu", "Insufficient memory"}},
		{"more than the node has", pod(container("cpu", "3")), node(alloc), framework.UnschedulableAndUnresolvable, []string{"Insufficient cpu"}},
		{"too many pods", pod(container()), node(alloc, pod(), pod()), framework.Unschedulable, []string{ErrReasonTooManyPods}},
		{"extended resource", pod(container("example.com/gpu", "2")), node(alloc), framework.UnschedulableAndUnresolvable, []string{"Insufficient example.com/gpu"}},
		{"extended resource fits", pod(container("example.com/gpu", "1")), node(alloc), framework.Success, nil},
		{"zero requests fit anywhere with room", pod(container()), node(rl("pods", "1")), framework.Success, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := NewFit(FitArgs{})(nil)
			f := p.(*Fit)
			state := framework.NewCycleState()
			f.PreFilter(context.Background(), state, tc.pod)
			st := f.Filter(context.Background(), state, tc.pod, tc.node)
			if st.Code() != tc.code || !slices.Equal(st.Reasons(), tc.reasons) {
				t.Errorf("status = %v, want %v %q", st, tc.code, tc.reasons)
			}
		})
	}
}

func TestScoring(t *testing.T) {
	alloc := rl("cpu", "4", "memory", "4Gi")
	n := node(alloc, pod(container("cpu", "1", "memory", "3Gi")))
	p := pod(container("cpu", "1", "memory", "0"))
	for _, tc := range []struct {
		strategy ScoringStrategy
		want     int64
	}{
		// cpu: 2/4 used → least 50, most 50; memory: 3Gi/4Gi → least 25, most 75.
		{LeastAllocated, 37},
		{MostAllocated, 62},
	} {
		pl, err := NewFit(FitArgs{ScoringStrategy: tc.strategy})(nil)
		if err != nil {
			t.Fatal(err)
		}
		state := framework.NewCycleState()
		pl.(*Fit).PreScore(context.Background(), state, p, nil)
		got, st := pl.(*Fit).Score(context.Background(), state, p, n)
		if !st.IsSuccess() || got != tc.want {
			t.Errorf("%s: score %d (%v), want %d", tc.strategy, got, st, tc.want)
		}
	}
	if _, err := NewFit(FitArgs{ScoringStrategy: "Random"})(nil); err == nil {
		t.Error("an unknown strategy was accepted")
	}
	b, _ := NewBalancedAllocation(nil)
	// cpu 0.5, memory 0.75: std 0.125 → 87.
	got, _ := b.(*BalancedAllocation).Score(context.Background(), framework.NewCycleState(), p, n)
	if got != 87 {
		t.Errorf("balanced score = %d, want 87", got)
	}
}
