// Package certificatesigningrequest serves certificatesigningrequests
// through the generic Store: the request with its requester filled in by
// the server, /approval for approvers, /status for signers.
package certificatesigningrequest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	certificatesv1 "kubecore.io/api/certificates/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

type csr = certificatesv1.CertificateSigningRequest

// Storage is the storage of certificatesigningrequests and their
// subresources.
type Storage struct {
	CertificateSigningRequest *REST
	Status                    *SubresourceREST
	Approval                  *SubresourceREST
}

// REST serves certificatesigningrequests.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of the main resource: the server sets
// the requester on create, and spec and status never change through it.
func NewStrategy() *strategy.Strategy[*csr] {
	return &strategy.Strategy[*csr]{
		StatusSubresource: true,
		PrepareCreate: func(ctx context.Context, obj *csr) {
			obj.Spec.Username, obj.Spec.UID, obj.Spec.Groups, obj.Spec.Extra = "", "", nil, nil
			if u, ok := apirequest.UserFrom(ctx); ok {
				obj.Spec.Username, obj.Spec.UID, obj.Spec.Groups = u.Name, u.UID, slices.Clone(u.Groups)
				for k, v := range u.Extra {
					if obj.Spec.Extra == nil {
						obj.Spec.Extra = map[string]certificatesv1.ExtraValue{}
					}
					obj.Spec.Extra[k] = slices.Clone(v)
				}
			}
		},
		PrepareUpdate:      func(_ context.Context, obj, old *csr) { obj.Spec = old.Spec },
		ValidateFunc:       Validate,
		ValidateUpdateFunc: ValidateUpdate,
	}
}

// isApproval: Approved and Denied conditions are set only through
// /approval.
func isApproval(c certificatesv1.CertificateSigningRequestCondition) bool {
	return c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied
}

// mergeConditions returns the conditions of obj for which own is true,
// and those of old for which it is not, stamping new or changed ones.
func mergeConditions(obj, old *csr, own func(certificatesv1.CertificateSigningRequestCondition) bool, now time.Time) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range old.Status.Conditions {
		if !own(c) {
			out = append(out, c)
		}
	}
	for _, c := range obj.Status.Conditions {
		if !own(c) {
			continue
		}
		i := slices.IndexFunc(old.Status.Conditions, func(o certificatesv1.CertificateSigningRequestCondition) bool { return o.Type == c.Type })
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = metav1.NewTime(now)
		}
		switch {
		case !c.LastTransitionTime.IsZero():
		case i >= 0 && old.Status.Conditions[i].Status == c.Status:
			c.LastTransitionTime = old.Status.Conditions[i].LastTransitionTime
		default:
			c.LastTransitionTime = metav1.NewTime(now)
		}
		out = append(out, c)
	}
	return out
}

// NewStatusStrategy returns the strategy of /status, the signer's: it
// sets the certificate and every condition but Approved and Denied.
func NewStatusStrategy(now func() time.Time) *strategy.StatusStrategy[*csr] {
	return &strategy.StatusStrategy[*csr]{
		PrepareStatus: func(_ context.Context, obj, old *csr) {
			obj.Status.Conditions = mergeConditions(obj, old, func(c certificatesv1.CertificateSigningRequestCondition) bool { return !isApproval(c) }, now().Truncate(time.Second))
		},
		ValidateStatus: ValidateUpdate,
	}
}

// NewApprovalStrategy returns the strategy of /approval, the approver's:
// it sets the conditions, as sent (Kubernetes takes them all there), and
// never the certificate.
func NewApprovalStrategy(now func() time.Time) *strategy.StatusStrategy[*csr] {
	every := func(certificatesv1.CertificateSigningRequestCondition) bool { return true }
	return &strategy.StatusStrategy[*csr]{
		PrepareStatus: func(_ context.Context, obj, old *csr) {
			obj.Status.Certificate = old.Status.Certificate
			obj.Status.Conditions = mergeConditions(obj, old, every, now().Truncate(time.Second))
		},
		ValidateStatus: ValidateUpdate,
	}
}

// GetAttrs adds spec.signerName to the selectable fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	c, ok := obj.(*csr)
	if !ok {
		return nil, nil, fmt.Errorf("not a CertificateSigningRequest: %T", obj)
	}
	return labels.Set(c.Labels), fields.Set{"metadata.name": c.Name, "spec.signerName": c.Spec.SignerName}, nil
}

// NewStorage returns the storage of certificatesigningrequests. authz
// decides, as Kubernetes' CertificateApproval and CertificateSigning
// admission do, who may approve (verb approve) and sign (verb sign) for
// a signer: on resource signers of certificates.k8s.io named by the
// signer or by "<domain>/*".
func NewStorage(opts generic.StoreOptions, authz authorizer.Authorizer) (*Storage, error) {
	store, err := strategy.NewStore(opts, strategy.Of[csr, certificatesv1.CertificateSigningRequestList](certificatesv1.Resource("certificatesigningrequests"), "certificatesigningrequest", NewStrategy()).Short("csr").Selectable(GetAttrs))
	if err != nil {
		return nil, err
	}
	sub := func(st *strategy.StatusStrategy[*csr], verb string, changed func(obj, old *csr) bool) *SubresourceREST {
		return &SubresourceREST{StatusREST: strategy.NewStatusREST(store, st), strategy: st, authz: authz, verb: verb, changed: changed}
	}
	return &Storage{
		CertificateSigningRequest: &REST{Store: store},
		Status: sub(NewStatusStrategy(time.Now), "sign", func(obj, old *csr) bool {
			return string(obj.Status.Certificate) != string(old.Status.Certificate)
		}),
		Approval: sub(NewApprovalStrategy(time.Now), "approve", func(obj, old *csr) bool {
			return !slices.EqualFunc(approvals(obj), approvals(old), func(a, b certificatesv1.CertificateSigningRequestCondition) bool {
				return a.Type == b.Type && a.Status == b.Status
			})
		}),
	}, nil
}

// approvals returns the Approved and Denied conditions of c.
func approvals(c *csr) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, cond := range c.Status.Conditions {
		if isApproval(cond) {
			out = append(out, cond)
		}
	}
	return out
}

// SubresourceREST serves /status or /approval: an update that changes
// what the subresource is for (the certificate, the approval) needs verb
// on the request's signer.
type SubresourceREST struct {
	*strategy.StatusREST
	strategy *strategy.StatusStrategy[*csr]
	authz    authorizer.Authorizer
	verb     string
	changed  func(obj, old *csr) bool
}

var (
	_ rest.Updater = (*SubresourceREST)(nil)
	_ rest.Applier = (*SubresourceREST)(nil)
)

// Update implements rest.Updater.
func (r *SubresourceREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.StatusREST.Update(ctx, name, &signerCheck{r: r, inner: objInfo}, createValidation, updateValidation, forceAllowCreate, opts)
}

// Apply implements rest.Applier through Update, so that an apply is
// checked as a PUT or a patch is (the embedded StatusREST's Apply would
// skip the signer check).
func (r *SubresourceREST) Apply(ctx context.Context, name string, cfg map[string]any, force bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.StatusREST.ApplyThrough(ctx, r, name, cfg, force, opts)
}

// signerCheck runs the update, then checks the signer permission when it
// changed what the subresource guards.
type signerCheck struct {
	r     *SubresourceREST
	inner rest.UpdatedObjectInfo
}

func (u *signerCheck) Preconditions() *metav1.Preconditions { return u.inner.Preconditions() }

// RecordsManagedFields forwards the inner info's (an apply's) to the Store.
func (u *signerCheck) RecordsManagedFields() bool { return generic.RecordsManagedFields(u.inner) }

func (u *signerCheck) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := u.inner.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	o, ok1 := obj.(*csr)
	prev, ok2 := old.(*csr)
	if !ok1 || !ok2 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected a CertificateSigningRequest, got %T", obj))
	}
	// The strategy keeps what the subresource may not change; compare
	// what it will store.
	probe := o.DeepCopy()
	u.r.strategy.PrepareForUpdate(ctx, probe, prev)
	if !u.r.changed(probe, prev) {
		return obj, nil
	}
	if err := u.r.allowed(ctx, prev.Name, prev.Spec.SignerName); err != nil {
		return nil, err
	}
	return obj, nil
}

// allowed checks the user may use verb on the signer, by its name or its
// domain's wildcard.
func (r *SubresourceREST) allowed(ctx context.Context, name, signer string) error {
	user, _ := apirequest.UserFrom(ctx)
	domain, _, _ := strings.Cut(signer, "/")
	for _, target := range []string{signer, domain + "/*"} {
		d, _, err := r.authz.Authorize(ctx, authorizer.Attributes{User: user, Request: &apirequest.RequestInfo{
			IsResourceRequest: true, Verb: r.verb, APIGroup: certificatesv1.GroupName, APIVersion: "v1", Resource: "signers", Name: target,
		}})
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("authorize %s on signer %s: %w", r.verb, target, err))
		}
		if d == authorizer.Allow {
			return nil
		}
	}
	return apierrors.NewForbidden(certificatesv1.Resource("certificatesigningrequests"), name, fmt.Errorf("user not permitted to %s requests with signerName %q", r.verb, signer))
}
