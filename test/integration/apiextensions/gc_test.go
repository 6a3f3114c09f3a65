package apiextensions

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/discovery"
	"kubecore.io/client/metadata"

	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controllermanager"
)

// TestGarbageCollection checks that the garbage collector, which finds
// resources through discovery, collects custom objects owned by a
// Deployment and a Deployment owned by a custom object.
func TestGarbageCollection(t *testing.T) {
	s := startServer(t)
	const group = "gc.example.com"
	md, err := metadata.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := garbagecollector.New(controllermanager.Clients{MetadataClient: md, DiscoveryClient: disco}, garbagecollector.Options{DiscoveryPeriod: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx, 2) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	// The resource appears after the collector started: it finds it
	// through discovery.
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "crd-gc")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/crontabs"
	deployments := s.Clientset(t).AppsV1().Deployments(ns)
	newDeployment := func(name string, owners ...metav1.OwnerReference) *appsv1.Deployment {
		labels := map[string]string{"app": name}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
				},
			},
		}
		got, err := deployments.Create(background, d, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	truth := true

	// A CronTab owned by a Deployment goes with it.
	owner := newDeployment("owner")
	dependent := crontab(group, "v1", "dependent", map[string]any{"cronSpec": "* * * * *"})
	dependent["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "name": owner.Name, "uid": string(owner.UID), "blockOwnerDeletion": true,
	}}
	s.expect(http.StatusCreated, http.MethodPost, base, dependent)

	// A Deployment owned by a CronTab goes with it.
	ct := s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "owner", map[string]any{"cronSpec": "* * * * *"})).object(t)
	ownedDeployment := newDeployment("owned", metav1.OwnerReference{
		APIVersion: group + "/v1", Kind: "CronTab", Name: "owner",
		UID: uidOf(ct), Controller: &truth,
	})

	if err := deployments.Delete(background, owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the CronTab owned by the Deployment collected", func() (bool, string) {
		r := s.do(http.MethodGet, base+"/dependent", nil)
		return r.code == http.StatusNotFound, fmt.Sprintf("%d", r.code)
	})
	s.expect(http.StatusOK, http.MethodDelete, base+"/owner", nil)
	eventually(t, "the Deployment owned by the CronTab collected", func() (bool, string) {
		_, err := deployments.Get(background, ownedDeployment.Name, metav1.GetOptions{})
		return err != nil, fmt.Sprint(err)
	})

	// Foreground deletion of a CronTab waits for its dependents.
	ct = s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "fg-owner", map[string]any{"cronSpec": "* * * * *"})).object(t)
	newDeployment("fg-owned", metav1.OwnerReference{
		APIVersion: group + "/v1", Kind: "CronTab", Name: "fg-owner", UID: uidOf(ct), BlockOwnerDeletion: &truth,
	})
	r := s.expect(http.StatusOK, http.MethodDelete, base+"/fg-owner", `{"propagationPolicy":"Foreground"}`)
	if fins := unstructured.NestedField(r.object(t), "metadata", "finalizers"); fmt.Sprint(fins) != "[foregroundDeletion]" {
		t.Errorf("foreground delete left finalizers %v", fins)
	}
	eventually(t, "foreground deletion of the CronTab finished", func() (bool, string) {
		r := s.do(http.MethodGet, base+"/fg-owner", nil)
		_, err := deployments.Get(background, "fg-owned", metav1.GetOptions{})
		return r.code == http.StatusNotFound && err != nil, fmt.Sprintf("%d %v", r.code, err)
	})
	s.deleteCRD("crontabs." + group)
}

func uidOf(obj map[string]any) types.UID {
	return types.UID(unstructured.NestedString(obj, "metadata", "uid"))
}
