package v1

import (
	"testing"

	rbacv1 "kubecore.io/api/rbac/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/rbac/validation"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func subjects() []rbacv1.Subject {
	return []rbacv1.Subject{
		{Kind: rbacv1.UserKind, Name: "alice"},
		{Kind: rbacv1.GroupKind, Name: "devs"},
		{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: "ns"},
		{Kind: rbacv1.UserKind, Name: "bob", APIGroup: "example.com"},
	}
}

func checkSubjects(t *testing.T, got []rbacv1.Subject) {
	t.Helper()
	want := []string{rbacv1.GroupName, rbacv1.GroupName, "", "example.com"}
	for i, s := range got {
		if s.APIGroup != want[i] {
			t.Errorf("subjects[%d] (%s %s): apiGroup %q, want %q", i, s.Kind, s.Name, s.APIGroup, want[i])
		}
	}
}

func TestRoleBindingDefaults(t *testing.T) {
	s := newScheme(t)
	b := &rbacv1.RoleBinding{
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "reader"},
		Subjects: subjects(),
	}
	b.Name, b.Namespace = "rb", "ns"
	s.Default(b)
	if b.RoleRef.APIGroup != rbacv1.GroupName {
		t.Errorf("roleRef.apiGroup %q, want %q", b.RoleRef.APIGroup, rbacv1.GroupName)
	}
	checkSubjects(t, b.Subjects)

	// A defaulted binding of the usual kinds passes validation, which
	// refuses the empty group that the defaults replace.
	b.Subjects = b.Subjects[:3]
	if errs := validation.ValidateRoleBinding(b); len(errs) > 0 {
		t.Errorf("defaulted RoleBinding invalid: %v", errs)
	}
}

func TestClusterRoleBindingDefaults(t *testing.T) {
	s := newScheme(t)
	b := &rbacv1.ClusterRoleBinding{
		RoleRef:  rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects: subjects(),
	}
	b.Name = "crb"
	s.Default(b)
	if b.RoleRef.APIGroup != rbacv1.GroupName {
		t.Errorf("roleRef.apiGroup %q, want %q", b.RoleRef.APIGroup, rbacv1.GroupName)
	}
	checkSubjects(t, b.Subjects)
	b.Subjects = b.Subjects[:3]
	if errs := validation.ValidateClusterRoleBinding(b); len(errs) > 0 {
		t.Errorf("defaulted ClusterRoleBinding invalid: %v", errs)
	}
}

func TestExplicitRoleRefGroupKept(t *testing.T) {
	s := newScheme(t)
	b := &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: "example.com", Kind: "Role", Name: "r"}}
	s.Default(b)
	if b.RoleRef.APIGroup != "example.com" {
		t.Errorf("explicit roleRef.apiGroup overwritten with %q", b.RoleRef.APIGroup)
	}
}
