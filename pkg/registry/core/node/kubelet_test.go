package node

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
)

// nodeGetter serves fixed nodes and checks it is asked cluster-wide.
type nodeGetter map[string]*corev1.Node

func (g nodeGetter) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if ns := apirequest.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest("nodes are not namespaced, got " + ns)
	}
	if n, ok := g[name]; ok {
		return n.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
}

func TestGetConnectionInfo(t *testing.T) {
	addrs := []corev1.NodeAddress{
		{Type: corev1.NodeExternalIP, Address: "203.0.113.1"},
		{Type: corev1.NodeInternalIP, Address: "10.0.0.1"},
		{Type: corev1.NodeHostName, Address: "n1.example"},
	}
	nodes := nodeGetter{
		"n1":     {ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Addresses: addrs, DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 12345}}}},
		"noport": {ObjectMeta: metav1.ObjectMeta{Name: "noport"}, Status: corev1.NodeStatus{Addresses: addrs[:2]}},
		"bare":   {ObjectMeta: metav1.ObjectMeta{Name: "bare"}},
	}
	ctx := apirequest.WithNamespace(context.Background(), "default") // a pod's request
	for _, tc := range []struct {
		name, node string
		preferred  []corev1.NodeAddressType
		want       string
		wantErr    func(error) bool
	}{
		{name: "Kubernetes' default order prefers the hostname", node: "n1", want: "n1.example:12345"},
		{name: "configured order", node: "n1", preferred: []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeHostName}, want: "10.0.0.1:12345"},
		{name: "default port, next type", node: "noport", want: "10.0.0.1:10250"},
		{name: "no address", node: "bare", wantErr: apierrors.IsInternalError},
		{name: "unknown node", node: "gone", wantErr: apierrors.IsNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := NewKubeletConnections(nodes, KubeletClientConfig{PreferredAddressTypes: tc.preferred})
			info, err := k.GetConnectionInfo(ctx, tc.node)
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Host() != tc.want || info.Scheme != "https" || info.Transport == nil || info.InsecureSkipTLSVerifyTransport == nil {
				t.Fatalf("got %+v, want host %s", info, tc.want)
			}
		})
	}
}
