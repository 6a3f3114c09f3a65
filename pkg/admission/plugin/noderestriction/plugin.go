package noderestriction

import (
	"context"
	"fmt"

	authenticationv1 "kubecore.io/api/authentication/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/auth/authorizer/node"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Objects reads what NodeRestriction looks at; missing objects are
// (nil, nil).
type Objects interface {
	// Pod is read for evictions and token requests.
	Pod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	// Node is read for the UID of a mirror pod's owner.
	Node(ctx context.Context, name string) (*corev1.Node, error)
}

// Plugin is NodeRestriction, a plugin of the validating phase. Without
// Objects a mirror pod's owner UID is not checked.
type Plugin struct {
	Objects Objects
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// Handles implements admission.Interface: the writes of a kubelet to pods
// (create, delete, eviction), to its Node and Lease, and its token
// requests.
func (p *Plugin) Handles(a *rest.Attributes) bool {
	if node.NodeOfUser(a.UserInfo) == "" {
		return false
	}
	gr, sub, op := a.Resource.GroupResource(), a.Subresource, a.Operation
	switch {
	case gr == corev1.Resource("pods") && sub == "":
		return op == rest.OperationCreate || op == rest.OperationDelete
	case gr == corev1.Resource("pods") && sub == "eviction":
		return op == rest.OperationCreate
	case gr == corev1.Resource("nodes"), gr == coordinationv1.Resource("leases"):
		return sub == ""
	case gr == corev1.Resource("serviceaccounts") && sub == "token":
		return op == rest.OperationCreate
	}
	return false
}

// Validate implements admission.ValidationInterface.
func (p *Plugin) Validate(ctx context.Context, a *rest.Attributes) error {
	switch a.Resource.GroupResource() {
	case corev1.Resource("pods"):
		return p.validatePod(ctx, a)
	case corev1.Resource("nodes"):
		return admitNode(ctx, a.Object, a.OldObject)
	case coordinationv1.Resource("leases"):
		return admitLease(ctx, a.Object, a.OldObject)
	case corev1.Resource("serviceaccounts"):
		tr, ok := a.Object.(*authenticationv1.TokenRequest)
		if !ok {
			return nil
		}
		pod, err := p.boundPod(ctx, a.Namespace, tr)
		if err != nil {
			return err
		}
		return admitTokenRequest(ctx, a.Name, tr, pod)
	}
	return nil
}

func (p *Plugin) validatePod(ctx context.Context, a *rest.Attributes) error {
	switch {
	case a.Subresource == "eviction":
		pod, err := p.pod(ctx, a.Namespace, a.Name)
		if err != nil || pod == nil {
			// A missing pod is the eviction's NotFound.
			return err
		}
		return admitEviction(ctx, pod)
	case a.Operation == rest.OperationDelete:
		if pod, ok := a.OldObject.(*corev1.Pod); ok {
			return admitPodDelete(ctx, pod)
		}
	default:
		pod, ok := a.Object.(*corev1.Pod)
		if !ok {
			return nil
		}
		nodeUID := ""
		if p.Objects != nil {
			n, err := p.Objects.Node(ctx, pod.Spec.NodeName)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			if n != nil {
				nodeUID = string(n.UID)
			}
		}
		return admitPodCreate(ctx, pod, nodeUID)
	}
	return nil
}

// pod reads a pod; nil without Objects or when missing.
func (p *Plugin) pod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	if p.Objects == nil {
		return nil, nil
	}
	pod, err := p.Objects.Pod(ctx, namespace, name)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("get pod %s/%s: %w", namespace, name, err))
	}
	return pod, nil
}

// boundPod is the pod a token request binds to, nil when it names none.
func (p *Plugin) boundPod(ctx context.Context, namespace string, tr *authenticationv1.TokenRequest) (*corev1.Pod, error) {
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return nil, nil
	}
	return p.pod(ctx, namespace, ref.Name)
}
