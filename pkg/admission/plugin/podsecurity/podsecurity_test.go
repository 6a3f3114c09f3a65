package podsecurity

import (
	"context"
	"errors"
	"slices"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// objects is one namespace and its pods.
type objects struct {
	ns   *corev1.Namespace
	pods []*corev1.Pod
}

func (o objects) Namespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if o.ns == nil || o.ns.Name != name {
		return nil, errors.New("no such namespace")
	}
	return o.ns, nil
}

func (o objects) PodsInNamespace(context.Context, string) ([]*corev1.Pod, error) { return o.pods, nil }

// recorded runs a validation with a context recording warnings and audit
// annotations.
func recorded(f func(ctx context.Context) error) (warnings []string, annotations map[string]string, err error) {
	annotations = map[string]string{}
	ctx := apirequest.WithWarningRecorder(context.Background(), func(m string) { warnings = append(warnings, m) })
	ctx = apirequest.WithAuditAnnotator(ctx, func(k, v string) { annotations[k] = v })
	err = f(ctx)
	return warnings, annotations, err
}

func namespaceWith(labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: labels}}
}

func attrs(op rest.Operation, gr string, obj, old runtime.Object) *rest.Attributes {
	a := &rest.Attributes{Operation: op, Namespace: "ns", Name: "p", Object: obj, OldObject: old}
	switch gr {
	case "deployments":
		a.Resource = appsv1.SchemeGroupVersion.WithResource(gr)
	case "cronjobs":
		a.Resource = batchv1.SchemeGroupVersion.WithResource(gr)
	default:
		a.Resource = corev1.SchemeGroupVersion.WithResource(gr)
	}
	return a
}

func TestPodEnforceWarnAudit(t *testing.T) {
	p := &Plugin{Objects: objects{ns: namespaceWith(map[string]string{
		LabelPrefix + "enforce": "baseline", LabelPrefix + "warn": "restricted", LabelPrefix + "audit": "restricted",
	})}}
	bare := restrictedPod()
	bare.Spec.SecurityContext, bare.Spec.Containers[0].SecurityContext = nil, nil
	warnings, annotations, err := recorded(func(ctx context.Context) error {
		return p.Validate(ctx, attrs(rest.OperationCreate, "pods", bare, nil))
	})
	wantDetail := `would violate PodSecurity "restricted:latest": ` + ForbiddenDetail(Evaluate(latest(LevelRestricted), &bare.ObjectMeta, &bare.Spec))
	if err != nil || !slices.Equal(warnings, []string{wantDetail}) || annotations[AuditViolationsAnnotation] != wantDetail ||
		annotations[EnforcePolicyAnnotation] != "baseline:latest" {
		t.Errorf("bare pod: err %v, warnings %q, annotations %q", err, warnings, annotations)
	}

	priv := bare.DeepCopy()
	priv.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true)}
	warnings, annotations, err = recorded(func(ctx context.Context) error {
		return p.Validate(ctx, attrs(rest.OperationCreate, "pods", priv, nil))
	})
	if !apierrors.IsForbidden(err) || len(warnings) != 0 || annotations[AuditViolationsAnnotation] == "" {
		t.Errorf("privileged pod: err %v, warnings %q (none on a denial), annotations %q", err, warnings, annotations)
	}

	// An update that changes no image is not evaluated again.
	relabeled := priv.DeepCopy()
	relabeled.Labels = map[string]string{"a": "b"}
	if err := p.Validate(context.Background(), attrs(rest.OperationUpdate, "pods", relabeled, priv)); err != nil {
		t.Errorf("relabel a pod: %v", err)
	}
	reimaged := priv.DeepCopy()
	reimaged.Spec.Containers[0].Image = "busybox:2"
	if err := p.Validate(context.Background(), attrs(rest.OperationUpdate, "pods", reimaged, priv)); !apierrors.IsForbidden(err) {
		t.Errorf("change an image of a violating pod: %v, want 403", err)
	}
	// A new ephemeral container is evaluated.
	debug := bare.DeepCopy()
	debug.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debug", SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}}}}
	a := attrs(rest.OperationUpdate, "pods", debug, bare)
	a.Subresource = "ephemeralcontainers"
	if !p.Handles(a) {
		t.Fatal("pods/ephemeralcontainers not handled")
	}
	if err := p.Validate(context.Background(), a); !apierrors.IsForbidden(err) {
		t.Errorf("add a privileged ephemeral container: %v, want 403", err)
	}
}

func TestWorkloadsOnlyWarn(t *testing.T) {
	p := &Plugin{Objects: objects{ns: namespaceWith(map[string]string{LabelPrefix + "enforce": "restricted", LabelPrefix + "warn": "baseline"})}}
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}}}}
	cron := &batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}}}
	for _, tc := range []struct {
		resource string
		obj      runtime.Object
	}{
		{"deployments", &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}},
		{"cronjobs", cron},
		{"podtemplates", &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: spec}}},
		{"replicationcontrollers", &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: &corev1.PodTemplateSpec{Spec: spec}}}},
	} {
		a := attrs(rest.OperationCreate, tc.resource, tc.obj, nil)
		if !p.Handles(a) {
			t.Errorf("%s: not handled", tc.resource)
			continue
		}
		warnings, _, err := recorded(func(ctx context.Context) error { return p.Validate(ctx, a) })
		want := `would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`
		if err != nil || !slices.Equal(warnings, []string{want}) {
			t.Errorf("%s: err %v, warnings %q", tc.resource, err, warnings)
		}
	}
	// An update leaving the template alone is not evaluated.
	old := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
	scaled := old.DeepCopy()
	scaled.Spec.Replicas = ptr(int32(3))
	warnings, _, err := recorded(func(ctx context.Context) error {
		return p.Validate(ctx, attrs(rest.OperationUpdate, "deployments", scaled, old))
	})
	if err != nil || len(warnings) != 0 {
		t.Errorf("scale a Deployment: err %v, warnings %q", err, warnings)
	}
}

func TestNamespaceWarningsGroupPods(t *testing.T) {
	yes := true
	owned := func(name string) *corev1.Pod {
		p := restrictedPod()
		p.Name = name
		p.Spec.HostNetwork = true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: &yes}}
		return p
	}
	fine := restrictedPod()
	fine.Name = "fine"
	p := &Plugin{Objects: objects{pods: []*corev1.Pod{owned("web-b"), fine, owned("web-a"), owned("web-c")}}}
	old := namespaceWith(nil)
	labeled := namespaceWith(map[string]string{LabelPrefix + "enforce": "baseline"})
	warnings, _, err := recorded(func(ctx context.Context) error {
		return p.Validate(ctx, attrs(rest.OperationUpdate, "namespaces", labeled, old))
	})
	want := []string{`existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"`, `web-a (and 2 other pods): host namespaces`}
	if err != nil || !slices.Equal(warnings, want) {
		t.Errorf("err %v, warnings\n got %q\nwant %q", err, warnings, want)
	}
	bad := namespaceWith(map[string]string{LabelPrefix + "warn-version": "latest", LabelPrefix + "audit": "Restricted"})
	if err := p.Validate(context.Background(), attrs(rest.OperationCreate, "namespaces", bad, nil)); !apierrors.IsInvalid(err) {
		t.Errorf("a bad level: %v, want 422", err)
	}
	if err := p.Validate(context.Background(), attrs(rest.OperationUpdate, "namespaces", bad, old)); !apierrors.IsInvalid(err) {
		t.Errorf("an update to a bad level: %v, want 422", err)
	}
	// Bad labels already stored do not block other updates.
	relabeled := bad.DeepCopy()
	relabeled.Labels["team"] = "x"
	if err := p.Validate(context.Background(), attrs(rest.OperationUpdate, "namespaces", relabeled, bad)); err != nil {
		t.Errorf("an update keeping stored bad labels: %v", err)
	}
}
