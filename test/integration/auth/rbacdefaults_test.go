package auth

import (
	"context"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// TestRBACDefaultsEmptyAPIGroups: bindings whose roleRef and subjects leave
// apiGroup empty (as the upstream e2e suite writes them) are accepted, stored
// with the groups Kubernetes' rbac/v1 defaults give, and grant access.
func TestRBACDefaultsEmptyAPIGroups(t *testing.T) {
	c := startWithTokens(t, `carol-token,carol,uid-carol`, `dave-token,dave,uid-dave,"ops"`)
	ctx := context.Background()
	ns := c.s.CreateNamespace(t, "rbacdefaults")

	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "carol-view"},
		RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.UserKind, Name: "carol"},
			{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: ns},
		}}
	if _, err := c.admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create RoleBinding with empty apiGroups: %v", err)
	}
	got, err := c.admin.RbacV1().RoleBindings(ns).Get(ctx, rb.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.RoleRef.APIGroup != rbacv1.GroupName {
		t.Errorf("stored roleRef.apiGroup %q, want %q", got.RoleRef.APIGroup, rbacv1.GroupName)
	}
	if g := got.Subjects[0].APIGroup; g != rbacv1.GroupName {
		t.Errorf("stored User subject apiGroup %q, want %q", g, rbacv1.GroupName)
	}
	if g := got.Subjects[1].APIGroup; g != "" {
		t.Errorf("stored ServiceAccount subject apiGroup %q, want \"\"", g)
	}

	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-ops-view"},
		RoleRef:  rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "ops"}}}
	gotCRB, err := c.admin.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create ClusterRoleBinding with empty apiGroups: %v", err)
	}
	t.Cleanup(func() {
		_ = c.admin.RbacV1().ClusterRoleBindings().Delete(context.Background(), crb.Name, metav1.DeleteOptions{})
	})
	if gotCRB.RoleRef.APIGroup != rbacv1.GroupName || gotCRB.Subjects[0].APIGroup != rbacv1.GroupName {
		t.Errorf("ClusterRoleBinding answered with roleRef %+v, subjects %+v; want the rbac group in both", gotCRB.RoleRef, gotCRB.Subjects)
	}

	// The defaulted bindings are the ones the authorizer honours.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seen"}}
	if _, err := c.admin.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"carol-token", "dave-token"} {
		eventually(t, token+" reads a config map through a defaulted binding", func() error {
			_, err := c.withToken(token).CoreV1().ConfigMaps(ns).Get(ctx, cm.Name, metav1.GetOptions{})
			return err
		})
	}

	// A kind the defaults do not know keeps its empty group and is refused.
	bad := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"},
		RoleRef:  rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: "Robot", Name: "r2"}}}
	_, err = c.admin.RbacV1().RoleBindings(ns).Create(ctx, bad, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `subjects[0].kind: Unsupported value: "Robot"`) {
		t.Errorf("RoleBinding with subject kind Robot: %v, want 422 on subjects[0].kind", err)
	}
}
