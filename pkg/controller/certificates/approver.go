package certificates

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "kubecore.io/api/authorization/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"
)

// ApproverName is the approver's name in the controller-manager.
const ApproverName = "csrapproving"

// BootstrappersGroup holds the users of bootstrap tokens.
const BootstrappersGroup = "system:bootstrappers"

// Approver approves kubelet client certificate requests: one from a
// bootstrap token user (group system:bootstrappers) who may create
// certificatesigningrequests/nodeclient, or one from the node the
// certificate names, renewing, who may create
// certificatesigningrequests/selfnodeclient. It asks the API server with
// SubjectAccessReviews, so RBAC (the default bindings) decides. Requests
// of another shape are left pending for a person.
type Approver struct {
	queued
	client ApproverClient
}

// ApproverClient is what the approver asks of the API server;
// *typed.Clientset satisfies it.
type ApproverClient interface {
	CertificatesV1() typed.CertificatesV1
	AuthorizationV1() typed.AuthorizationV1
}

// NewApprover returns an approver working through client, fed by the
// informers of factory.
func NewApprover(client ApproverClient, factory *informers.SharedInformerFactory) (*Approver, error) {
	a := &Approver{client: client}
	return a, a.init(factory, ApproverName, a.sync)
}

// sync approves the request name if it is a kubelet's client certificate
// request its requestor may make.
func (a *Approver) sync(ctx context.Context, name string) error {
	c, ok, err := controller.Get(ctx, a.lister, name)
	if !ok {
		return err
	}
	if len(c.Status.Certificate) > 0 || hasCondition(c, certificatesv1.CertificateApproved) || hasCondition(c, certificatesv1.CertificateDenied) ||
		c.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName {
		return nil
	}
	logger := klog.FromContext(ctx).WithValues("csr", name, "requestor", c.Spec.Username)
	_, node, err := KubeletClientRequest(c)
	if err != nil {
		logger.V(2).Info("Not approving a request that is not exactly a kubelet client certificate", "reason", err.Error())
		return nil
	}
	var subresource, message string
	switch {
	case c.Spec.Username == NodeUserPrefix+node:
		subresource, message = "selfnodeclient", "Auto approving self kubelet client certificate after SubjectAccessReview."
	case slices.Contains(c.Spec.Groups, BootstrappersGroup):
		subresource, message = "nodeclient", "Auto approving kubelet client certificate after SubjectAccessReview."
	default:
		logger.V(2).Info("Not approving a kubelet client certificate asked for by neither a bootstrapper nor the node itself")
		return nil
	}
	allowed, err := a.mayCreate(ctx, c, subresource)
	if err != nil {
		return err
	}
	if !allowed {
		logger.V(2).Info("Not approving: the requestor may not create certificatesigningrequests/"+subresource, "node", node)
		return nil
	}
	approved := c.DeepCopy()
	approved.Status.Conditions = append(approved.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "AutoApproved", Message: message,
	})
	if _, err := a.client.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, approved, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("approve %s: %w", name, err)
	}
	logger.V(2).Info("Approved a kubelet client certificate", "node", node)
	return nil
}

// mayCreate asks whether the requestor of c may create
// certificatesigningrequests/subresource.
func (a *Approver) mayCreate(ctx context.Context, c *csr, subresource string) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: c.Spec.Username, UID: c.Spec.UID, Groups: c.Spec.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "create", Group: certificatesv1.GroupName, Resource: "certificatesigningrequests", Subresource: subresource,
		},
	}}
	for k, v := range c.Spec.Extra {
		if sar.Spec.Extra == nil {
			sar.Spec.Extra = map[string]authorizationv1.ExtraValue{}
		}
		sar.Spec.Extra[k] = authorizationv1.ExtraValue(v)
	}
	out, err := a.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("subject access review for %s: %w", c.Name, err)
	}
	return out.Status.Allowed, nil
}
