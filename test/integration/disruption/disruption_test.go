// Package disruption tests the disruption controller and the eviction
// check of the API server together: PodDisruptionBudget status converges
// for the pods of Deployments, StatefulSets and custom resources with a
// scale subresource, and evictions are allowed up to the budget, then
// refused with 429 TooManyRequests.
package disruption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/dynamic"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/disruption"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

type env struct {
	ctx    context.Context
	client *typed.Clientset
	rc     *rest.Config
	ns     string
}

// setup starts an API server, the fake node agent (pods Ready at once on
// nodes n1..n3) and a controller-manager with the workload controllers
// and the disruption controller.
func setup(t *testing.T) *env {
	t.Helper()
	return setupWith(t, "deployment", "replicaset", "statefulset", "disruption")
}

// setupWith is setup running the named controllers only.
func setupWith(t *testing.T, controllers ...string) *env {
	t.Helper()
	rc, _ := fakenode.StartAPIServer(t)
	client, err := typed.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	agent, err := fakenode.Start(ctx, client, fakenode.Options{Nodes: []string{"n1", "n2", "n3"}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	e := newEnv(t, ctx, client, rc)
	if len(controllers) == 0 {
		return e
	}
	mctx, mcancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		errc <- controllermanager.Config{RESTConfig: rc, Controllers: controllers}.Run(mctx)
	}()
	t.Cleanup(func() {
		mcancel()
		if err := <-errc; err != nil {
			t.Errorf("controller-manager: %v", err)
		}
	})
	return e
}

func newEnv(t *testing.T, ctx context.Context, client *typed.Clientset, rc *rest.Config) *env {
	t.Helper()
	ns := "pdb"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &env{ctx: ctx, client: client, rc: rc, ns: ns}
}

func ptr[T any](v T) *T { return &v }

func intOrStr(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

func template(app string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr(int64(0)), Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
}

func (e *env) createPDB(t *testing.T, name, app string, spec func(*policyv1.PodDisruptionBudgetSpec)) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	spec(&pdb.Spec)
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Create(e.ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// want is the status a budget converges to.
type want struct {
	healthy, desired, expected, allowed int32
}

func (e *env) waitStatus(t *testing.T, name string, w want) *policyv1.PodDisruptionBudget {
	t.Helper()
	var pdb *policyv1.PodDisruptionBudget
	framework.WaitFor(t, 60*time.Second, fmt.Sprintf("budget %s to show %+v", name, w), func() (bool, error) {
		var err error
		pdb, err = e.client.PolicyV1().PodDisruptionBudgets(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := pdb.Status
		got := want{st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods, st.DisruptionsAllowed}
		return st.ObservedGeneration == pdb.Generation && got == w, fmt.Errorf("status %+v", st)
	})
	cond := metav1.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	reason, status := policyv1.InsufficientPodsReason, metav1.ConditionFalse
	if w.allowed > 0 {
		reason, status = policyv1.SufficientPodsReason, metav1.ConditionTrue
	}
	if cond == nil || cond.Reason != reason || cond.Status != status {
		t.Fatalf("condition %+v, want %s %s", cond, status, reason)
	}
	return pdb
}

func (e *env) runningPods(t *testing.T, app string) []corev1.Pod {
	t.Helper()
	list, err := e.client.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"app": app}).String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			out = append(out, p)
		}
	}
	return out
}

func (e *env) evict(name string, dryRun bool) error {
	// Grace 0: the pods of the ghost node have no kubelet to finish
	// their deletion.
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name}, DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}}
	if dryRun {
		ev.DeleteOptions.DryRun = []string{metav1.DryRunAll}
	}
	return e.client.CoreV1().Pods(e.ns).Evict(e.ctx, ev)
}

// wantRefused checks err is Kubernetes' refusal of an eviction the budget
// does not allow: 429 TooManyRequests with its message and a
// DisruptionBudget cause containing cause.
func wantRefused(t *testing.T, err error, cause string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != 429 || se.ErrStatus.Reason != metav1.StatusReasonTooManyRequests {
		t.Fatalf("eviction: got %v, want 429 TooManyRequests", err)
	}
	if se.ErrStatus.Message != "Cannot evict pod as it would violate the pod's disruption budget." {
		t.Errorf("message %q", se.ErrStatus.Message)
	}
	if d := se.ErrStatus.Details; d == nil || len(d.Causes) != 1 || d.Causes[0].Type != policyv1.DisruptionBudgetCause || !strings.Contains(d.Causes[0].Message, cause) {
		t.Errorf("details %+v, want a DisruptionBudget cause with %q", se.ErrStatus.Details, cause)
	}
}

func TestDeploymentBudget(t *testing.T) {
	e := setup(t)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(3)),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template("web")}}
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createPDB(t, "web", "web", func(s *policyv1.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOrStr("1") })
	e.waitStatus(t, "web", want{healthy: 3, desired: 2, expected: 3, allowed: 1})

	pods := e.runningPods(t, "web")
	// A dry run takes nothing.
	if err := e.evict(pods[0].Name, true); err != nil {
		t.Fatalf("dry-run eviction: %v", err)
	}
	pdb, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Get(e.ctx, "web", metav1.GetOptions{})
	if err != nil || pdb.Status.DisruptionsAllowed != 1 || len(pdb.Status.DisruptedPods) != 0 {
		t.Fatalf("after a dry run: %+v, %v", pdb.Status, err)
	}
	// The first eviction takes the one disruption; until the controller
	// sees the replacement Ready, a second one is refused.
	if err := e.evict(pods[0].Name, false); err != nil {
		t.Fatalf("first eviction: %v", err)
	}
	if err := e.evict(pods[1].Name, false); err != nil {
		// Refused: the controller has not counted the replacement yet.
		wantRefused(t, err, "The disruption budget web needs 2 healthy pods and has ")
	}
	// The replacement is Ready: one disruption is allowed again.
	e.waitStatus(t, "web", want{healthy: 3, desired: 2, expected: 3, allowed: 1})
	if err := e.evict(e.runningPods(t, "web")[0].Name, false); err != nil {
		t.Fatalf("eviction after the replacement: %v", err)
	}

	// Scaling down to 2 with maxUnavailable 50% (rounded up: 1).
	if _, err := e.client.AppsV1().Deployments(e.ns).Patch(e.ctx, "web", "application/merge-patch+json", []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Patch(e.ctx, "web", "application/merge-patch+json",
		[]byte(`{"spec":{"maxUnavailable":"50%"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, "web", want{healthy: 2, desired: 1, expected: 2, allowed: 1})
	// minAvailable 100%: nothing may go.
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Patch(e.ctx, "web", "application/merge-patch+json",
		[]byte(`{"spec":{"maxUnavailable":null,"minAvailable":"100%"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, "web", want{healthy: 2, desired: 2, expected: 2, allowed: 0})
	wantRefused(t, e.evict(e.runningPods(t, "web")[0].Name, false), "The disruption budget web needs 2 healthy pods and has 2 currently")
}

func TestStatefulSetBudget(t *testing.T) {
	e := setup(t)
	ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(4)), ServiceName: "db",
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: template("db")}}
	if _, err := e.client.AppsV1().StatefulSets(e.ns).Create(e.ctx, ss, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// 50% of 4, rounded up: 2 must stay.
	e.createPDB(t, "db", "db", func(s *policyv1.PodDisruptionBudgetSpec) { s.MinAvailable = intOrStr("50%") })
	e.waitStatus(t, "db", want{healthy: 4, desired: 2, expected: 4, allowed: 2})
	pods := e.runningPods(t, "db")
	for i := range 2 {
		if err := e.evict(pods[i].Name, false); err != nil {
			t.Fatalf("eviction %d: %v", i+1, err)
		}
	}
	// The StatefulSet makes the evicted pods again: the budget is whole.
	e.waitStatus(t, "db", want{healthy: 4, desired: 2, expected: 4, allowed: 2})
}

// ghostPod is a bare pod of app on a node no agent runs, made Running
// (Ready or not) through its status, owned by owner when set.
func (e *env) ghostPod(t *testing.T, name, app string, ready bool, owner *metav1.OwnerReference) {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{NodeName: "ghost", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	p, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if _, err := e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestUnhealthyPodEvictionPolicy(t *testing.T) {
	e := setup(t)
	for i, ready := range []bool{true, true, false, false} {
		e.ghostPod(t, fmt.Sprint("p", i), "app", ready, nil)
	}
	// 2 healthy of 3 wanted: the budget is not healthy.
	e.createPDB(t, "app", "app", func(s *policyv1.PodDisruptionBudgetSpec) { s.MinAvailable = intOrStr("3") })
	e.waitStatus(t, "app", want{healthy: 2, desired: 3, expected: 4, allowed: 0})
	// IfHealthyBudget (the default): an unhealthy pod is protected while
	// the budget is not met.
	wantRefused(t, e.evict("p2", false), "The disruption budget app needs 3 healthy pods and has 2 currently")
	// AlwaysAllow: an unhealthy pod may always go, without taking a
	// disruption; a healthy one is still protected.
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Patch(e.ctx, "app", "application/merge-patch+json",
		[]byte(`{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := e.evict("p2", false); err != nil {
		t.Fatalf("evicting an unhealthy pod under AlwaysAllow: %v", err)
	}
	wantRefused(t, e.evict("p0", false), "")
	// IfHealthyBudget with the budget met (2 healthy, 2 wanted): the
	// unhealthy pod may go though no disruption is allowed.
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Patch(e.ctx, "app", "application/merge-patch+json",
		[]byte(`{"spec":{"unhealthyPodEvictionPolicy":"IfHealthyBudget","minAvailable":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, "app", want{healthy: 2, desired: 2, expected: 3, allowed: 0})
	if err := e.evict("p3", false); err != nil {
		t.Fatalf("evicting an unhealthy pod of a healthy budget: %v", err)
	}
	wantRefused(t, e.evict("p1", false), "The disruption budget app needs 2 healthy pods and has 2 currently")
	pdb, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Get(e.ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pdb.Status.DisruptedPods) != 0 {
		t.Errorf("unhealthy evictions were recorded as disruptions: %v", pdb.Status.DisruptedPods)
	}
}

// TestScaleSubresource: the pods of a custom resource count its
// spec.replicas, read through its scale subresource; the pods of a
// controller without one make the budget fail with SyncFailed.
func TestScaleSubresource(t *testing.T) {
	e := setup(t)
	dyn, err := dynamic.NewForConfig(e.rc)
	if err != nil {
		t.Fatal(err)
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema":       map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				"subresources": map[string]any{"scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}},
		},
	}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crdGVR).Create(e.ctx, &dynamic.Unstructured{Object: crd}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace(e.ns)
	var w *dynamic.Unstructured
	framework.WaitFor(t, 30*time.Second, "a Widget to be created", func() (bool, error) {
		w, err = widgets.Create(e.ctx, &dynamic.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"replicas": 4}}}, metav1.CreateOptions{})
		return err == nil, err
	})
	uid := dynamic.NestedString(w.Object, "metadata", "uid")
	ref := &metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: types.UID(uid), Controller: ptr(true)}
	for i := range 3 {
		e.ghostPod(t, fmt.Sprint("w", i), "widget", true, ref)
	}
	e.createPDB(t, "widget", "widget", func(s *policyv1.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOrStr("25%") })
	// 4 expected (the Widget's replicas), 25% of 4 may be unavailable: 3
	// must be healthy, and 3 are.
	e.waitStatus(t, "widget", want{healthy: 3, desired: 3, expected: 4, allowed: 0})
	if _, err := widgets.Patch(e.ctx, "w", "application/merge-patch+json", []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, "widget", want{healthy: 3, desired: 2, expected: 3, allowed: 1})

	// A Job has no scale subresource.
	job := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "j"},
		"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "job"}},
			"spec": map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}}
	j, err := dyn.Resource(schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}).Namespace(e.ns).Create(e.ctx, &dynamic.Unstructured{Object: job}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jref := &metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: types.UID(dynamic.NestedString(j.Object, "metadata", "uid")), Controller: ptr(true)}
	e.ghostPod(t, "j0", "job", true, jref)
	e.createPDB(t, "job", "job", func(s *policyv1.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOrStr("1") })
	framework.WaitFor(t, 60*time.Second, "budget job to fail", func() (bool, error) {
		pdb, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Get(e.ctx, "job", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond := metav1.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
		b, _ := json.Marshal(pdb.Status)
		return cond != nil && cond.Reason == policyv1.SyncFailedReason && cond.Status == metav1.ConditionFalse &&
			cond.Message == "jobs.batch does not implement the scale subresource" && pdb.Status.DisruptionsAllowed == 0, errors.New(string(b))
	})
	// Its generation was never computed: evictions are refused as still
	// being processed.
	wantRefused(t, e.evict("j0", false), "The disruption budget job is still being processed by the server.")
}

// TestEvictionTakesDisruptions checks the API server's side alone, with
// no disruption controller to recompute the status: each eviction takes
// one of disruptionsAllowed and records the pod in disruptedPods, the
// last one sets DisruptionAllowed to InsufficientPods, and then evictions
// are refused; a status of an older generation refuses every eviction.
func TestEvictionTakesDisruptions(t *testing.T) {
	e := setupWith(t)
	for i := range 4 {
		e.ghostPod(t, fmt.Sprint("p", i), "app", true, nil)
	}
	e.createPDB(t, "app", "app", func(s *policyv1.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOrStr("2") })
	pdb, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Get(e.ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Generation != 1 {
		t.Fatalf("generation %d on create, want 1", pdb.Generation)
	}
	wantRefused(t, e.evict("p0", false), "The disruption budget app is still being processed by the server.")
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 2, CurrentHealthy: 4, DesiredHealthy: 2, ExpectedPods: 4,
		Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue, Reason: policyv1.SufficientPodsReason, LastTransitionTime: metav1.Now()}}}
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).UpdateStatus(e.ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := e.evict("p0", true); err != nil {
		t.Fatalf("dry-run eviction: %v", err)
	}
	for _, name := range []string{"p0", "p1"} {
		if err := e.evict(name, false); err != nil {
			t.Fatalf("evict %s: %v", name, err)
		}
	}
	pdb, err = e.client.PolicyV1().PodDisruptionBudgets(e.ns).Get(e.ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Status.DisruptionsAllowed != 0 || len(pdb.Status.DisruptedPods) != 2 {
		t.Fatalf("after two evictions: %+v, want no disruption left and p0, p1 disrupted", pdb.Status)
	}
	for _, name := range []string{"p0", "p1"} {
		if at, ok := pdb.Status.DisruptedPods[name]; !ok || time.Since(at.Time) > time.Minute {
			t.Errorf("disruptedPods %v: want %s at about now", pdb.Status.DisruptedPods, name)
		}
	}
	if cond := metav1.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition); cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != policyv1.InsufficientPodsReason {
		t.Errorf("condition %+v, want False InsufficientPods", cond)
	}
	wantRefused(t, e.evict("p2", false), "The disruption budget app needs 2 healthy pods and has 4 currently")
	// A new generation the controller has not seen: still being processed.
	if _, err := e.client.PolicyV1().PodDisruptionBudgets(e.ns).Patch(e.ctx, "app", "application/merge-patch+json",
		[]byte(`{"spec":{"maxUnavailable":3}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, e.evict("p2", false), "The disruption budget app is still being processed by the server.")
	// An evicted pod is marked DisruptionTarget before it is deleted (with
	// its grace period: no kubelet finishes it here).
	e.ghostPod(t, "q", "unbudgeted", true, nil)
	if err := e.client.CoreV1().Pods(e.ns).Evict(e.ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "q"}}); err != nil {
		t.Fatal(err)
	}
	q, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, "q", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var target *corev1.PodCondition
	for i := range q.Status.Conditions {
		if q.Status.Conditions[i].Type == corev1.DisruptionTarget {
			target = &q.Status.Conditions[i]
		}
	}
	if q.DeletionTimestamp == nil || target == nil || target.Status != corev1.ConditionTrue || target.Reason != "EvictionByEvictionAPI" || target.Message != "Eviction API: evicting" {
		t.Errorf("evicted pod: deletionTimestamp %v, DisruptionTarget %+v", q.DeletionTimestamp, target)
	}
	// Two budgets over one pod: 500, as Kubernetes answers.
	e.createPDB(t, "other", "app", func(s *policyv1.PodDisruptionBudgetSpec) { s.MinAvailable = intOrStr("1") })
	var se *apierrors.StatusError
	if err := e.evict("p3", false); !errors.As(err, &se) || se.ErrStatus.Code != 500 || !strings.Contains(se.ErrStatus.Message, "more than one PodDisruptionBudget") {
		t.Fatalf("eviction under two budgets: %v, want 500", err)
	}
}

// TestStaleDisruptionTarget: a pod an eviction marked DisruptionTarget but
// that was not deleted gets the condition set False once the timeout
// passes (1 s here).
func TestStaleDisruptionTarget(t *testing.T) {
	e := setupWith(t)
	factory := informers.NewSharedInformerFactory(e.client)
	c, err := disruption.New(controllermanager.Clients{Clientset: e.client}, factory, disruption.Options{StalePodDisruptionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 1) })
	e.ghostPod(t, "p", "app", true, nil)
	p, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// What an eviction whose deletion then failed leaves behind.
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: metav1.Now()})
	if _, err := e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the DisruptionTarget condition to be reset", func() (bool, error) {
		p, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, "p", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.DisruptionTarget {
				return cond.Status == corev1.ConditionFalse, fmt.Errorf("condition %+v", cond)
			}
		}
		return false, errors.New("no DisruptionTarget condition")
	})
}
