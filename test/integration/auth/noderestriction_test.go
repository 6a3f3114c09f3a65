package auth

import (
	"context"
	"testing"

	authenticationv1 "kubecore.io/api/authentication/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/typed"
)

// TestNodeRestriction: a kubelet's certificate lets it create only its
// own Node with kubelet labels, change neither its taints nor protected
// labels, write only its own Lease, create only mirror pods of its own,
// delete and evict only its pods, and get tokens only bound to its pods.
func TestNodeRestriction(t *testing.T) {
	c := startWithTokens(t)
	ctx := context.Background()
	kubelet := c.withCert("kubelet-nr1", "system:node:nr1", "system:nodes")
	nodes := kubelet.CoreV1().Nodes()

	_, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "nr2"}}, metav1.CreateOptions{})
	wantForbidden(t, err, `nodes "nr2" is forbidden: node "nr1" is not allowed to modify node "nr2"`)
	_, err = nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "nr1", Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}}}, metav1.CreateOptions{})
	wantForbidden(t, err, `node "nr1" is not allowed to set the following labels: node-role.kubernetes.io/control-plane`)
	nr1, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "nr1", Labels: map[string]string{
		"kubernetes.io/hostname": "nr1", "node.kubernetes.io/instance-type": "small", "example.com/rack": "r1"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("register own node: %v", err)
	}
	if _, err := c.admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "nr2"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, patch, msg string }{
		{"remove a taint", `{"spec":{"taints":null}}`, `node "nr1" is not allowed to modify taints`},
		{"a node-restriction label", `{"metadata":{"labels":{"node-restriction.kubernetes.io/pool":"a"}}}`, "is not allowed to modify labels: node-restriction.kubernetes.io/pool"},
		{"a kubernetes.io label", `{"metadata":{"labels":{"node-role.kubernetes.io/worker":""}}}`, "is not allowed to modify labels: node-role.kubernetes.io/worker"},
	} {
		_, err := nodes.Patch(ctx, "nr1", types.MergePatchType, []byte(tc.patch), metav1.PatchOptions{})
		wantForbidden(t, err, tc.msg)
	}
	if _, err := nodes.Patch(ctx, "nr1", types.MergePatchType, []byte(`{"metadata":{"labels":{"example.com/rack":"r2","kubelet.kubernetes.io/x":"y"}}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("kubelet labels and labels of other domains: %v", err)
	}
	// The admin is not restricted.
	if _, err := c.admin.CoreV1().Nodes().Patch(ctx, "nr1", types.MergePatchType, []byte(`{"spec":{"taints":null}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("admin removes a taint: %v", err)
	}

	leases := kubelet.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	_, err = leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "nr2"}}, metav1.CreateOptions{})
	wantForbidden(t, err, `leases.coordination.k8s.io "nr2" is forbidden: can only access node lease with the same name as the requesting node`)
	if _, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "nr1"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("own lease: %v", err)
	}

	ns := c.s.CreateNamespace(t, "restrict")
	pods := kubelet.CoreV1().Pods(ns)
	mirror := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"kubernetes.io/config.mirror": "hash"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "nr1", UID: nr1.UID, Controller: new(true)}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	}
	plain := mirror("plain", "nr1")
	delete(plain.Annotations, "kubernetes.io/config.mirror")
	_, err = pods.Create(ctx, plain, metav1.CreateOptions{})
	wantForbidden(t, err, `pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "nr1" can only create mirror pods`)
	_, err = pods.Create(ctx, mirror("elsewhere", "nr2"), metav1.CreateOptions{})
	wantForbidden(t, err, `node "nr1" can only create pods with spec.nodeName set to itself`)
	orphan := mirror("orphan", "nr1")
	orphan.OwnerReferences = nil
	_, err = pods.Create(ctx, orphan, metav1.CreateOptions{})
	wantForbidden(t, err, `node "nr1" can only create pods with an owner reference set to itself`)
	withSecret := mirror("with-secret", "nr1")
	withSecret.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}}}
	_, err = pods.Create(ctx, withSecret, metav1.CreateOptions{})
	wantForbidden(t, err, `node "nr1" can not create pods that reference secrets`)
	m, err := pods.Create(ctx, mirror("static-web", "nr1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a mirror pod of its own: %v", err)
	}
	if m.Spec.ServiceAccountName != "" || len(m.Spec.Volumes) != 0 {
		t.Errorf("a mirror pod got a service account: %+v", m.Spec)
	}

	// Pods of other nodes: no eviction, no token; its own: both.
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "mine"}, Spec: corev1.PodSpec{NodeName: "nr1", ServiceAccountName: "mine-sa", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "theirs"}, Spec: corev1.PodSpec{NodeName: "nr2", ServiceAccountName: "theirs-sa", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
	} {
		if _, err := c.admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: p.Spec.ServiceAccountName}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mine, err := c.admin.CoreV1().Pods(ns).Get(ctx, "mine", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = pods.Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: ns}})
	wantForbidden(t, err, "node nr1 can only evict pods with spec.nodeName set to itself")

	token := func(cs *typed.Clientset, sa string, ref *authenticationv1.BoundObjectReference) error {
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: ref}}
		return cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("serviceaccounts").Name(sa).SubResource("token").Body(tr).Do(ctx).Into(&authenticationv1.TokenRequest{})
	}
	podRef := func(p *corev1.Pod) *authenticationv1.BoundObjectReference {
		return &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID}
	}
	eventually(t, "a token bound to its own pod", func() error { return token(kubelet, "mine-sa", podRef(mine)) })
	wantForbidden(t, token(kubelet, "mine-sa", nil), `serviceaccounts "mine-sa" is forbidden: node requested token not bound to a pod`)
	wantForbidden(t, token(kubelet, "mine-sa", &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: "mine"}),
		"node requested token with a pod binding without a uid")
	wantForbidden(t, token(kubelet, "theirs-sa", &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: "theirs", UID: "x"}),
		"no relationship found between node 'nr1' and this object")

	if err := pods.Delete(ctx, "theirs", metav1.DeleteOptions{}); err == nil {
		t.Error("deleted another node's pod")
	}
	if err := pods.Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: ns}}); err != nil {
		t.Errorf("evict its own pod: %v", err)
	}
	if err := pods.Delete(ctx, "static-web", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete its mirror pod: %v", err)
	}
}
