package fieldmanager

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/kubecore/pkg/openapi"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"
)

var (
	deploymentKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	podKind        = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	configMapKind  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// builtinConverter is built once: the models of pkg/openapi for core/v1 and
// apps/v1, as the API server serves them.
var builtinConverter = sync.OnceValues(func() (*TypeConverter, error) {
	docs, err := buildTestDocs()
	if err != nil {
		return nil, err
	}
	models, err := ModelsFromDocuments(docs)
	if err != nil {
		return nil, err
	}
	return NewTypeConverter(models)
})

// buildTestDocs are the OpenAPI documents of core/v1 (pods, config maps)
// and apps/v1 (deployments).
func buildTestDocs() (*openapi.Documents, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, autoscalingv1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	core, apps := schema.GroupVersion{Version: "v1"}, schema.GroupVersion{Group: "apps", Version: "v1"}
	verbs := []string{"create", "get", "patch", "update"}
	return openapi.Build(openapi.Spec{Scheme: s, Groups: []openapi.GroupVersion{
		{GroupVersion: core, Resources: []openapi.Resource{
			{Path: "pods", Kind: podKind, Namespaced: true, Verbs: verbs},
			{Path: "configmaps", Kind: configMapKind, Namespaced: true, Verbs: verbs},
		}},
		{GroupVersion: apps, Resources: []openapi.Resource{
			{Path: "deployments", Kind: deploymentKind, Namespaced: true, Verbs: verbs},
		}},
	}})
}

func builtin(t testing.TB) *TypeConverter {
	t.Helper()
	tc, err := builtinConverter()
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// clock is a settable test clock.
type clock struct{ now time.Time }

func newClock() *clock { return &clock{now: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time       { return c.now }
func (c *clock) tick(d time.Duration) { c.now = c.now.Add(d) }

func deploymentManager(t testing.TB, c *clock, subresource string, reset *fieldpath.Set) *FieldManager {
	t.Helper()
	f, err := New(Options{
		Kind: deploymentKind, Subresource: subresource, TypeConverter: builtin(t),
		New:         func() runtime.Object { return &appsv1.Deployment{} },
		ResetFields: reset, Now: c.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// config parses a YAML apply configuration.
func config(t testing.TB, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// deployment decodes YAML into a typed Deployment.
func deployment(t testing.TB, text string) *appsv1.Deployment {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(data, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// entries summarises managedFields as "manager/operation/subresource: fields".
func entries(t testing.TB, obj runtime.Object) map[string]string {
	t.Helper()
	meta, err := accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range meta.GetManagedFields() {
		key := e.Manager + "/" + e.Operation
		if e.Subresource != "" {
			key += "/" + e.Subresource
		}
		out[key] = string(e.FieldsV1.Raw)
	}
	return out
}

func managedFields(t testing.TB, obj runtime.Object) []metav1.ManagedFieldsEntry {
	t.Helper()
	meta, err := accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return meta.GetManagedFields()
}

func mustApply(t testing.TB, f *FieldManager, live runtime.Object, cfg map[string]any, manager string, force bool) runtime.Object {
	t.Helper()
	out, err := f.Apply(live, cfg, manager, force)
	if err != nil {
		t.Fatalf("apply as %s: %v", manager, err)
	}
	return out
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
