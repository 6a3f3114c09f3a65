package auth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "kubecore.io/api/authorization/v1"
	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/rest"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/integration/framework"
)

// clients of one server: the admin, users by static token, and clients by
// certificates the cluster CA signed.
type clients struct {
	t     *testing.T
	s     *framework.APIServer
	admin *typed.Clientset
}

func startWithTokens(t *testing.T, lines ...string) *clients {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, TokenAuthFile: file})
	return &clients{t: t, s: s, admin: s.Clientset(t)}
}

// withToken is a client presenting a bearer token and no certificate.
func (c *clients) withToken(token string) *typed.Clientset {
	c.t.Helper()
	rc := rest.CopyConfig(c.s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = nil, nil
	rc.TLSClientConfig.CertFile, rc.TLSClientConfig.KeyFile = "", ""
	rc.BearerToken = token
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		c.t.Fatal(err)
	}
	return cs
}

// withCert is a client with a certificate for user cn in groups.
func (c *clients) withCert(name, cn string, groups ...string) *typed.Clientset {
	c.t.Helper()
	hosts, _ := pki.DefaultHosts("127.0.0.1")
	b, err := pki.EnsureServing(filepath.Join(c.s.DataDir, "pki"), pki.Options{Hosts: hosts})
	if err != nil {
		c.t.Fatal(err)
	}
	kp, err := b.EnsureClientCert(name, cn, groups)
	if err != nil {
		c.t.Fatal(err)
	}
	key, _ := kp.KeyPEM()
	rc := rest.CopyConfig(c.s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = kp.CertPEM(), key
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		c.t.Fatal(err)
	}
	return cs
}

func wantForbidden(t *testing.T, err error, msg string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want 403 Forbidden", err)
	}
	if msg != "" && !strings.Contains(err.Error(), msg) {
		t.Errorf("message %q, want it to contain %q", err.Error(), msg)
	}
}

// eventually retries f until it succeeds: the authorizer reads RBAC
// objects from the watch cache, which trails a write by a moment.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRBAC(t *testing.T) {
	c := startWithTokens(t, `bob-token,bob,uid-bob,"devs"`, `eve-token,eve,uid-eve`)
	ctx := context.Background()
	ns := c.s.CreateNamespace(t, "rbac")
	bob := c.withToken("bob-token")

	_, err := bob.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	wantForbidden(t, err, fmt.Sprintf(`pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "%s"`, ns))
	_, err = bob.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	wantForbidden(t, err, `nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope`)

	// The group devs gets edit in the namespace.
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "devs-edit"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "devs"}}}
	if _, err := c.admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"k": "v"}}
	eventually(t, "bob creates a config map once bound to edit", func() error {
		_, err := bob.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
	_, err = bob.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "self-admin"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"}}, metav1.CreateOptions{})
	wantForbidden(t, err, "cannot create resource \"rolebindings\"")
	_, err = c.withToken("eve-token").CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
	wantForbidden(t, err, `configmaps "settings" is forbidden: User "eve"`)

	// Access reviews: for bob as the admin asks, and for themselves.
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "bob", Groups: []string{"devs"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "configmaps"}}}
	got, err := c.admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil || !got.Status.Allowed {
		t.Errorf("SubjectAccessReview for bob: %+v, %v", got, err)
	}
	ssar := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "secrets"}}}
	for user, want := range map[string]bool{"bob-token": true, "eve-token": false} {
		got, err := c.withToken(user).AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, ssar, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("%s: can-i get secrets: %v", user, err)
		} else if got.Status.Allowed != want {
			t.Errorf("%s: can-i get secrets = %+v; want %v", user, got.Status, want)
		}
	}
	rules, err := bob.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
	if err != nil || len(rules.Status.ResourceRules) == 0 {
		t.Errorf("rules review: %+v, %v", rules, err)
	}
	_, err = bob.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	wantForbidden(t, err, "subjectaccessreviews")

	// A token nobody knows is 401, not anonymous.
	_, err = c.withToken("nope").CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("unknown token: %v, want 401", err)
	}
}

func TestImpersonation(t *testing.T) {
	c := startWithTokens(t, `bob-token,bob,uid-bob`)
	ctx := context.Background()
	ns := c.s.CreateNamespace(t, "imp")
	as := func(base *rest.Config, user string, groups ...string) *typed.Clientset {
		rc := rest.CopyConfig(base)
		rc.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
		cs, err := typed.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// The admin acting as alice has alice's rights: none.
	_, err := as(c.s.Config, "alice").CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	wantForbidden(t, err, `User "alice" cannot list resource "pods"`)
	// ...and as a member of system:masters, everything.
	if _, err := as(c.s.Config, "alice", "system:masters").CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("impersonating system:masters: %v", err)
	}
	// bob may not impersonate.
	bobCfg := rest.CopyConfig(c.s.Config)
	bobCfg.TLSClientConfig.CertData, bobCfg.TLSClientConfig.KeyData = nil, nil
	bobCfg.BearerToken = "bob-token"
	_, err = as(bobCfg, "alice").CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	wantForbidden(t, err, `users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope`)
}

func TestNodeAuthorizer(t *testing.T) {
	c := startWithTokens(t)
	ctx := context.Background()
	for _, name := range []string{"n1", "n2"} {
		if _, err := c.admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ns := c.s.CreateNamespace(t, "node")
	for _, s := range []string{"mine", "theirs"} {
		if _, err := c.admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: s}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(name, node, secret string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node,
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}}}}
	}
	for _, p := range []*corev1.Pod{pod("on-n1", "n1", "mine"), pod("on-n2", "n2", "theirs")} {
		if _, err := c.admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kubelet := c.withCert("kubelet-n1", "system:node:n1", "system:nodes")

	patch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
	if _, err := kubelet.CoreV1().Nodes().Patch(ctx, "n1", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Errorf("patch own node: %v", err)
	}
	_, err := kubelet.CoreV1().Nodes().Patch(ctx, "n2", types.MergePatchType, patch, metav1.PatchOptions{})
	wantForbidden(t, err, `nodes "n2" is forbidden: User "system:node:n1" cannot patch resource "nodes" in API group "" at the cluster scope: node 'n1' cannot modify node 'n2'`)

	eventually(t, "read the secret of its own pod", func() error {
		_, err := kubelet.CoreV1().Secrets(ns).Get(ctx, "mine", metav1.GetOptions{})
		return err
	})
	_, err = kubelet.CoreV1().Secrets(ns).Get(ctx, "theirs", metav1.GetOptions{})
	wantForbidden(t, err, "no relationship found between node 'n1' and this object")
	if _, err := kubelet.CoreV1().Pods(ns).Patch(ctx, "on-n2", types.MergePatchType, []byte(`{"status":{"message":"x"}}`), metav1.PatchOptions{}, "status"); !apierrors.IsForbidden(err) {
		t.Errorf("patch status of another node's pod: %v, want 403", err)
	}
	if _, err := kubelet.CoreV1().Pods(ns).Patch(ctx, "on-n1", types.MergePatchType, []byte(`{"status":{"message":"x"}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Errorf("patch status of its own pod: %v", err)
	}
	// A certificate from another CA is not a node, nor anyone.
	other := t.TempDir()
	hosts, _ := pki.DefaultHosts("127.0.0.1")
	ob, err := pki.EnsureServing(other, pki.Options{Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := ob.EnsureClientCert("kubelet-n1", "system:node:n1", []string{"system:nodes"})
	key, _ := kp.KeyPEM()
	rc := rest.CopyConfig(c.s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = kp.CertPEM(), key
	forged, _ := typed.NewForConfig(rc)
	if _, err := forged.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{}); err == nil || !apierrors.IsUnauthorized(err) && !strings.Contains(err.Error(), "certificate") {
		t.Errorf("certificate of another CA: %v, want 401 or a TLS refusal", err)
	}
}
