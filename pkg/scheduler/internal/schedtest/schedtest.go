// Package schedtest builds what scheduler plugin tests need: a framework
// handle over a snapshot of nodes and pods, and terse object builders.
package schedtest

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/internal/cache"
)

type nopBinder struct{}

func (nopBinder) Name() string { return "NopBinder" }
func (nopBinder) Bind(context.Context, *framework.CycleState, *corev1.Pod, string) *framework.Status {
	return nil
}

// NewFramework returns a framework over a snapshot of nodes and pods with
// the given plugins (and a binder that does nothing).
func NewFramework(nodes []*corev1.Node, pods []*corev1.Pod, nsLabels map[string]labels.Set, specs ...framework.PluginSpec) (*framework.Framework, error) {
	specs = append(specs, framework.PluginSpec{Name: "NopBinder", New: func(framework.Handle) (framework.Plugin, error) { return nopBinder{}, nil }})
	return framework.NewFramework(framework.Config{
		ProfileName:     "test",
		Plugins:         specs,
		Snapshot:        cache.NewSnapshot(pods, nodes),
		NamespaceLabels: func(ns string) labels.Set { return nsLabels[ns] },
	})
}

// Node returns a node with labels given as key, value pairs and room for
// 110 pods.
func Node(name string, kv ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	n.Status.Allocatable = corev1.ResourceList{}
	return n
}

// Pod returns a pod in namespace "default" on node (may be empty) with
// labels given as key, value pairs.
func Pod(name, node string, kv ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(fmt.Sprint("uid-", name)), Labels: map[string]string{}}}
	p.Spec.NodeName = node
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	return p
}

// Selector returns a label selector matching key=value.
func Selector(key, value string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}
}

// FilterAll runs PreFilter then Filter on every node and returns each
// node's status by name (nil for fits).
func FilterAll(ctx context.Context, f *framework.Framework, pod *corev1.Pod) (map[string]*framework.Status, error) {
	state := framework.NewCycleState()
	_, st := f.RunPreFilterPlugins(ctx, state, pod)
	out := map[string]*framework.Status{}
	if !st.IsSuccess() {
		return nil, fmt.Errorf("prefilter: %v", st)
	}
	for _, n := range f.SnapshotSharedLister().List() {
		out[n.Name()] = f.RunFilterPlugins(ctx, state, pod, n)
	}
	return out, nil
}

// ScoreAll runs PreScore and Score on every node.
func ScoreAll(ctx context.Context, f *framework.Framework, pod *corev1.Pod) (map[string]int64, error) {
	state := framework.NewCycleState()
	nodes := f.SnapshotSharedLister().List()
	if st := f.RunPreScorePlugins(ctx, state, pod, nodes); !st.IsSuccess() {
		return nil, fmt.Errorf("prescore: %v", st)
	}
	scores, st := f.RunScorePlugins(ctx, state, pod, nodes)
	if !st.IsSuccess() {
		return nil, fmt.Errorf("score: %v", st)
	}
	out := map[string]int64{}
	for _, s := range scores {
		out[s.Name] = s.Score
	}
	return out, nil
}
