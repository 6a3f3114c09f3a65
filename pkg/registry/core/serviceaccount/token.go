package serviceaccount

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "kubecore.io/api/authentication/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apirequest"
	sa "kubecore.io/kubecore/pkg/auth/serviceaccount"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Limits and default of a requested token lifetime, as Kubernetes has them.
const (
	MinTokenExpirationSeconds     = 10 * 60
	MaxTokenExpirationSeconds     = 1 << 32
	DefaultTokenExpirationSeconds = 60 * 60
)

// TokenObjects reads the objects a token request names; missing ones are
// (nil, nil).
type TokenObjects interface {
	ServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	Node(ctx context.Context, name string) (*corev1.Node, error)
}

// TokenREST serves serviceaccounts/token: a TokenRequest POSTed there is
// answered with a token of the service account, for the requested
// audiences (Audiences when none) and lifetime, bound to a Pod or Secret
// when it names one.
type TokenREST struct {
	rest.OneKind[*authenticationv1.TokenRequest]
	Issuer    *sa.Issuer
	Objects   TokenObjects
	Audiences []string
	// Admission is the chain token requests pass (NodeRestriction); nil
	// admits every request.
	Admission rest.Admission
}

var (
	_ rest.NamedCreater = (*TokenREST)(nil)
	_ rest.KindProvider = (*TokenREST)(nil)
)

var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// NewTokenREST serves serviceaccounts/token: tokens of issuer for the
// audiences, bound to the objects a request names; admission (nil for
// none) sees every request.
func NewTokenREST(issuer *sa.Issuer, objects TokenObjects, audiences []string, admission rest.Admission) *TokenREST {
	return &TokenREST{
		OneKind: rest.OneKind[*authenticationv1.TokenRequest]{Kind: tokenRequestKind, Empty: func() *authenticationv1.TokenRequest { return &authenticationv1.TokenRequest{} }},
		Issuer:  issuer, Objects: objects, Audiences: audiences, Admission: admission,
	}
}

// Create implements rest.NamedCreater.
func (r *TokenREST) Create(ctx context.Context, name string, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	req, err := r.Body(obj)
	if err != nil {
		return nil, err
	}
	ns := apirequest.NamespaceValue(ctx)
	if req.Spec.ExpirationSeconds == nil {
		secs := int64(DefaultTokenExpirationSeconds)
		req.Spec.ExpirationSeconds = &secs
	}
	attrs := rest.NewAttributes(ctx, rest.OperationCreate, corev1.Resource("serviceaccounts"), "token", tokenRequestKind.GroupKind(), name, req, nil, opts != nil && len(opts.DryRun) > 0, opts)
	attrs.Kind = tokenRequestKind
	if err := rest.Admit(ctx, r.Admission, attrs); err != nil {
		return nil, err
	}
	if errs := validateTokenRequest(req); len(errs) > 0 {
		return nil, apierrors.NewInvalid(tokenRequestKind.GroupKind(), "", errs)
	}
	if validate != nil {
		if err := validate(ctx, req); err != nil {
			return nil, err
		}
	}
	account, err := r.Objects.ServiceAccount(ctx, ns, name)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if account == nil || account.DeletionTimestamp != nil {
		return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
	}
	bound, err := r.bound(ctx, account, req.Spec.BoundObjectRef)
	if err != nil {
		return nil, err
	}
	// NodeRestriction reads the bound pod itself, as a webhook would.
	if err := rest.Validate(ctx, r.Admission, attrs); err != nil {
		return nil, err
	}
	audiences := req.Spec.Audiences
	if len(audiences) == 0 {
		audiences = r.Audiences
	}
	token, exp, err := r.Issuer.Token(account, bound, audiences, time.Duration(*req.Spec.ExpirationSeconds)*time.Second)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out := req.DeepCopy()
	out.Name, out.Namespace = account.Name, account.Namespace
	out.CreationTimestamp = metav1.NewTime(exp.Add(-time.Duration(*req.Spec.ExpirationSeconds) * time.Second))
	out.Spec.Audiences = audiences
	out.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(exp)}
	return out, nil
}

// bound reads the object ref names, checks that it may be bound to a
// token of account, and returns it.
func (r *TokenREST) bound(ctx context.Context, account *corev1.ServiceAccount, ref *authenticationv1.BoundObjectReference) (sa.Bound, error) {
	var b sa.Bound
	if ref == nil {
		return b, nil
	}
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var uid string
	switch {
	case gvk.Group == "" && gvk.Kind == "Pod":
		pod, err := r.Objects.Pod(ctx, account.Namespace, ref.Name)
		if err != nil {
			return b, apierrors.NewInternalError(err)
		}
		if pod == nil {
			return b, apierrors.NewNotFound(corev1.Resource("pods"), ref.Name)
		}
		if pod.Spec.ServiceAccountName != account.Name {
			return b, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", account.Name))
		}
		b.Pod, uid = pod, string(pod.UID)
		if pod.Spec.NodeName != "" {
			// A missing node leaves only its name in the token.
			if b.Node, err = r.Objects.Node(ctx, pod.Spec.NodeName); err != nil {
				return b, apierrors.NewInternalError(err)
			}
		}
	case gvk.Group == "" && gvk.Kind == "Secret":
		secret, err := r.Objects.Secret(ctx, account.Namespace, ref.Name)
		if err != nil {
			return b, apierrors.NewInternalError(err)
		}
		if secret == nil {
			return b, apierrors.NewNotFound(corev1.Resource("secrets"), ref.Name)
		}
		b.Secret, uid = secret, string(secret.UID)
	default:
		return b, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s", gvk.String()))
	}
	if ref.UID != "" && string(ref.UID) != uid {
		return b, apierrors.NewConflict(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	return b, nil
}

// validateTokenRequest checks the requested lifetime.
func validateTokenRequest(req *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "expirationSeconds")
	switch secs := *req.Spec.ExpirationSeconds; {
	case secs < MinTokenExpirationSeconds:
		errs = append(errs, field.Invalid(p, secs, "may not specify a duration less than 10 minutes"))
	case secs > MaxTokenExpirationSeconds:
		errs = append(errs, field.Invalid(p, secs, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}
