package validation

import (
	"strings"
	"testing"

	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	alice := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}
	tests := []struct {
		name string
		errs field.ErrorList
		want string // "" for valid; else a substring of the errors
	}{
		{"role with colons in its name", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:node"},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}), ""},
		{"name with a slash", ValidateClusterRole(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "a/b"}}), "metadata.name: Invalid value: \"a/b\": may not contain '/'"},
		{"rule without verbs", ValidateRole(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}}), "rules[0].verbs: Required value"},
		{"namespaced non-resource URL", ValidateRole(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}}), "namespaced rules cannot apply to non-resource URLs"},
		{"role without namespace", ValidateRole(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}}), "metadata.namespace: Required value"},
		{"binding", ValidateRoleBinding(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}, RoleRef: ref, Subjects: []rbacv1.Subject{alice}}), ""},
		{"cluster binding to a Role", ValidateClusterRoleBinding(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}}), `roleRef.kind: Unsupported value: "Role"`},
		{"service account without namespace in a cluster binding", ValidateClusterRoleBinding(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, RoleRef: ref,
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default"}}}), "subjects[0].namespace: Required value"},
		{"unknown subject kind", ValidateRoleBinding(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}, RoleRef: ref,
			Subjects: []rbacv1.Subject{{Kind: "Robot", Name: "x"}}}), `subjects[0].kind: Unsupported value: "Robot"`},
		{"roleRef change", ValidateRoleRefUpdate(ref, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"}), "cannot change roleRef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.errs.ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("unexpected errors: %v", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Errorf("errors %v, want one with %q", got, tt.want)
			}
		})
	}
}
