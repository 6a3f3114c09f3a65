package matching

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

func rule(ops []admissionregistrationv1.OperationType, groups, versions, resources []string, scope admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
	r := admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources}}
	if scope != "" {
		r.Scope = &scope
	}
	return r
}

var (
	all    = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	create = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	star   = []string{"*"}
	core   = []string{""}
	v1     = []string{"v1"}
)

func podAttrs(op rest.Operation, sub string) *rest.Attributes {
	return &rest.Attributes{Operation: op, Resource: corev1.SchemeGroupVersion.WithResource("pods"), Subresource: sub,
		Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Namespace: "ns", Name: "p"}
}

func TestRuleMatches(t *testing.T) {
	nsAttrs := &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Name: "x", Namespace: "x"}
	for _, tc := range []struct {
		name string
		r    admissionregistrationv1.RuleWithOperations
		a    *rest.Attributes
		want bool
	}{
		{"all", rule(all, star, star, star, ""), podAttrs(rest.OperationCreate, ""), true},
		{"star is no subresource", rule(all, star, star, star, ""), podAttrs(rest.OperationUpdate, "status"), false},
		{"star/star", rule(all, star, star, []string{"*/*"}, ""), podAttrs(rest.OperationUpdate, "status"), true},
		{"pods/status", rule(all, core, v1, []string{"pods/status"}, ""), podAttrs(rest.OperationUpdate, "status"), true},
		{"pods/status not pods", rule(all, core, v1, []string{"pods/status"}, ""), podAttrs(rest.OperationUpdate, ""), false},
		{"pods/*", rule(all, core, v1, []string{"pods/*"}, ""), podAttrs(rest.OperationUpdate, "binding"), true},
		{"*/status", rule(all, core, v1, []string{"*/status"}, ""), podAttrs(rest.OperationUpdate, "status"), true},
		{"operation", rule(create, star, star, star, ""), podAttrs(rest.OperationDelete, ""), false},
		{"group", rule(all, []string{"apps"}, star, star, ""), podAttrs(rest.OperationCreate, ""), false},
		{"version", rule(all, star, []string{"v2"}, star, ""), podAttrs(rest.OperationCreate, ""), false},
		{"namespaced", rule(all, star, star, star, admissionregistrationv1.NamespacedScope), podAttrs(rest.OperationCreate, ""), true},
		{"cluster scope refuses pods", rule(all, star, star, star, admissionregistrationv1.ClusterScope), podAttrs(rest.OperationCreate, ""), false},
		{"namespace is cluster-scoped", rule(all, star, star, star, admissionregistrationv1.ClusterScope), nsAttrs, true},
		{"namespace is not namespaced", rule(all, star, star, star, admissionregistrationv1.NamespacedScope), nsAttrs, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RuleMatches(tc.r, tc.a, tc.a.Resource); got != tc.want {
				t.Errorf("RuleMatches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMatchPolicyAndExclusions(t *testing.T) {
	// A rule for a version kubecore does not serve matches only under
	// Equivalent, where the write is seen as the served version.
	a := &rest.Attributes{Operation: rest.OperationCreate, Resource: appsv1.SchemeGroupVersion.WithResource("deployments"), Kind: appsv1.SchemeGroupVersion.WithKind("Deployment"), Namespace: "ns", Name: "d"}
	eq := func(gvr schema.GroupVersionResource) []schema.GroupVersionResource {
		if gvr.GroupResource() == appsv1.Resource("deployments") {
			return []schema.GroupVersionResource{appsv1.SchemeGroupVersion.WithResource("deployments"), {Group: "apps", Version: "v1beta2", Resource: "deployments"}}
		}
		return nil
	}
	rules := WebhookRules([]admissionregistrationv1.RuleWithOperations{rule(all, []string{"apps"}, []string{"v1beta2"}, []string{"deployments"}, "")})
	exact := admissionregistrationv1.Exact
	m, err := NewMatcher(Criteria{Rules: rules, MatchPolicy: &exact})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.MatchesResource(a, eq); ok {
		t.Error("Exact matched another version")
	}
	m, _ = NewMatcher(Criteria{Rules: rules})
	match, ok := m.MatchesResource(a, eq)
	if !ok || match.Resource.Version != "v1beta2" || match.Kind.Version != "v1beta2" {
		t.Errorf("Equivalent: got %+v %v", match, ok)
	}
	m, _ = NewMatcher(Criteria{Rules: WebhookRules([]admissionregistrationv1.RuleWithOperations{rule(all, star, star, star, "")}),
		ExcludeRules: []admissionregistrationv1.NamedRuleWithOperations{{ResourceNames: []string{"d"}, RuleWithOperations: rule(all, []string{"apps"}, star, []string{"deployments"}, "")}}})
	if _, ok := m.MatchesResource(a, eq); ok {
		t.Error("excluded resource name matched")
	}
	a.Name = "other"
	if _, ok := m.MatchesResource(a, eq); !ok {
		t.Error("a name not excluded did not match")
	}
}

type namespaceMap map[string]*corev1.Namespace

func (n namespaceMap) Namespace(_ context.Context, name string) (*corev1.Namespace, error) {
	return n[name], nil
}

func TestSelectors(t *testing.T) {
	nss := namespaceMap{"ns": {ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"env": "prod"}}}}
	m, err := NewMatcher(Criteria{
		Rules:             WebhookRules([]admissionregistrationv1.RuleWithOperations{rule(all, star, star, star, "")}),
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
		ObjectSelector:    &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "skip", Operator: metav1.LabelSelectorOpDoesNotExist}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pod := func(ns string, labels map[string]string) *rest.Attributes {
		a := podAttrs(rest.OperationCreate, "")
		a.Namespace = ns
		a.Object = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, Labels: labels}}
		return a
	}
	nsObj := func(labels map[string]string) *rest.Attributes {
		return &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Name: "new",
			Object: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: labels}}}
	}
	node := &rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("nodes"), Name: "n", Object: &corev1.Node{}}
	for _, tc := range []struct {
		name string
		a    *rest.Attributes
		want bool
	}{
		{"selected namespace", pod("ns", nil), true},
		{"object selector excludes", pod("ns", map[string]string{"skip": "1"}), false},
		{"namespace by its own labels", nsObj(map[string]string{"env": "prod"}), true},
		{"namespace without the label", nsObj(nil), false},
		{"cluster-scoped always", node, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := m.Matches(ctx, tc.a, nil, nss)
			if err != nil || got != tc.want {
				t.Errorf("Matches = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	// An update matches when the old object is selected.
	a := pod("ns", map[string]string{"skip": "1"})
	a.Operation, a.OldObject = rest.OperationUpdate, &corev1.Pod{}
	if !m.MatchesObject(a) {
		t.Error("old object's labels not considered")
	}
	if _, _, err := m.Matches(ctx, pod("missing", nil), nil, nss); err == nil {
		t.Error("a missing namespace was no error")
	}
}

func TestRequestAndConditions(t *testing.T) {
	ctx := apirequest.WithUser(apirequest.WithNamespace(context.Background(), "ns"), &apirequest.UserInfo{Name: "alice", Groups: []string{"dev"}})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "web"}}}
	a := rest.NewAttributes(ctx, rest.OperationCreate, corev1.Resource("pods"), "", corev1.SchemeGroupVersion.WithKind("Pod").GroupKind(), "p", pod, nil, true, &metav1.CreateOptions{})
	a.Resource.Version, a.Kind.Version = "v1", "v1"
	req, err := NewRequest(a, Match{Resource: a.Resource, Kind: a.Kind})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(admissionv1.AdmissionReview{Request: req})
	var got struct {
		Request struct {
			UID       string
			Kind      map[string]string
			Resource  map[string]string
			Namespace string
			Operation string
			DryRun    bool
			UserInfo  struct{ Username string }
			Object    struct{ APIVersion, Kind string }
			Options   struct{ Kind string }
			OldObject any
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	r := got.Request
	if r.UID == "" || r.Kind["kind"] != "Pod" || r.Resource["resource"] != "pods" || r.Namespace != "ns" || r.Operation != "CREATE" ||
		!r.DryRun || r.UserInfo.Username != "alice" || r.Object.Kind != "Pod" || r.Object.APIVersion != "v1" || r.Options.Kind != "CreateOptions" || r.OldObject != nil {
		t.Errorf("request: %s", b)
	}
	if pod.Kind != "" {
		t.Error("the object itself was changed")
	}

	env, err := ConditionsEnv()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CompileConditions(env, []admissionregistrationv1.MatchCondition{{Name: "bad", Expression: "object.("}}); err == nil {
		t.Error("a bad expression compiled")
	}
	for _, tc := range []struct {
		exprs   []string
		want    bool
		wantErr bool
	}{
		{[]string{"object.metadata.labels.app == 'web'", "request.userInfo.username == 'alice'"}, true, false},
		{[]string{"oldObject == null", "request.operation == 'UPDATE'"}, false, false},
		{[]string{"object.metadata.missing == 1"}, false, true},
		{[]string{"object.metadata.missing == 1", "false"}, false, false},
	} {
		var mcs []admissionregistrationv1.MatchCondition
		for i, e := range tc.exprs {
			mcs = append(mcs, admissionregistrationv1.MatchCondition{Name: string(rune('a' + i)), Expression: e})
		}
		c, err := CompileConditions(env, mcs)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := c.Evaluate(req)
		if ok != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%v: got %v, %v", tc.exprs, ok, err)
		}
	}
}
