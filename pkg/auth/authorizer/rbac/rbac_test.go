package rbac

import (
	"context"
	"errors"
	"testing"

	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authorizer"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
)

// fakeSource holds RBAC objects in memory.
type fakeSource struct {
	crbs  []*rbacv1.ClusterRoleBinding
	rbs   []*rbacv1.RoleBinding
	roles map[string]*rbacv1.Role // namespace/name
	crs   map[string]*rbacv1.ClusterRole
	err   error
}

func (f *fakeSource) ClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return f.crbs, f.err
}

func (f *fakeSource) RoleBindings(_ context.Context, ns string) ([]*rbacv1.RoleBinding, error) {
	var out []*rbacv1.RoleBinding
	for _, b := range f.rbs {
		if b.Namespace == ns {
			out = append(out, b)
		}
	}
	return out, nil
}

func (f *fakeSource) ClusterRole(_ context.Context, name string) (*rbacv1.ClusterRole, error) {
	return f.crs[name], nil
}

func (f *fakeSource) Role(_ context.Context, ns, name string) (*rbacv1.Role, error) {
	return f.roles[ns+"/"+name], nil
}

// defaults is a source with the bootstrap policy plus extra objects.
func defaults() *fakeSource {
	f := &fakeSource{roles: map[string]*rbacv1.Role{}, crs: map[string]*rbacv1.ClusterRole{}}
	for _, r := range bootstrappolicy.ClusterRoles() {
		f.crs[r.Name] = &r
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		f.crbs = append(f.crbs, &b)
	}
	return f
}

func res(verb, group, resource, sub, ns, name string) *apirequest.RequestInfo {
	return &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func path(verb, p string) *apirequest.RequestInfo {
	return &apirequest.RequestInfo{Verb: verb, Path: p}
}

func TestRuleAllows(t *testing.T) {
	podsGet := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	named := rbacv1.PolicyRule{Verbs: []string{"get", "update"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"cfg"}}
	scale := rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}
	health := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/apis/*"}}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		req  *apirequest.RequestInfo
		want bool
	}{
		{"exact", podsGet, res("get", "", "pods", "", "ns", "p"), true},
		{"other verb", podsGet, res("list", "", "pods", "", "ns", ""), false},
		{"other group", podsGet, res("get", "apps", "pods", "", "ns", "p"), false},
		{"resource does not cover its subresource", podsGet, res("get", "", "pods", "log", "ns", "p"), false},
		{"named object", named, res("get", "", "configmaps", "", "ns", "cfg"), true},
		{"other name", named, res("get", "", "configmaps", "", "ns", "other"), false},
		{"resourceNames never allow a list", named, res("list", "", "configmaps", "", "ns", ""), false},
		{"*/scale", scale, res("update", "apps", "deployments", "scale", "ns", "d"), true},
		{"*/scale not the resource", scale, res("update", "apps", "deployments", "", "ns", "d"), false},
		{"non-resource exact", health, path("get", "/healthz"), true},
		{"non-resource prefix", health, path("get", "/apis/apps/v1"), true},
		{"non-resource other", health, path("get", "/metrics"), false},
		{"resource rule never covers a path", podsGet, path("get", "/api"), false},
		{"path rule never covers a resource", health, res("get", "", "pods", "", "ns", "p"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RuleAllows(&tt.rule, tt.req); got != tt.want {
				t.Errorf("RuleAllows = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAuthorize(t *testing.T) {
	src := defaults()
	src.crbs = append(src.crbs, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "ops-view"},
		RoleRef:    rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "ops"}},
	})
	src.rbs = []*rbacv1.RoleBinding{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "alice-edit"},
			RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "edit"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "robot"},
			RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "cm-reader"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "robot"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "dangling"},
			RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "missing"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "bob"}}},
	}
	src.roles["dev/cm-reader"] = &rbacv1.Role{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}}
	z := &Authorizer{Source: src}

	u := func(name string, groups ...string) *apirequest.UserInfo {
		return &apirequest.UserInfo{Name: name, Groups: append(groups, "system:authenticated")}
	}
	tests := []struct {
		name string
		user *apirequest.UserInfo
		req  *apirequest.RequestInfo
		want authorizer.Decision
	}{
		{"alice edits pods in dev", u("alice"), res("create", "", "pods", "", "dev", ""), authorizer.Allow},
		{"alice reads secrets in dev", u("alice"), res("get", "", "secrets", "", "dev", "s"), authorizer.Allow},
		{"alice cannot touch roles in dev", u("alice"), res("create", "rbac.authorization.k8s.io", "rolebindings", "", "dev", ""), authorizer.NoOpinion},
		{"alice has nothing in prod", u("alice"), res("get", "", "pods", "", "prod", "p"), authorizer.NoOpinion},
		{"alice cannot list pods everywhere", u("alice"), res("list", "", "pods", "", "", ""), authorizer.NoOpinion},
		{"ops views pods everywhere", u("carol", "ops"), res("list", "", "pods", "", "", ""), authorizer.Allow},
		{"ops cannot read secrets", u("carol", "ops"), res("get", "", "secrets", "", "dev", "s"), authorizer.NoOpinion},
		{"ops cannot delete", u("carol", "ops"), res("delete", "apps", "deployments", "", "dev", "d"), authorizer.NoOpinion},
		{"service account by its binding's namespace", u("system:serviceaccount:dev:robot"), res("get", "", "configmaps", "", "dev", "c"), authorizer.Allow},
		{"same service account name elsewhere", u("system:serviceaccount:prod:robot"), res("get", "", "configmaps", "", "dev", "c"), authorizer.NoOpinion},
		{"binding to a missing role grants nothing", u("bob"), res("get", "", "pods", "", "dev", "p"), authorizer.NoOpinion},
		{"everyone may ask can-i", u("bob"), res("create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), authorizer.Allow},
		{"everyone may discover", u("bob"), path("get", "/apis/apps/v1"), authorizer.Allow},
		{"nobody may read metrics by default", u("bob"), path("get", "/metrics"), authorizer.NoOpinion},
		{"scheduler binds pods", u(bootstrappolicy.SchedulerUser), res("create", "", "pods", "binding", "dev", "p"), authorizer.Allow},
		{"scheduler reads no secrets", u(bootstrappolicy.SchedulerUser), res("get", "", "secrets", "", "dev", "s"), authorizer.NoOpinion},
		{"disruption controller writes budget status", u("system:serviceaccount:kube-system:disruption-controller"), res("update", "policy", "poddisruptionbudgets", "status", "dev", "pdb"), authorizer.Allow},
		{"disruption controller reads any scale", u("system:serviceaccount:kube-system:disruption-controller"), res("get", "example.com", "widgets", "scale", "dev", "w"), authorizer.Allow},
		{"disruption controller deletes no pods", u("system:serviceaccount:kube-system:disruption-controller"), res("delete", "", "pods", "", "dev", "p"), authorizer.NoOpinion},
		{"masters via the cluster-admin binding", u("root", bootstrappolicy.MastersGroup), res("delete", "", "nodes", "", "", "n"), authorizer.Allow},
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
		})
	}

	rules, err := z.RulesFor(context.Background(), u("alice"), "dev")
	if err != nil || len(rules) == 0 {
		t.Errorf("RulesFor alice in dev: %d rules, %v", len(rules), err)
	}
}

// A source that fails still lets other bindings allow; the error comes
// back only when nothing allowed.
func TestSourceErrors(t *testing.T) {
	src := defaults()
	src.err = errors.New("cache not ready")
	z := &Authorizer{Source: src}
	d, _, err := z.Authorize(context.Background(), authorizer.Attributes{
		User:    &apirequest.UserInfo{Name: "x", Groups: []string{"system:authenticated"}},
		Request: res("get", "", "pods", "", "ns", "p"),
	})
	if d != authorizer.NoOpinion || err == nil {
		t.Errorf("decision %v, err %v; want NoOpinion and the error", d, err)
	}
}

func TestForbiddenMessage(t *testing.T) {
	a := authorizer.Attributes{User: &apirequest.UserInfo{Name: "bob"}, Request: res("list", "", "pods", "", "default", "")}
	if got, want := authorizer.ForbiddenMessage(a), `User "bob" cannot list resource "pods" in API group "" in the namespace "default"`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	a.Request = res("patch", "", "nodes", "status", "", "n2")
	if got, want := authorizer.ForbiddenMessage(a), `User "bob" cannot patch resource "nodes/status" in API group "" at the cluster scope`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	a.Request = path("get", "/metrics")
	if got, want := authorizer.ForbiddenMessage(a), `User "bob" cannot get path "/metrics"`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
