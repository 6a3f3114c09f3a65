package noderestriction

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// pods serves fixed pods; nodes none.
type pods map[string]*corev1.Pod

func (p pods) Pod(_ context.Context, _, name string) (*corev1.Pod, error) { return p[name], nil }
func (p pods) Node(context.Context, string) (*corev1.Node, error)         { return nil, nil }

func kubelet(node string) *apirequest.UserInfo {
	return &apirequest.UserInfo{Name: "system:node:" + node, Groups: []string{"system:nodes"}}
}

func TestPluginHandlesKubeletWritesOnly(t *testing.T) {
	p := &Plugin{}
	attrs := func(u *apirequest.UserInfo, resource, sub string, op rest.Operation) *rest.Attributes {
		a := &rest.Attributes{UserInfo: u, Subresource: sub, Operation: op}
		a.Resource.Resource = resource
		return a
	}
	for _, tc := range []struct {
		a    *rest.Attributes
		want bool
	}{
		{attrs(kubelet("n1"), "pods", "", rest.OperationCreate), true},
		{attrs(kubelet("n1"), "pods", "", rest.OperationUpdate), false},
		{attrs(kubelet("n1"), "pods", "status", rest.OperationUpdate), false},
		{attrs(kubelet("n1"), "pods", "eviction", rest.OperationCreate), true},
		{attrs(kubelet("n1"), "nodes", "", rest.OperationUpdate), true},
		{attrs(kubelet("n1"), "serviceaccounts", "token", rest.OperationCreate), true},
		{attrs(&apirequest.UserInfo{Name: "alice"}, "pods", "", rest.OperationCreate), false},
		{attrs(nil, "nodes", "", rest.OperationCreate), false},
	} {
		if got := p.Handles(tc.a); got != tc.want {
			t.Errorf("Handles(%s %s/%s by %v) = %v, want %v", tc.a.Operation, tc.a.Resource.Resource, tc.a.Subresource, tc.a.UserInfo, got, tc.want)
		}
	}
}

func TestPluginEviction(t *testing.T) {
	p := &Plugin{Objects: pods{
		"mine":  {ObjectMeta: metav1.ObjectMeta{Name: "mine"}, Spec: corev1.PodSpec{NodeName: "n1"}},
		"other": {ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: corev1.PodSpec{NodeName: "n2"}},
	}}
	evict := func(name string) error {
		u := kubelet("n1")
		ctx := apirequest.WithUser(context.Background(), u)
		a := &rest.Attributes{Operation: rest.OperationCreate, Subresource: "eviction", Name: name, UserInfo: u, Object: &policyv1.Eviction{}}
		a.Resource.Resource = "pods"
		return p.Validate(ctx, a)
	}
	if err := evict("mine"); err != nil {
		t.Errorf("evicting its own pod: %v", err)
	}
	err := evict("other")
	if !apierrors.IsForbidden(err) || err.Error() != `pods "other" is forbidden: node n1 can only evict pods with spec.nodeName set to itself` {
		t.Errorf("evicting another node's pod: %v", err)
	}
	if err := evict("missing"); err != nil {
		t.Errorf("a missing pod is the eviction's NotFound, not admission's: %v", err)
	}
}
