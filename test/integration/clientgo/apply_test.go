package clientgo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	k8sappsv1 "k8s.io/api/apps/v1"
	k8scorev1 "k8s.io/api/core/v1"
	k8serrors "k8s.io/apimachinery/pkg/api/errors"
	k8smetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv1ac "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	k8sclientcmd "k8s.io/client-go/tools/clientcmd"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/client/testserver"
)

// stockClientset is a client-go clientset of the kubeconfig asking for
// contentType ("" for client-go's default, JSON).
func stockClientset(t *testing.T, kubeconfig, contentType string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := k8sclientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("client-go cannot load %s: %v", kubeconfig, err)
	}
	if contentType != "" {
		cfg.ContentType = contentType
	}
	cfg.QPS, cfg.Burst = -1, 0
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// managersOf lists the managedFields entries of an object as
// "manager/operation/subresource", sorted.
func managersOf(entries []k8smetav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprintf("%s/%s/%s", e.Manager, e.Operation, e.Subresource))
	}
	slices.Sort(out)
	return out
}

// webDeployment is the apply configuration manager "team-a" keeps for the
// deployment: replicas, a label, one container with an env var.
func webDeployment(ns string, replicas int32, env ...*corev1ac.EnvVarApplyConfiguration) *appsv1ac.DeploymentApplyConfiguration {
	return appsv1ac.Deployment("web", ns).
		WithLabels(map[string]string{"team": "a"}).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(replicas).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(map[string]string{"app": "web"}).
				WithSpec(corev1ac.PodSpec().WithContainers(
					corev1ac.Container().WithName("web").WithImage("example.test/web:v1").WithEnv(env...),
				))))
}

// TestClientGoApply drives server-side apply with client-go's typed Apply
// and apply configurations, over JSON and over protobuf: create on apply,
// a second manager's conflict, force, removal of a dropped field, apply to
// the deployment's status, and ExtractDeployment/ExtractConfigMap from the
// managedFields the server recorded.
func TestClientGoApply(t *testing.T) {
	s := testserver.Start(t)
	cfg, err := k8sclientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, contentType string }{
		{"json", ""},
		{"protobuf", "application/vnd.kubernetes.protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ns := "apply-" + tc.name
			if _, err := s.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			cs := stockClientset(t, s.Kubeconfig, tc.contentType)
			t.Run("deployment", func(t *testing.T) { applyDeployment(ctx, t, cs, ns) })
			t.Run("configmap", func(t *testing.T) { applyConfigMap(ctx, t, cs, dyn, ns) })
		})
	}
}

func applyDeployment(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, ns string) {
	deployments := cs.AppsV1().Deployments(ns)
	teamA := k8smetav1.ApplyOptions{FieldManager: "team-a"}

	// Create on apply.
	env := corev1ac.EnvVar().WithName("MODE").WithValue("fast")
	d, err := deployments.Apply(ctx, webDeployment(ns, 2, env), teamA)
	if err != nil {
		t.Fatalf("apply creates: %v", err)
	}
	if d.UID == "" || d.ResourceVersion == "" || *d.Spec.Replicas != 2 || d.Labels["team"] != "a" {
		t.Fatalf("created deployment uid=%q rv=%q replicas=%d labels=%v", d.UID, d.ResourceVersion, *d.Spec.Replicas, d.Labels)
	}
	if got, want := managersOf(d.ManagedFields), []string{"team-a/Apply/"}; !slices.Equal(got, want) {
		t.Fatalf("managedFields after create %v, want %v", got, want)
	}
	if c := d.Spec.Template.Spec.Containers; len(c) != 1 || len(c[0].Env) != 1 || c[0].Env[0].Value != "fast" {
		t.Fatalf("containers after create: %+v", c)
	}

	// Extract round-trips what team-a applied, and applying it again changes nothing.
	extracted, err := appsv1ac.ExtractDeployment(d, "team-a")
	if err != nil {
		t.Fatalf("ExtractDeployment: %v", err)
	}
	if extracted.Spec == nil || extracted.Spec.Replicas == nil || *extracted.Spec.Replicas != 2 ||
		extracted.Labels["team"] != "a" || len(extracted.Spec.Template.Spec.Containers) != 1 ||
		*extracted.Spec.Template.Spec.Containers[0].Image != "example.test/web:v1" ||
		len(extracted.Spec.Template.Spec.Containers[0].Env) != 1 || *extracted.Spec.Template.Spec.Containers[0].Env[0].Value != "fast" {
		t.Fatalf("ExtractDeployment lost what team-a applied: %+v", extracted.Spec)
	}
	if extracted.Spec.Strategy != nil || extracted.Spec.RevisionHistoryLimit != nil {
		t.Errorf("ExtractDeployment returned defaulted fields team-a never applied: strategy=%v revisionHistoryLimit=%v", extracted.Spec.Strategy, extracted.Spec.RevisionHistoryLimit)
	}
	again, err := deployments.Apply(ctx, extracted, teamA)
	if err != nil {
		t.Fatalf("apply the extracted configuration: %v", err)
	}
	if again.ResourceVersion != d.ResourceVersion {
		t.Errorf("applying the extracted configuration wrote (resourceVersion %s -> %s)", d.ResourceVersion, again.ResourceVersion)
	}

	// A second manager applying a field team-a owns with another value conflicts.
	teamB := appsv1ac.Deployment("web", ns).WithSpec(appsv1ac.DeploymentSpec().WithReplicas(5))
	_, err = deployments.Apply(ctx, teamB, k8smetav1.ApplyOptions{FieldManager: "team-b"})
	if !k8serrors.IsConflict(err) {
		t.Fatalf("overlapping apply by team-b: %v, want a conflict", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `conflict with "team-a"`) || !strings.Contains(msg, ".spec.replicas") {
		t.Errorf("conflict message %q does not name the manager and the field", msg)
	}
	var status *k8serrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Details == nil || len(status.ErrStatus.Details.Causes) != 1 ||
		status.ErrStatus.Details.Causes[0].Field != ".spec.replicas" || status.ErrStatus.Details.Causes[0].Type != k8smetav1.CauseTypeFieldManagerConflict {
		t.Errorf("conflict status details: %+v", status)
	}

	// Force takes ownership: team-b owns replicas, team-a keeps the rest.
	d, err = deployments.Apply(ctx, teamB, k8smetav1.ApplyOptions{FieldManager: "team-b", Force: true})
	if err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	if *d.Spec.Replicas != 5 {
		t.Errorf("replicas after forced apply %d, want 5", *d.Spec.Replicas)
	}
	if got, want := managersOf(d.ManagedFields), []string{"team-a/Apply/", "team-b/Apply/"}; !slices.Equal(got, want) {
		t.Fatalf("managedFields after force %v, want %v", got, want)
	}
	fromA, err := appsv1ac.ExtractDeployment(d, "team-a")
	if err != nil {
		t.Fatal(err)
	}
	if fromA.Spec.Replicas != nil {
		t.Errorf("team-a still owns replicas (%d) after team-b forced them", *fromA.Spec.Replicas)
	}
	fromB, err := appsv1ac.ExtractDeployment(d, "team-b")
	if err != nil {
		t.Fatal(err)
	}
	if fromB.Spec == nil || fromB.Spec.Replicas == nil || *fromB.Spec.Replicas != 5 || fromB.Spec.Template != nil || fromB.Labels != nil {
		t.Errorf("team-b's extracted configuration %+v, want replicas 5 alone", fromB.Spec)
	}

	// team-a drops the env var and its label: both go, as team-a alone owned them.
	// replicas (now team-b's) stays 5 though team-a no longer sends it.
	next := appsv1ac.Deployment("web", ns).
		WithSpec(appsv1ac.DeploymentSpec().
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "web"})).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(map[string]string{"app": "web"}).
				WithSpec(corev1ac.PodSpec().WithContainers(
					corev1ac.Container().WithName("web").WithImage("example.test/web:v2"),
				))))
	d, err = deployments.Apply(ctx, next, teamA)
	if err != nil {
		t.Fatalf("apply without env: %v", err)
	}
	if c := d.Spec.Template.Spec.Containers; len(c) != 1 || len(c[0].Env) != 0 || c[0].Image != "example.test/web:v2" {
		t.Errorf("container after team-a dropped env: %+v", c)
	}
	if _, ok := d.Labels["team"]; ok {
		t.Errorf("label team stays after team-a dropped it: %v", d.Labels)
	}
	if *d.Spec.Replicas != 5 {
		t.Errorf("replicas %d after team-a's apply, want team-b's 5", *d.Spec.Replicas)
	}

	// Status through ApplyStatus: recorded under the status subresource.
	st := appsv1ac.Deployment("web", ns).WithStatus(appsv1ac.DeploymentStatus().
		WithObservedGeneration(d.Generation).
		WithReplicas(5).
		WithConditions(appsv1ac.DeploymentCondition().
			WithType(k8sappsv1.DeploymentAvailable).WithStatus(k8scorev1.ConditionTrue).WithReason("Tested")))
	d, err = deployments.ApplyStatus(ctx, st, k8smetav1.ApplyOptions{FieldManager: "status-writer"})
	if err != nil {
		t.Fatalf("ApplyStatus: %v", err)
	}
	if d.Status.Replicas != 5 || len(d.Status.Conditions) != 1 || d.Status.Conditions[0].Reason != "Tested" {
		t.Errorf("status after ApplyStatus: %+v", d.Status)
	}
	if got, want := managersOf(d.ManagedFields), []string{"status-writer/Apply/status", "team-a/Apply/", "team-b/Apply/"}; !slices.Equal(got, want) {
		t.Errorf("managedFields after ApplyStatus %v, want %v", got, want)
	}
	extractedStatus, err := appsv1ac.ExtractDeploymentStatus(d, "status-writer")
	if err != nil {
		t.Fatalf("ExtractDeploymentStatus: %v", err)
	}
	if extractedStatus.Status == nil || extractedStatus.Status.Replicas == nil || *extractedStatus.Status.Replicas != 5 || extractedStatus.Spec != nil {
		t.Errorf("ExtractDeploymentStatus: %+v", extractedStatus)
	}
	// Replicas through ApplyScale: team-b owns them, so a scaler conflicts
	// until it forces, and then owns them under the scale subresource.
	scale := autoscalingv1ac.Scale().WithSpec(autoscalingv1ac.ScaleSpec().WithReplicas(7))
	_, err = deployments.ApplyScale(ctx, "web", scale, k8smetav1.ApplyOptions{FieldManager: "scaler"})
	if !k8serrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "team-b"`) || !strings.Contains(err.Error(), ".spec.replicas") {
		t.Fatalf("ApplyScale over team-b's replicas: %v, want a conflict with \"team-b\" on .spec.replicas", err)
	}
	sc, err := deployments.ApplyScale(ctx, "web", scale, k8smetav1.ApplyOptions{FieldManager: "scaler", Force: true})
	if err != nil {
		t.Fatalf("forced ApplyScale: %v", err)
	}
	if sc.Spec.Replicas != 7 || sc.Name != "web" {
		t.Errorf("scale after a forced ApplyScale: %+v", sc)
	}
	d, err = deployments.Get(ctx, "web", k8smetav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 7 {
		t.Errorf("replicas after ApplyScale %d, want 7", *d.Spec.Replicas)
	}
	if got, want := managersOf(d.ManagedFields), []string{"scaler/Apply/scale", "status-writer/Apply/status", "team-a/Apply/"}; !slices.Equal(got, want) {
		t.Errorf("managedFields after ApplyScale %v, want %v (team-b owned nothing else)", got, want)
	}

	// Status through the main resource is ignored, as Kubernetes resets it.
	ignored := appsv1ac.Deployment("web", ns).WithStatus(appsv1ac.DeploymentStatus().WithReplicas(9))
	d, err = deployments.Apply(ctx, ignored, k8smetav1.ApplyOptions{FieldManager: "team-c"})
	if err != nil {
		t.Fatalf("apply with status to the main resource: %v", err)
	}
	if d.Status.Replicas != 5 {
		t.Errorf("status.replicas %d after an apply to the main resource, want 5 kept", d.Status.Replicas)
	}

	// A read through a GET sees what the applies left.
	got, err := deployments.Get(ctx, "web", k8smetav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != d.ResourceVersion || *got.Spec.Replicas != 7 || got.Status.Replicas != 5 {
		t.Errorf("GET after the applies: rv %s (want %s) replicas %d (want 7) status %d (want 5)", got.ResourceVersion, d.ResourceVersion, *got.Spec.Replicas, got.Status.Replicas)
	}
}

func applyConfigMap(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, dyn *dynamic.DynamicClient, ns string) {
	cms := cs.CoreV1().ConfigMaps(ns)
	owner := k8smetav1.ApplyOptions{FieldManager: "settings"}

	cm, err := cms.Apply(ctx, corev1ac.ConfigMap("settings", ns).WithData(map[string]string{"a": "1", "b": "2"}), owner)
	if err != nil {
		t.Fatalf("apply creates: %v", err)
	}
	if cm.Data["a"] != "1" || cm.Data["b"] != "2" {
		t.Fatalf("data after create %v", cm.Data)
	}
	// Another manager adds a key of its own: granular map, no conflict.
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("settings", ns).WithData(map[string]string{"c": "3"}), k8smetav1.ApplyOptions{FieldManager: "other"})
	if err != nil {
		t.Fatalf("disjoint apply: %v", err)
	}
	if len(cm.Data) != 3 {
		t.Errorf("data after a disjoint apply %v, want a, b and c", cm.Data)
	}
	// ... and a key the first owns with another value: conflict.
	_, err = cms.Apply(ctx, corev1ac.ConfigMap("settings", ns).WithData(map[string]string{"c": "3", "a": "x"}), k8smetav1.ApplyOptions{FieldManager: "other"})
	if !k8serrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "settings"`) || !strings.Contains(err.Error(), `.data.a`) {
		t.Fatalf("overlapping apply: %v, want a conflict with \"settings\" on .data.a", err)
	}
	// The same value is shared ownership, no conflict.
	if _, err = cms.Apply(ctx, corev1ac.ConfigMap("settings", ns).WithData(map[string]string{"c": "3", "a": "1"}), k8smetav1.ApplyOptions{FieldManager: "other"}); err != nil {
		t.Fatalf("apply of the same value: %v", err)
	}
	// settings drops a (shared: stays) and b (its own: goes).
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("settings", ns).WithData(map[string]string{}), owner)
	if err != nil {
		t.Fatalf("apply dropping keys: %v", err)
	}
	if want := map[string]string{"a": "1", "c": "3"}; fmt.Sprint(cm.Data) != fmt.Sprint(want) {
		t.Errorf("data after settings dropped a and b: %v, want %v", cm.Data, want)
	}
	extracted, err := corev1ac.ExtractConfigMap(cm, "other")
	if err != nil {
		t.Fatalf("ExtractConfigMap: %v", err)
	}
	if fmt.Sprint(extracted.Data) != fmt.Sprint(map[string]string{"a": "1", "c": "3"}) || *extracted.Name != "settings" || *extracted.Namespace != ns {
		t.Errorf("ExtractConfigMap(other): name %v data %v", extracted.Name, extracted.Data)
	}
	// A forced apply by other takes a from nobody else now and sets it.
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("settings", ns).WithData(map[string]string{"a": "forced"}), k8smetav1.ApplyOptions{FieldManager: "other", Force: true})
	if err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	if want := map[string]string{"a": "forced"}; fmt.Sprint(cm.Data) != fmt.Sprint(want) {
		t.Errorf("data after other's forced apply of a alone: %v, want %v", cm.Data, want)
	}
	// Through the dynamic client (JSON), a configuration may leave the name out
	// when the object exists (the path names it), but creates nothing.
	nameless := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": "forced", "d": "4"}}}
	u, err := dyn.Resource(k8scorev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns).Apply(ctx, "settings", nameless, k8smetav1.ApplyOptions{FieldManager: "other"})
	if err != nil {
		t.Fatalf("apply without a name to an existing config map: %v", err)
	}
	if u.GetName() != "settings" || fmt.Sprint(u.Object["data"]) != fmt.Sprint(map[string]any{"a": "forced", "d": "4"}) {
		t.Errorf("after an apply without a name: name %q data %v", u.GetName(), u.Object["data"])
	}
	_, err = dyn.Resource(k8scorev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns).Apply(ctx, "absent", nameless, k8smetav1.ApplyOptions{FieldManager: "other"})
	if !k8serrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.name: Required value") {
		t.Errorf("create on apply without a name: %v, want 422 naming metadata.name", err)
	}
	if _, err := cms.Get(ctx, "absent", k8smetav1.GetOptions{}); !k8serrors.IsNotFound(err) {
		t.Errorf("GET after a refused create on apply: %v, want NotFound", err)
	}

	// A dry-run apply stores nothing.
	if _, err := cms.Apply(ctx, corev1ac.ConfigMap("dry", ns).WithData(map[string]string{"x": "1"}), k8smetav1.ApplyOptions{FieldManager: "settings", DryRun: []string{k8smetav1.DryRunAll}}); err != nil {
		t.Fatalf("dry-run apply: %v", err)
	}
	if _, err := cms.Get(ctx, "dry", k8smetav1.GetOptions{}); !k8serrors.IsNotFound(err) {
		t.Errorf("GET after a dry-run apply: %v, want NotFound", err)
	}
}
