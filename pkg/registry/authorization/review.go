// Package authorization serves the access reviews of authorization.k8s.io:
// subjectaccessreviews (may this user do that?), localsubjectaccessreviews
// (the same, within one namespace), selfsubjectaccessreviews
// (may I?) and selfsubjectrulesreviews (what may I do here?). They are
// create-only and stored nowhere: the answer comes back in the status.
package authorization

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "kubecore.io/api/authorization/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// review is what the three storages share: create-only, cluster-scoped
// (rules reviews name their namespace in the spec).
type review struct{}

func (review) Destroy()              {}
func (review) NamespaceScoped() bool { return false }

// attributes turns the spec's attributes into a request to decide on.
func attributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes, p *field.Path) (*apirequest.RequestInfo, field.ErrorList) {
	switch {
	case res != nil && nonRes != nil:
		return nil, field.ErrorList{field.Invalid(p.Child("nonResourceAttributes"), nonRes, `cannot be specified in combination with resourceAttributes`)}
	case res != nil:
		return &apirequest.RequestInfo{
			IsResourceRequest: true, Verb: res.Verb, APIGroup: res.Group, APIVersion: res.Version,
			Namespace: res.Namespace, Resource: res.Resource, Subresource: res.Subresource, Name: res.Name,
		}, nil
	case nonRes != nil:
		return &apirequest.RequestInfo{Verb: nonRes.Verb, Path: nonRes.Path}, nil
	}
	return nil, field.ErrorList{field.Required(p.Child("resourceAttributes"), "exactly one of nonResourceAttributes or resourceAttributes must be specified")}
}

// decide runs z and words the status.
func decide(ctx context.Context, z authorizer.Authorizer, a authorizer.Attributes) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := z.Authorize(ctx, a)
	st := authorizationv1.SubjectAccessReviewStatus{Allowed: d == authorizer.Allow, Denied: d == authorizer.Deny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return st
}

func invalid(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: kind}, "", errs)
}

// SubjectAccessReviewREST answers for any user: callers need the right to
// create subjectaccessreviews (admins, kubelets' webhooks).
type SubjectAccessReviewREST struct {
	review
	Authorizer authorizer.Authorizer
}

var _ rest.Creater = (*SubjectAccessReviewREST)(nil)

// New implements rest.Storage.
func (*SubjectAccessReviewREST) New() runtime.Object { return &authorizationv1.SubjectAccessReview{} }

// Create implements rest.Creater.
func (r *SubjectAccessReviewREST) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	sar, ok := obj.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %T", obj))
	}
	spec := field.NewPath("spec")
	req, errs := attributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, spec)
	if sar.Spec.User == "" && len(sar.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(spec.Child("user"), sar.Spec.User, `at least one of user or group must be specified`))
	}
	if len(errs) > 0 {
		return nil, invalid("SubjectAccessReview", errs)
	}
	extra := map[string][]string{}
	for k, v := range sar.Spec.Extra {
		extra[k] = v
	}
	user := &apirequest.UserInfo{Name: sar.Spec.User, UID: sar.Spec.UID, Groups: sar.Spec.Groups, Extra: extra}
	out := sar.DeepCopy()
	out.Status = decide(ctx, r.Authorizer, authorizer.Attributes{User: user, Request: req})
	return out, nil
}

// SelfSubjectAccessReviewREST answers for the caller (`kubectl auth can-i`).
type SelfSubjectAccessReviewREST struct {
	review
	Authorizer authorizer.Authorizer
}

var _ rest.Creater = (*SelfSubjectAccessReviewREST)(nil)

// New implements rest.Storage.
func (*SelfSubjectAccessReviewREST) New() runtime.Object {
	return &authorizationv1.SelfSubjectAccessReview{}
}

// Create implements rest.Creater.
func (r *SelfSubjectAccessReviewREST) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	ssar, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", obj))
	}
	req, errs := attributes(ssar.Spec.ResourceAttributes, ssar.Spec.NonResourceAttributes, field.NewPath("spec"))
	if len(errs) > 0 {
		return nil, invalid("SelfSubjectAccessReview", errs)
	}
	user, ok := apirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user in the request")
	}
	out := ssar.DeepCopy()
	out.Status = decide(ctx, r.Authorizer, authorizer.Attributes{User: user, Request: req})
	return out, nil
}

// RuleLister lists the rules bound to a user in a namespace.
type RuleLister interface {
	RulesFor(ctx context.Context, user *apirequest.UserInfo, namespace string) ([]rbacv1.PolicyRule, error)
}

// SelfSubjectRulesReviewREST lists the caller's rules (`kubectl auth
// can-i --list`).
type SelfSubjectRulesReviewREST struct {
	review
	Rules RuleLister
}

var _ rest.Creater = (*SelfSubjectRulesReviewREST)(nil)

// New implements rest.Storage.
func (*SelfSubjectRulesReviewREST) New() runtime.Object {
	return &authorizationv1.SelfSubjectRulesReview{}
}

// Create implements rest.Creater.
func (r *SelfSubjectRulesReviewREST) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	ssrr, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", obj))
	}
	if ssrr.Spec.Namespace == "" {
		return nil, invalid("SelfSubjectRulesReview", field.ErrorList{field.Required(field.NewPath("spec", "namespace"), "")})
	}
	user, ok := apirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user in the request")
	}
	rules, err := r.Rules.RulesFor(ctx, user, ssrr.Spec.Namespace)
	out := ssrr.DeepCopy()
	out.Status = authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    []authorizationv1.ResourceRule{},
		NonResourceRules: []authorizationv1.NonResourceRule{},
	}
	if err != nil {
		out.Status.Incomplete, out.Status.EvaluationError = true, err.Error()
	}
	for _, rule := range rules {
		if len(rule.NonResourceURLs) > 0 {
			out.Status.NonResourceRules = append(out.Status.NonResourceRules, authorizationv1.NonResourceRule{
				Verbs: slices.Clone(rule.Verbs), NonResourceURLs: slices.Clone(rule.NonResourceURLs)})
			continue
		}
		out.Status.ResourceRules = append(out.Status.ResourceRules, authorizationv1.ResourceRule{
			Verbs: slices.Clone(rule.Verbs), APIGroups: slices.Clone(rule.APIGroups),
			Resources: slices.Clone(rule.Resources), ResourceNames: slices.Clone(rule.ResourceNames)})
	}
	return out, nil
}

// LocalSubjectAccessReviewREST answers for any user within the namespace
// the review is created in: callers need the right to create
// localsubjectaccessreviews there (namespace admins have it).
type LocalSubjectAccessReviewREST struct {
	Authorizer authorizer.Authorizer
}

var _ rest.Creater = (*LocalSubjectAccessReviewREST)(nil)

func (*LocalSubjectAccessReviewREST) Destroy()              {}
func (*LocalSubjectAccessReviewREST) NamespaceScoped() bool { return true }

// New implements rest.Storage.
func (*LocalSubjectAccessReviewREST) New() runtime.Object {
	return &authorizationv1.LocalSubjectAccessReview{}
}

// Create implements rest.Creater.
func (r *LocalSubjectAccessReviewREST) Create(ctx context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	lsar, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocalSubjectAccessReview: %T", obj))
	}
	ns := apirequest.NamespaceValue(ctx)
	if ns == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", ns))
	}
	if errs := ValidateLocalSubjectAccessReview(lsar); len(errs) > 0 {
		return nil, invalid("LocalSubjectAccessReview", errs)
	}
	if lsar.Namespace != ns {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", ns))
	}
	req, _ := attributes(lsar.Spec.ResourceAttributes, nil, nil)
	extra := map[string][]string{}
	for k, v := range lsar.Spec.Extra {
		extra[k] = v
	}
	user := &apirequest.UserInfo{Name: lsar.Spec.User, UID: lsar.Spec.UID, Groups: lsar.Spec.Groups, Extra: extra}
	out := lsar.DeepCopy()
	out.Status = decide(ctx, r.Authorizer, authorizer.Attributes{User: user, Request: req})
	return out, nil
}

// ValidateLocalSubjectAccessReview checks a local review as Kubernetes
// does: a subject access review's spec, only resource attributes, in the
// review's own namespace.
func ValidateLocalSubjectAccessReview(lsar *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if lsar.Spec.ResourceAttributes == nil && lsar.Spec.NonResourceAttributes == nil {
		errs = append(errs, field.Required(spec.Child("resourceAttributes"), "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	if lsar.Spec.User == "" && len(lsar.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(spec.Child("user"), lsar.Spec.User, `at least one of user or group must be specified`))
	}
	if ra := lsar.Spec.ResourceAttributes; ra != nil && ra.Namespace != lsar.Namespace {
		errs = append(errs, field.Invalid(spec.Child("resourceAttributes", "namespace"), ra.Namespace, `must match metadata.namespace`))
	}
	if lsar.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(spec.Child("nonResourceAttributes"), lsar.Spec.NonResourceAttributes, `disallowed on this kind of request`))
	}
	return errs
}
