package fieldmanager

import (
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	appsv1 "kubecore.io/api/apps/v1"
	authenticationv1 "kubecore.io/api/authentication/v1"
	authorizationv1 "kubecore.io/api/authorization/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	batchv1 "kubecore.io/api/batch/v1"
	certificatesv1 "kubecore.io/api/certificates/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	policyv1 "kubecore.io/api/policy/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/kubecore/pkg/openapi"
)

// TestAllBuiltinKinds: the OpenAPI models of every built-in kind convert,
// and each kind takes a create (Update) and an apply.
func TestAllBuiltinKinds(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv1.AddToScheme, apiextensionsv1.AddToScheme,
		coordinationv1.AddToScheme, schedulingv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme,
		authorizationv1.AddToScheme, certificatesv1.AddToScheme, authenticationv1.AddToScheme,
		discoveryv1.AddToScheme, batchv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	groups := map[schema.GroupVersion][]openapi.Resource{}
	var kinds []schema.GroupVersionKind
	for gvk := range s.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || gvk.Version == "__internal" {
			continue
		}
		switch gvk.Kind {
		case "Status", "WatchEvent", "DeleteOptions", "CreateOptions", "UpdateOptions", "PatchOptions", "GetOptions", "ListOptions", "Table", "APIResourceList", "APIGroupList", "APIGroup", "APIVersions":
			continue
		}
		kinds = append(kinds, gvk)
		groups[gvk.GroupVersion()] = append(groups[gvk.GroupVersion()], openapi.Resource{
			Path: strings.ToLower(gvk.Kind) + "s", Kind: gvk, Namespaced: true, Verbs: []string{"create", "get", "patch", "update"},
		})
	}
	spec := openapi.Spec{Scheme: s}
	for gv, rs := range groups {
		spec.Groups = append(spec.Groups, openapi.GroupVersion{GroupVersion: gv, Resources: rs})
	}
	docs, err := openapi.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	models, err := ModelsFromDocuments(docs)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := NewTypeConverter(models)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	for _, gvk := range kinds {
		newObj := func() runtime.Object {
			obj, err := s.New(gvk)
			if err != nil {
				t.Fatal(err)
			}
			return obj
		}
		f, err := New(Options{Kind: gvk, TypeConverter: tc, New: newObj})
		if err != nil {
			t.Errorf("%v: %v", gvk, err)
			continue
		}
		obj := newObj()
		m, err := accessor(obj)
		if err != nil {
			continue // not a persisted kind
		}
		m.SetName("x")
		m.SetLabels(map[string]string{"a": "b"})
		if _, err := f.Update(nil, obj, "creator"); err != nil {
			t.Errorf("%v: update: %v", gvk, err)
		}
		cfg := map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "metadata": map[string]any{"name": "x", "annotations": map[string]any{"k": "v"}}}
		if _, err := f.Apply(nil, cfg, "applier", false); err != nil {
			t.Errorf("%v: apply: %v", gvk, err)
		}
	}
	if len(kinds) < 30 {
		t.Errorf("only %d kinds checked", len(kinds))
	}
}

// BenchmarkTypeConverter is the start-up cost of the built-in schemas.
func BenchmarkTypeConverter(b *testing.B) {
	docs, err := buildTestDocs()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		models, err := ModelsFromDocuments(docs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewTypeConverter(models); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("figure: type converter of core/v1 and apps/v1 from their OpenAPI documents %.1f ms (target: < 100 ms, once at start)", float64(b.Elapsed().Microseconds())/float64(b.N)/1000)
}
