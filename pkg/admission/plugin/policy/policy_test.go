package policy

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	ktypes "kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// fakeObjects serves policies, bindings and namespaces from memory.
type fakeObjects struct {
	vaps     []*admissionregistrationv1.ValidatingAdmissionPolicy
	vapbs    []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	maps     []*admissionregistrationv1.MutatingAdmissionPolicy
	mapbs    []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	ns       map[string]*corev1.Namespace
	params   map[string]runtime.Object
	lists    int
	paramsNS bool
}

var (
	_ Objects = (*fakeObjects)(nil)
	_ Params  = (*fakeObjects)(nil)
)

func (f *fakeObjects) ValidatingAdmissionPolicies(context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
	return f.vaps, nil
}

func (f *fakeObjects) ValidatingAdmissionPolicyBindings(context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	f.lists++
	return append([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding(nil), f.vapbs...), nil
}

func (f *fakeObjects) MutatingAdmissionPolicies(context.Context) ([]*admissionregistrationv1.MutatingAdmissionPolicy, error) {
	return f.maps, nil
}

func (f *fakeObjects) MutatingAdmissionPolicyBindings(context.Context) ([]*admissionregistrationv1.MutatingAdmissionPolicyBinding, error) {
	return append([]*admissionregistrationv1.MutatingAdmissionPolicyBinding(nil), f.mapbs...), nil
}

func (f *fakeObjects) Namespace(_ context.Context, name string) (*corev1.Namespace, error) {
	return f.ns[name], nil
}

func (f *fakeObjects) Namespaced(schema.GroupVersionKind) (bool, error) { return f.paramsNS, nil }

func (f *fakeObjects) List(_ context.Context, _ schema.GroupVersionKind, namespace, name string, sel labels.Selector) ([]runtime.Object, error) {
	if name != "" {
		if o, ok := f.params[namespace+"/"+name]; ok {
			return []runtime.Object{o}, nil
		}
		return nil, nil
	}
	var out []runtime.Object
	for _, o := range f.params {
		if cm, ok := o.(*corev1.ConfigMap); ok && sel.Matches(labels.Set(cm.Labels)) {
			out = append(out, o)
		}
	}
	return out, nil
}

func podRule() admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
}

func vap(name, rv string, validations ...admissionregistrationv1.Validation) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: ktypes.UID("u-" + name), ResourceVersion: rv},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{podRule()}},
			Validations:      validations,
		},
	}
}

func vapb(name, policy string, actions ...admissionregistrationv1.ValidationAction) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: actions}}
}

func configMapCreate(cm *corev1.ConfigMap) *rest.Attributes {
	return &rest.Attributes{Operation: rest.OperationCreate, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		Resource: corev1.SchemeGroupVersion.WithResource("configmaps"), Namespace: "ns", Name: cm.Name, Object: cm,
		UserInfo: &apirequest.UserInfo{Name: "alice", Groups: []string{"devs"}}}
}

func cm(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": "x"}}, Data: data}
}

func TestValidatingDecisions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		validation admissionregistrationv1.Validation
		fp         admissionregistrationv1.FailurePolicyType
		data       map[string]string
		wantCode   int32
		wantMsg    string
	}{
		{name: "allowed", validation: admissionregistrationv1.Validation{Expression: "object.data.size() < 2"}, data: map[string]string{"a": "1"}},
		{name: "default reason is Invalid", validation: admissionregistrationv1.Validation{Expression: "object.data.size() < 2"},
			data: map[string]string{"a": "1", "b": "2"}, wantCode: 422, wantMsg: "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.data.size() < 2"},
		{name: "reason Forbidden", validation: admissionregistrationv1.Validation{Expression: "false", Message: "no", Reason: new(metav1.StatusReasonForbidden)},
			wantCode: 403, wantMsg: "denied request: no"},
		{name: "messageExpression", validation: admissionregistrationv1.Validation{Expression: "false", Message: "static", MessageExpression: "'user ' + request.userInfo.username"},
			wantCode: 422, wantMsg: "denied request: user alice"},
		{name: "variables and request", validation: admissionregistrationv1.Validation{Expression: "variables.n == 1 && request.operation == 'CREATE' && 'devs' in request.userInfo.groups && namespaceObject.metadata.labels.env == 'prod'"},
			data: map[string]string{"a": "1"}},
		{name: "runtime error fails", validation: admissionregistrationv1.Validation{Expression: "object.data.nope == 'x'"}, data: map[string]string{"a": "1"},
			wantCode: 422, wantMsg: "expression 'object.data.nope == 'x'' resulted in error: no such key: nope"},
		{name: "runtime error ignored", validation: admissionregistrationv1.Validation{Expression: "object.data.nope == 'x'"}, fp: admissionregistrationv1.Ignore},
		{name: "compile error fails", validation: admissionregistrationv1.Validation{Expression: "object.data +"}, wantCode: 422, wantMsg: "compilation error"},
		{name: "non-bool fails", validation: admissionregistrationv1.Validation{Expression: "variables.n"}, data: map[string]string{"a": "1"}, wantCode: 422, wantMsg: "must evaluate to bool"},
		{name: "per-call cost limit", validation: admissionregistrationv1.Validation{Expression: "[0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, [0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, [0,1,2,3,4,5,6,7,8,9].all(f, a+b+c+d+e+f >= 0))))))"},
			wantCode: 422, wantMsg: "cost limit exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := vap("p", "1", tc.validation)
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "n", Expression: "size(object.data)"}, {Name: "broken", Expression: "1/0 == 1"}}
			if tc.fp != "" {
				p.Spec.FailurePolicy = &tc.fp
			}
			objs := &fakeObjects{vaps: []*admissionregistrationv1.ValidatingAdmissionPolicy{p}, vapbs: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{vapb("b", "p", admissionregistrationv1.Deny)},
				ns: map[string]*corev1.Namespace{"ns": {ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"env": "prod"}}}}}
			v, err := NewValidating(objs, objs, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = v.Validate(context.Background(), configMapCreate(cm("c", tc.data)))
			if tc.wantCode == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			se, ok := err.(*apierrors.StatusError)
			if !ok || se.ErrStatus.Code != tc.wantCode || !strings.Contains(se.ErrStatus.Message, tc.wantMsg) {
				t.Fatalf("got %v, want %d with %q", err, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

func TestValidatingWarnAndCompileOnce(t *testing.T) {
	objs := &fakeObjects{
		vaps:  []*admissionregistrationv1.ValidatingAdmissionPolicy{vap("p", "1", admissionregistrationv1.Validation{Expression: "object.data.size() == 0", Message: "empty only"})},
		vapbs: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{vapb("b", "p", admissionregistrationv1.Warn)},
	}
	v, err := NewValidating(objs, objs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	ctx := apirequest.WithWarningRecorder(context.Background(), func(m string) { warnings = append(warnings, m) })
	for range 5 {
		if err := v.Validate(ctx, configMapCreate(cm("c", map[string]string{"a": "1"}))); err != nil {
			t.Fatalf("Warn refused: %v", err)
		}
	}
	if len(warnings) != 5 || warnings[0] != "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': empty only" {
		t.Fatalf("warnings %q", warnings)
	}
	if v.Compiles() != 1 {
		t.Fatalf("compiled %d times for 5 requests, want 1", v.Compiles())
	}
	// A new resourceVersion is compiled again, once.
	objs.vaps[0] = vap("p", "2", admissionregistrationv1.Validation{Expression: "true"})
	for range 3 {
		_ = v.Validate(ctx, configMapCreate(cm("c", nil)))
	}
	if v.Compiles() != 2 {
		t.Fatalf("compiled %d times after one change, want 2", v.Compiles())
	}
}

func TestValidatingParams(t *testing.T) {
	p := vap("p", "1", admissionregistrationv1.Validation{Expression: "object.data.size() <= int(params.data.max)", MessageExpression: "'max is ' + params.data.max"})
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	allow := admissionregistrationv1.AllowAction
	for _, tc := range []struct {
		name    string
		ref     *admissionregistrationv1.ParamRef
		data    map[string]string
		wantErr string
	}{
		{name: "by name, in the request's namespace", ref: &admissionregistrationv1.ParamRef{Name: "one"}, data: map[string]string{"a": "1", "b": "2"}, wantErr: "max is 1"},
		{name: "by name, within", ref: &admissionregistrationv1.ParamRef{Name: "three"}, data: map[string]string{"a": "1", "b": "2"}},
		{name: "by selector: every match is evaluated", ref: &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"limit": "yes"}}},
			data: map[string]string{"a": "1", "b": "2"}, wantErr: "max is 1"},
		{name: "missing, Deny", ref: &admissionregistrationv1.ParamRef{Name: "nope"}, wantErr: "no params found"},
		{name: "missing, Allow", ref: &admissionregistrationv1.ParamRef{Name: "nope", ParameterNotFoundAction: &allow}},
		{name: "no paramRef", wantErr: "paramKind is set on the policy but the binding has no paramRef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := vapb("b", "p", admissionregistrationv1.Deny)
			b.Spec.ParamRef = tc.ref
			objs := &fakeObjects{vaps: []*admissionregistrationv1.ValidatingAdmissionPolicy{p}, vapbs: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{b}, paramsNS: true,
				params: map[string]runtime.Object{
					"ns/one":   &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one", Labels: map[string]string{"limit": "yes"}}, Data: map[string]string{"max": "1"}},
					"ns/three": &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "three", Labels: map[string]string{"limit": "yes"}}, Data: map[string]string{"max": "3"}},
				}}
			v, err := NewValidating(objs, objs, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = v.Validate(context.Background(), configMapCreate(cm("c", tc.data)))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestMatching(t *testing.T) {
	equivalent, exact := admissionregistrationv1.Equivalent, admissionregistrationv1.Exact
	rule := func(resources ...string) admissionregistrationv1.NamedRuleWithOperations {
		r := podRule()
		r.Resources = resources
		return r
	}
	for _, tc := range []struct {
		name string
		mr   admissionregistrationv1.MatchResources
		sub  string
		want bool
	}{
		{name: "resource", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("configmaps")}}, want: true},
		{name: "other resource", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("secrets")}}},
		{name: "star has no subresources", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("*")}}, sub: "status"},
		{name: "star slash star", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("*/*")}}, sub: "status", want: true},
		{name: "resource slash star", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("configmaps/*")}}, want: true},
		{name: "excluded", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("*")},
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("configmaps")}}},
		{name: "namespace selector", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("*")},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, want: true},
		{name: "namespace selector misses", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("*")},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}}},
		{name: "object selector misses", mr: admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("*")},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "y"}}}},
		{name: "Exact misses another version", mr: admissionregistrationv1.MatchResources{MatchPolicy: &exact, ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{func() admissionregistrationv1.NamedRuleWithOperations {
			r := rule("configmaps")
			r.APIVersions = []string{"v2"}
			return r
		}()}}},
		{name: "Equivalent matches another version", mr: admissionregistrationv1.MatchResources{MatchPolicy: &equivalent, ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{func() admissionregistrationv1.NamedRuleWithOperations {
			r := rule("configmaps")
			r.APIVersions = []string{"v2"}
			return r
		}()}}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := &fakeObjects{ns: map[string]*corev1.Namespace{"ns": {ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"env": "prod"}}}}}
			a := configMapCreate(cm("c", nil))
			a.Subresource = tc.sub
			eq := func(gvr schema.GroupVersionResource) []schema.GroupVersionResource {
				return []schema.GroupVersionResource{gvr.GroupResource().WithVersion("v1"), gvr.GroupResource().WithVersion("v2")}
			}
			_, got, err := newMatcher(&tc.mr, false).matches(context.Background(), a, eq, objs)
			if err != nil || got != tc.want {
				t.Fatalf("match = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestMutating(t *testing.T) {
	mp := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "m", UID: "u", ResourceVersion: "1"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{podRule()}},
			Mutations: []admissionregistrationv1.Mutation{
				{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"added": "1"}}}`}},
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{
					Expression: `[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}, JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("a/b"), value: string(size(object.metadata.labels))}]`}},
			},
		},
	}
	objs := &fakeObjects{maps: []*admissionregistrationv1.MutatingAdmissionPolicy{mp},
		mapbs: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{{ObjectMeta: metav1.ObjectMeta{Name: "mb"}, Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "m"}}}}
	m, err := NewMutating(objs, objs, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj := cm("c", map[string]string{"k": "v"})
	if err := m.Admit(context.Background(), configMapCreate(obj)); err != nil {
		t.Fatal(err)
	}
	if obj.Labels["added"] != "1" || obj.Labels["app"] != "x" || obj.Annotations["a/b"] != "2" || obj.Data["k"] != "v" {
		t.Fatalf("mutated object: labels %v annotations %v data %v", obj.Labels, obj.Annotations, obj.Data)
	}
	if obj.Kind != "" {
		t.Fatalf("the typed object got kind %q", obj.Kind)
	}

	// A failing mutation under Fail refuses.
	mp2 := mp.DeepCopy()
	mp2.ResourceVersion = "2"
	mp2.Spec.Mutations = []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{
		Expression: `[JSONPatch{op: "replace", path: "/spec/nothing", value: 1}]`}}}
	objs.maps[0] = mp2
	err = m.Admit(context.Background(), configMapCreate(cm("d", nil)))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "MutatingAdmissionPolicy 'm' with binding 'mb' denied request") {
		t.Fatalf("failing patch: %v", err)
	}
}
