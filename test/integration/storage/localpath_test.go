package storage

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/localpath"
	"kubecore.io/kubecore/pkg/scheduler"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

// TestDefaultLocalPathClass: the API server starts with the local-path
// class marked default; a claim naming no class gets it at admission and
// is provisioned once its pod is scheduled; the class refuses expansion
// and its volumes go with their claims. A local-path class re-created
// with reclaimPolicy Retain and allowVolumeExpansion keeps the volume of
// a deleted claim (Released) and grows a volume whose claim asks for more.
func TestDefaultLocalPathClass(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "lp")
	ctx, cancel := context.WithCancel(context.Background())
	node := ns + "-node"
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), node, metav1.DeleteOptions{}) })
	agent, err := fakenode.Start(ctx, cs, fakenode.Options{Nodes: []string{node}, LeaseRenewInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	factory := informers.NewSharedInformerFactory(cs)
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait(); factory.Shutdown() })
	prov, err := localpath.New(cs, factory, localpath.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := scheduler.New(ctx, scheduler.Config{Client: cs, Informers: factory, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	for _, run := range []func(context.Context) error{func(ctx context.Context) error { return prov.Run(ctx, 2) }, sched.Run} {
		wg.Go(func() {
			if err := run(ctx); err != nil {
				t.Error(err)
			}
		})
	}

	sc, err := cs.StorageV1().StorageClasses().Get(ctx, localpath.ClassName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Annotations[storagev1.IsDefaultStorageClassAnnotation] != "true" || sc.Provisioner != localpath.ProvisionerName ||
		*sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer || *sc.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		t.Fatalf("bootstrap class: %+v", sc)
	}

	// A claim of no class: the default class, a volume with reclaim
	// policy Delete, no expansion, deleted with its claim.
	claim := useClaim(t, cs, ns, "a", nil)
	if claim.Spec.StorageClassName == nil || *claim.Spec.StorageClassName != localpath.ClassName {
		t.Fatalf("claim a has class %v, want the default %s", claim.Spec.StorageClassName, localpath.ClassName)
	}
	pv := waitBound(t, cs, ns, "a")
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Spec.StorageClassName != localpath.ClassName {
		t.Fatalf("volume %s: reclaim %s class %s", pv.Name, pv.Spec.PersistentVolumeReclaimPolicy, pv.Spec.StorageClassName)
	}
	err = resize(ctx, cs, ns, "a", "2Gi")
	if !apierrors.IsForbidden(err) || err.Error() != `persistentvolumeclaims "a" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize` {
		t.Fatalf("growing a claim of a class without expansion: %v, want Forbidden", err)
	}
	deletePodAndClaim(t, cs, ns, "a")
	framework.WaitFor(t, 30*time.Second, "the volume of claim a to be deleted", func() (bool, error) {
		_, err := cs.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})

	// The class re-created with Retain and expansion.
	if err := cs.StorageV1().StorageClasses().Delete(ctx, localpath.ClassName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	retain, expand, wait := corev1.PersistentVolumeReclaimRetain, true, storagev1.VolumeBindingWaitForFirstConsumer
	sc = &storagev1.StorageClass{
		ObjectMeta:           metav1.ObjectMeta{Name: localpath.ClassName, Annotations: map[string]string{storagev1.IsDefaultStorageClassAnnotation: "true"}},
		Provisioner:          localpath.ProvisionerName,
		ReclaimPolicy:        &retain,
		AllowVolumeExpansion: &expand,
		VolumeBindingMode:    &wait,
	}
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	class := localpath.ClassName
	useClaim(t, cs, ns, "b", &class)
	pv = waitBound(t, cs, ns, "b")
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		t.Fatalf("volume %s: reclaim %s, want Retain", pv.Name, pv.Spec.PersistentVolumeReclaimPolicy)
	}
	if err := resize(ctx, cs, ns, "b", "2Gi"); err != nil {
		t.Fatalf("growing a claim of a class allowing expansion: %v", err)
	}
	framework.WaitFor(t, 30*time.Second, "volume and claim b to grow to 2Gi", func() (bool, error) {
		v, err := cs.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "b", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return v.Spec.Capacity.Storage().String() == "2Gi" && c.Status.Capacity.Storage().String() == "2Gi", nil
	})
	deletePodAndClaim(t, cs, ns, "b")
	framework.WaitFor(t, 30*time.Second, "the retained volume of claim b to be Released", func() (bool, error) {
		v, err := cs.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return v.Status.Phase == corev1.VolumeReleased, nil
	})
}

// useClaim creates a 1Gi claim of class (nil for none) and a pod using it.
func useClaim(t *testing.T, cs *typed.Clientset, ns, name string, class *string) *corev1.PersistentVolumeClaim {
	t.Helper()
	ctx := context.Background()
	claim, err := cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "3600"}}},
			Volumes:    []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// waitBound waits for claim name to be Bound and returns its volume.
func waitBound(t *testing.T, cs *typed.Clientset, ns, name string) *corev1.PersistentVolume {
	t.Helper()
	var claim *corev1.PersistentVolumeClaim
	framework.WaitFor(t, 30*time.Second, "claim "+name+" to be bound", func() (bool, error) {
		var err error
		claim, err = cs.CoreV1().PersistentVolumeClaims(ns).Get(context.Background(), name, metav1.GetOptions{})
		return err == nil && claim.Status.Phase == corev1.ClaimBound, err
	})
	pv, err := cs.CoreV1().PersistentVolumes().Get(context.Background(), claim.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pv
}

func resize(ctx context.Context, cs *typed.Clientset, ns, name, size string) error {
	c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
	_, err = cs.CoreV1().PersistentVolumeClaims(ns).Update(ctx, c, metav1.UpdateOptions{})
	return err
}

func deletePodAndClaim(t *testing.T, cs *typed.Clientset, ns, name string) {
	t.Helper()
	ctx := context.Background()
	if err := cs.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForPodGone(ctx, t, cs, ns, name, 30*time.Second)
	if err := cs.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}
