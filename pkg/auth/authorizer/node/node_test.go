package node

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
)

type fakeGraph struct {
	pods []*corev1.Pod
	pvcs []*corev1.PersistentVolumeClaim
}

func (g *fakeGraph) PodsOnNode(_ context.Context, node string) ([]*corev1.Pod, error) {
	var out []*corev1.Pod
	for _, p := range g.pods {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out, nil
}

func (g *fakeGraph) Pod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	for _, p := range g.pods {
		if p.Namespace == ns && p.Name == name {
			return p, nil
		}
	}
	return nil, nil
}

func (g *fakeGraph) PersistentVolumeClaim(_ context.Context, ns, name string) (*corev1.PersistentVolumeClaim, error) {
	for _, c := range g.pvcs {
		if c.Namespace == ns && c.Name == name {
			return c, nil
		}
	}
	return nil, nil
}

func TestAuthorize(t *testing.T) {
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.PodSpec{
		NodeName: "n1", ServiceAccountName: "web-sa",
		Volumes: []corev1.Volume{
			{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
		},
		Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "PW", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "pw"}}}}}},
	}}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other"}, Spec: corev1.PodSpec{NodeName: "n2", ServiceAccountName: "other-sa",
		Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "n2-only"}}}}}}
	g := &fakeGraph{pods: []*corev1.Pod{web, other},
		pvcs: []*corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}}}}
	z := &Authorizer{Graph: g}

	kubelet := &apirequest.UserInfo{Name: "system:node:n1", Groups: []string{NodesGroup, "system:authenticated"}}
	res := func(verb, group, resource, sub, ns, name string) *apirequest.RequestInfo {
		return &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	tests := []struct {
		name string
		user *apirequest.UserInfo
		req  *apirequest.RequestInfo
		want authorizer.Decision
	}{
		{"patch own node status", kubelet, res("patch", "", "nodes", "status", "", "n1"), authorizer.Allow},
		{"patch another node", kubelet, res("patch", "", "nodes", "", "", "n2"), authorizer.Deny},
		{"patch another node's status", kubelet, res("patch", "", "nodes", "status", "", "n2"), authorizer.Deny},
		{"list nodes", kubelet, res("list", "", "nodes", "", "", ""), authorizer.Allow},
		{"watch pods", kubelet, res("watch", "", "pods", "", "", ""), authorizer.Allow},
		{"update status of own pod", kubelet, res("patch", "", "pods", "status", "ns", "web"), authorizer.Allow},
		{"update status of another node's pod", kubelet, res("patch", "", "pods", "status", "ns", "other"), authorizer.Deny},
		{"delete own pod", kubelet, res("delete", "", "pods", "", "ns", "web"), authorizer.Allow},
		{"delete a missing pod: the store says 404", kubelet, res("delete", "", "pods", "", "ns", "gone"), authorizer.Allow},
		{"update a pod spec", kubelet, res("update", "", "pods", "", "ns", "web"), authorizer.Deny},
		{"secret of own pod", kubelet, res("get", "", "secrets", "", "ns", "db"), authorizer.Allow},
		{"secret of another node's pod", kubelet, res("get", "", "secrets", "", "ns", "n2-only"), authorizer.Deny},
		{"list secrets", kubelet, res("list", "", "secrets", "", "ns", ""), authorizer.Deny},
		{"watch one config map", kubelet, res("watch", "", "configmaps", "", "ns", "web-config"), authorizer.Allow},
		{"claim of own pod", kubelet, res("get", "", "persistentvolumeclaims", "", "ns", "data"), authorizer.Allow},
		{"its volume", kubelet, res("get", "", "persistentvolumes", "", "", "pv-1"), authorizer.Allow},
		{"another volume", kubelet, res("get", "", "persistentvolumes", "", "", "pv-2"), authorizer.Deny},
		{"token of its pod's service account", kubelet, res("create", "", "serviceaccounts", "token", "ns", "web-sa"), authorizer.Allow},
		{"token of another node's pod's service account", kubelet, res("create", "", "serviceaccounts", "token", "ns", "other-sa"), authorizer.Deny},
		{"service accounts are RBAC's", kubelet, res("get", "", "serviceaccounts", "", "ns", "web-sa"), authorizer.NoOpinion},
		{"own lease", kubelet, res("update", "coordination.k8s.io", "leases", "", LeaseNamespace, "n1"), authorizer.Allow},
		{"another lease", kubelet, res("update", "coordination.k8s.io", "leases", "", LeaseNamespace, "n2"), authorizer.Deny},
		{"create a CSR", kubelet, res("create", "certificates.k8s.io", "certificatesigningrequests", "", "", ""), authorizer.Allow},
		{"CSR subresources are RBAC's", kubelet, res("create", "certificates.k8s.io", "certificatesigningrequests", "nodeclient", "", ""), authorizer.NoOpinion},
		{"watch endpoint slices (the proxy in a kubelet)", kubelet, res("watch", "discovery.k8s.io", "endpointslices", "", "", ""), authorizer.Allow},
		{"endpoint slice writes are RBAC's", kubelet, res("create", "discovery.k8s.io", "endpointslices", "", "ns", ""), authorizer.NoOpinion},
		{"deployments are not its business", kubelet, res("list", "apps", "deployments", "", "", ""), authorizer.NoOpinion},
		{"not a node", &apirequest.UserInfo{Name: "system:node:n1", Groups: []string{"system:authenticated"}}, res("patch", "", "nodes", "", "", "n1"), authorizer.NoOpinion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, err := z.Authorize(context.Background(), authorizer.Attributes{User: tt.user, Request: tt.req})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("decision %v (%s), want %v", got, reason, tt.want)
			}
			if got == authorizer.Deny && reason == "" {
				t.Error("a denial without a reason")
			}
		})
	}
}
