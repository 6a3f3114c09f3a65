package statefulset

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/localpath"
	"kubecore.io/kubecore/pkg/controller/statefulset"
	"kubecore.io/kubecore/pkg/scheduler"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

// TestLocalPathVolumes runs a StatefulSet with a volumeClaimTemplate of
// no class through the scheduler and the local-path provisioner: each
// claim waits for its first pod, gets a hostPath volume on that pod's node
// (nodeAffinity to it, reclaim policy Delete) and is bound; a replacement
// pod fits only that node; deleting the claim deletes the volume.
func TestLocalPathVolumes(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "lp")
	ctx, cancel := context.WithCancel(context.Background())
	nodes := []string{ns + "-a", ns + "-b"}
	t.Cleanup(func() {
		for _, n := range nodes {
			_ = cs.CoreV1().Nodes().Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})
	agent, err := fakenode.Start(ctx, cs, fakenode.Options{Nodes: nodes, LeaseRenewInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	factory := informers.NewSharedInformerFactory(cs)
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait(); factory.Shutdown() })
	sets, err := statefulset.New(cs, factory, statefulset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prov, err := localpath.New(cs, factory, localpath.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := scheduler.New(ctx, scheduler.Config{Client: cs, Informers: factory, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	for _, run := range []func(context.Context) error{
		func(ctx context.Context) error { return sets.Run(ctx, 2) },
		func(ctx context.Context) error { return prov.Run(ctx, 2) },
		sched.Run,
	} {
		wg.Go(func() {
			if err := run(ctx); err != nil {
				t.Error(err)
			}
		})
	}

	set := newSet("web", 2, func(s *appsv1.StatefulSet) {
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		s.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: nodes}}}},
		}}}
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}},
			},
		}}
	})
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "2 ready pods", statusIs(cs, ns, "web", func(s appsv1.StatefulSetStatus, _ *appsv1.StatefulSet) bool {
		return s.ReadyReplicas == 2
	}))
	volumeNode := map[string]string{}
	for i := range 2 {
		pod, err := cs.CoreV1().Pods(ns).Get(ctx, fmt.Sprint("web-", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		claimName := fmt.Sprint("data-web-", i)
		claim, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claimName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if claim.Status.Phase != corev1.ClaimBound || claim.Spec.VolumeName != "pvc-"+string(claim.UID) ||
			claim.Annotations[localpath.AnnSelectedNode] != pod.Spec.NodeName {
			t.Fatalf("claim %s: phase %s volume %q selected node %q; pod on %s", claimName, claim.Status.Phase, claim.Spec.VolumeName, claim.Annotations[localpath.AnnSelectedNode], pod.Spec.NodeName)
		}
		pv, err := cs.CoreV1().PersistentVolumes().Get(ctx, claim.Spec.VolumeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantPath := fmt.Sprintf("%s/%s_%s_%s", dir, ns, claimName, pv.Name)
		if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != wantPath || pv.Status.Phase != corev1.VolumeBound ||
			pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != claim.UID ||
			pv.Spec.Capacity.Storage().String() != "2Gi" || pv.Spec.StorageClassName != localpath.ClassName {
			t.Fatalf("volume %s: %+v status %+v", pv.Name, pv.Spec, pv.Status)
		}
		terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
		if len(terms) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Values[0] != pod.Spec.NodeName {
			t.Fatalf("volume %s node affinity %+v, want node %s", pv.Name, terms, pod.Spec.NodeName)
		}
		volumeNode[pod.Name] = pod.Spec.NodeName
	}

	// The node of web-0's volume is cordoned: the replacement of web-0
	// fits nowhere, for the volume keeps it off the other node.
	setUnschedulable(t, cs, volumeNode["web-0"], true)
	old, err := cs.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the new web-0 to be unschedulable for its volume", func() (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{})
		if err != nil || p.UID == old.UID {
			return false, nil
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse &&
				strings.Contains(c.Message, "1 node(s) had volume node affinity conflict") && strings.Contains(c.Message, "1 node(s) were unschedulable") {
				return true, nil
			}
		}
		return false, nil
	})
	setUnschedulable(t, cs, volumeNode["web-0"], false)
	framework.WaitFor(t, 30*time.Second, "the new web-0 on its volume's node", func() (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{})
		return err == nil && p.UID != old.UID && p.Spec.NodeName == volumeNode["web-0"], nil
	})

	// Deleting the StatefulSet keeps the claims (retention Retain);
	// deleting a claim deletes its volume.
	if err := cs.AppsV1().StatefulSets(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	claim, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, "data-web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the volume of the deleted claim to be deleted", func() (bool, error) {
		_, err := cs.CoreV1().PersistentVolumes().Get(ctx, claim.Spec.VolumeName, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if _, err := cs.CoreV1().PersistentVolumes().Get(ctx, "pvc-"+string(mustClaim(t, cs, ns, "data-web-0").UID), metav1.GetOptions{}); err != nil {
		t.Errorf("volume of the kept claim: %v", err)
	}
}

func mustClaim(t *testing.T, cs *typed.Clientset, ns, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func setUnschedulable(t *testing.T, cs *typed.Clientset, node string, v bool) {
	t.Helper()
	n, err := cs.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Spec.Unschedulable = v
	if _, err := cs.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
