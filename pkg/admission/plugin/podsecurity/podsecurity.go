// Package podsecurity is the PodSecurity admission plugin: the
// pod-security.kubernetes.io/{enforce,audit,warn}[-version] labels of a
// namespace apply the Pod Security Standards (privileged, baseline,
// restricted) to its pods and to the pod templates of its workloads.
//
// Enforce refuses a violating pod with 403 Forbidden; warn answers Warning
// headers; audit adds the pod-security.kubernetes.io/audit-violations
// annotation to the request's audit event. Workload templates get warnings
// and audit annotations, never denials. A namespace write with a bad label
// value is refused with 422; raising a namespace's enforce level warns
// about the existing pods that would violate it.
package podsecurity

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"k8s.io/klog/v2"
	appsv1 "kubecore.io/api/apps/v1"
	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Name is the plugin's name in Kubernetes.
const Name = "PodSecurity"

// The audit annotations the plugin adds.
const (
	EnforcePolicyAnnotation   = LabelPrefix + "enforce-policy"
	AuditViolationsAnnotation = LabelPrefix + "audit-violations"
)

// maxPodsToCheck bounds the existing pods a namespace label change
// evaluates, as Kubernetes does.
const maxPodsToCheck = 3000

// Objects reads the namespaces and pods the plugin evaluates against.
type Objects interface {
	Namespace(ctx context.Context, name string) (*corev1.Namespace, error)
	PodsInNamespace(ctx context.Context, namespace string) ([]*corev1.Pod, error)
}

// Plugin is PodSecurity admission, of the validating phase.
type Plugin struct {
	Objects Objects
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// workloads are the resources whose pod templates get warnings and audit
// annotations.
var workloads = map[string]bool{
	"podtemplates": true, "replicationcontrollers": true,
	"apps/deployments": true, "apps/replicasets": true, "apps/statefulsets": true, "apps/daemonsets": true,
	"batch/jobs": true, "batch/cronjobs": true,
}

// Name is the plugin's name, by which it is disabled.
func (*Plugin) Name() string { return Name }

// Handles implements admission.Interface: creates and updates of
// namespaces, pods (and their ephemeral containers) and workloads.
func (*Plugin) Handles(a *rest.Attributes) bool {
	if a.Operation != rest.OperationCreate && a.Operation != rest.OperationUpdate {
		return false
	}
	gr := a.Resource.GroupResource()
	switch {
	case gr == corev1.Resource("namespaces"):
		return a.Subresource == ""
	case gr == corev1.Resource("pods"):
		return a.Subresource == "" || a.Subresource == "ephemeralcontainers"
	}
	key := gr.Resource
	if gr.Group != "" {
		key = gr.Group + "/" + gr.Resource
	}
	return workloads[key] && a.Subresource == ""
}

// Validate implements admission.ValidationInterface.
func (p *Plugin) Validate(ctx context.Context, a *rest.Attributes) error {
	switch a.Resource.GroupResource() {
	case corev1.Resource("namespaces"):
		return p.validateNamespace(ctx, a)
	case corev1.Resource("pods"):
		return p.validatePod(ctx, a)
	}
	return p.validateWorkload(ctx, a)
}

// validateNamespace refuses bad label values and, when the enforce level
// of an existing namespace changes, warns about its pods that violate it.
func (p *Plugin) validateNamespace(ctx context.Context, a *rest.Attributes) error {
	ns, ok := a.Object.(*corev1.Namespace)
	if !ok {
		return nil
	}
	policy, errs := PolicyOf(ns.Labels)
	old, isUpdate := a.OldObject.(*corev1.Namespace)
	isUpdate = isUpdate && a.Operation == rest.OperationUpdate
	var oldPolicy Policy
	var oldErrs field.ErrorList
	if isUpdate {
		oldPolicy, oldErrs = PolicyOf(old.Labels)
	}
	// An update must have valid labels only when it changes them, so that
	// a namespace stored with bad ones can still be updated (and deleted).
	if len(errs) > 0 && (!isUpdate || !reflect.DeepEqual(errs, oldErrs)) {
		return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Namespace").GroupKind(), ns.Name, errs)
	}
	if !isUpdate {
		return nil
	}
	if policy.Enforce == oldPolicy.Enforce || policy.Enforce.Level == LevelPrivileged {
		return nil
	}
	for _, w := range p.existingPodWarnings(ctx, ns.Name, policy.Enforce) {
		apirequest.AddWarning(ctx, w)
	}
	return nil
}

// existingPodWarnings evaluates the pods of a namespace against a new
// enforce level: one warning naming the level, then one per distinct set
// of reasons, led by the first pod's name and the count of the others.
// Pods of one controller are checked once before any of their siblings.
func (p *Plugin) existingPodWarnings(ctx context.Context, namespace string, enforce LevelVersion) []string {
	pods, err := p.Objects.PodsInNamespace(ctx, namespace)
	if err != nil {
		klog.FromContext(ctx).Error(err, "List the pods to check a new PodSecurity enforce level", "namespace", namespace)
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods = prioritize(pods)
	total := len(pods)
	if len(pods) > maxPodsToCheck {
		pods = pods[:maxPodsToCheck]
	}
	type group struct {
		first string
		count int
	}
	groups := map[string]*group{}
	var reasons []string
	for _, pod := range pods {
		vs := Evaluate(enforce, &pod.ObjectMeta, &pod.Spec)
		if len(vs) == 0 {
			continue
		}
		r := ForbiddenReason(vs)
		g, seen := groups[r]
		if !seen {
			g = &group{first: pod.Name}
			groups[r] = g
			reasons = append(reasons, r)
		} else if pod.Name < g.first {
			g.first = pod.Name
		}
		g.count++
	}
	var warnings []string
	if len(pods) < total {
		warnings = append(warnings, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", len(pods), total))
	}
	if len(reasons) == 0 {
		return warnings
	}
	warnings = append(warnings, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce))
	podWarnings := make([]string, len(reasons))
	for i, r := range reasons {
		g := groups[r]
		switch g.count {
		case 1:
			podWarnings[i] = fmt.Sprintf("%s: %s", g.first, r)
		case 2:
			podWarnings[i] = fmt.Sprintf("%s (and 1 other pod): %s", g.first, r)
		default:
			podWarnings[i] = fmt.Sprintf("%s (and %d other pods): %s", g.first, g.count-1, r)
		}
	}
	sort.Strings(podWarnings)
	return append(warnings, podWarnings...)
}

// prioritize puts the first pod of each controller (and every pod without
// one) before the other pods of a controller.
func prioritize(pods []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	var siblings []*corev1.Pod
	seen := map[types.UID]bool{}
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		switch {
		case ref == nil:
			out = append(out, pod)
		case seen[ref.UID]:
			siblings = append(siblings, pod)
		default:
			seen[ref.UID] = true
			out = append(out, pod)
		}
	}
	return append(out, siblings...)
}

// validatePod applies the three modes to a new pod, to an update that
// changes an image, and to new ephemeral containers.
func (p *Plugin) validatePod(ctx context.Context, a *rest.Attributes) error {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	if old, ok := a.OldObject.(*corev1.Pod); ok && a.Operation == rest.OperationUpdate && !significantPodUpdate(pod, old) {
		return nil
	}
	policy, nsErr, ok := p.namespacePolicy(ctx, a.Namespace)
	if !ok {
		return nil
	}
	return p.evaluate(ctx, a, policy, nsErr, &pod.ObjectMeta, &pod.Spec, true)
}

// validateWorkload applies audit and warn to a workload's pod template
// when it is created or changed.
func (p *Plugin) validateWorkload(ctx context.Context, a *rest.Attributes) error {
	meta, spec := podTemplateOf(a.Object)
	if spec == nil {
		return nil
	}
	if a.Operation == rest.OperationUpdate {
		oldMeta, oldSpec := podTemplateOf(a.OldObject)
		if oldSpec != nil && reflect.DeepEqual(meta, oldMeta) && reflect.DeepEqual(spec, oldSpec) {
			return nil
		}
	}
	policy, nsErr, ok := p.namespacePolicy(ctx, a.Namespace)
	if !ok || policy.Warn.Level == LevelPrivileged && policy.Audit.Level == LevelPrivileged && nsErr == nil {
		return nil
	}
	return p.evaluate(ctx, a, policy, nsErr, meta, spec, false)
}

// namespacePolicy reads the policy of a namespace; ok is false when the
// namespace cannot be read (the request is then allowed, with an audit
// annotation saying why, as Kubernetes does).
func (p *Plugin) namespacePolicy(ctx context.Context, name string) (Policy, error, bool) {
	ns, err := p.Objects.Namespace(ctx, name)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Fetch the namespace of a pod for PodSecurity", "namespace", name)
		apirequest.AddAuditAnnotation(ctx, LabelPrefix+"error", fmt.Sprintf("failed to lookup namespace %s: %v", name, err))
		return Policy{}, nil, false
	}
	policy, errs := PolicyOf(ns.Labels)
	return policy, errs.ToAggregate(), true
}

// evaluate runs enforce (for pods only), audit and warn, reusing a result
// when two modes share a level and version. A denied write gets no
// warnings.
func (p *Plugin) evaluate(ctx context.Context, a *rest.Attributes, policy Policy, nsErr error, meta *metav1.ObjectMeta, spec *corev1.PodSpec, enforce bool) error {
	if nsErr != nil {
		apirequest.AddAuditAnnotation(ctx, LabelPrefix+"error", fmt.Sprintf("Failed to parse policy: %v", nsErr))
	}
	results := map[LevelVersion][]Violation{}
	eval := func(lv LevelVersion) []Violation {
		vs, ok := results[lv]
		if !ok {
			vs = Evaluate(lv, meta, spec)
			results[lv] = vs
		}
		return vs
	}
	var denied error
	if enforce {
		apirequest.AddAuditAnnotation(ctx, EnforcePolicyAnnotation, policy.Enforce.String())
		if vs := eval(policy.Enforce); len(vs) > 0 {
			denied = apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
				fmt.Errorf("violates PodSecurity %q: %s", policy.Enforce.String(), ForbiddenDetail(vs)))
		}
	}
	if vs := eval(policy.Audit); len(vs) > 0 {
		apirequest.AddAuditAnnotation(ctx, AuditViolationsAnnotation,
			fmt.Sprintf("would violate PodSecurity %q: %s", policy.Audit.String(), ForbiddenDetail(vs)))
	}
	if denied != nil {
		return denied
	}
	if vs := eval(policy.Warn); len(vs) > 0 {
		apirequest.AddWarning(ctx, fmt.Sprintf("would violate PodSecurity %q: %s", policy.Warn.String(), ForbiddenDetail(vs)))
	}
	return nil
}

// significantPodUpdate reports whether an update of a pod can change what
// the checks see: the spec is immutable but for images and ephemeral
// containers, so a changed image, a new or changed ephemeral container,
// or a changed seccomp annotation.
func significantPodUpdate(pod, old *corev1.Pod) bool {
	const seccompPod = "seccomp.security.alpha.kubernetes.io/pod"
	if pod.Annotations[seccompPod] != old.Annotations[seccompPod] {
		return true
	}
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return true
	}
	changed := func(c, o *corev1.Container) bool {
		key := "container.seccomp.security.alpha.kubernetes.io/" + c.Name
		return c.Image != o.Image || pod.Annotations[key] != old.Annotations[key]
	}
	for i := range pod.Spec.Containers {
		if changed(&pod.Spec.Containers[i], &old.Spec.Containers[i]) {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if changed(&pod.Spec.InitContainers[i], &old.Spec.InitContainers[i]) {
			return true
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		c := &pod.Spec.EphemeralContainers[i]
		idx := -1
		for j := range old.Spec.EphemeralContainers {
			if old.Spec.EphemeralContainers[j].Name == c.Name {
				idx = j
				break
			}
		}
		if idx < 0 || !reflect.DeepEqual(c, &old.Spec.EphemeralContainers[idx]) {
			return true
		}
	}
	return false
}

// podTemplateOf returns the pod template of a workload; nil for another
// object, or a ReplicationController without one.
func podTemplateOf(obj runtime.Object) (*metav1.ObjectMeta, *corev1.PodSpec) {
	var t *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		t = &o.Template
	case *corev1.ReplicationController:
		t = o.Spec.Template
	case *appsv1.Deployment:
		t = &o.Spec.Template
	case *appsv1.ReplicaSet:
		t = &o.Spec.Template
	case *appsv1.StatefulSet:
		t = &o.Spec.Template
	case *appsv1.DaemonSet:
		t = &o.Spec.Template
	case *batchv1.Job:
		t = &o.Spec.Template
	case *batchv1.CronJob:
		t = &o.Spec.JobTemplate.Spec.Template
	}
	if t == nil {
		return nil, nil
	}
	return &t.ObjectMeta, &t.Spec
}
