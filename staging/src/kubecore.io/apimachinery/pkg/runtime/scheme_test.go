package runtime_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/internal/testtypes"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

var (
	coreV1 = schema.GroupVersion{Version: "v1"}
	appsV1 = schema.GroupVersion{Group: "apps", Version: "v1"}
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(coreV1, &testtypes.Pod{}, &testtypes.PodList{})
	s.AddUnversionedTypes(coreV1, &testtypes.Status{})
	return nil
}

func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := runtime.NewSchemeBuilder(addKnownTypes).AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemeTypes(t *testing.T) {
	s := newScheme(t)
	podGVK := coreV1.WithKind("Pod")

	obj, err := s.New(podGVK)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*testtypes.Pod); !ok {
		t.Fatalf("New(Pod) = %T", obj)
	}
	if !s.Recognizes(podGVK) || s.Recognizes(appsV1.WithKind("Pod")) {
		t.Fatal("Recognizes is wrong")
	}
	gvks, unversioned, err := s.ObjectKinds(&testtypes.Pod{})
	if err != nil || unversioned || !reflect.DeepEqual(gvks, []schema.GroupVersionKind{podGVK}) {
		t.Fatalf("ObjectKinds(Pod) = %v %v %v", gvks, unversioned, err)
	}
	if _, unversioned, _ := s.ObjectKinds(&testtypes.Status{}); !unversioned {
		t.Fatal("Status should be unversioned")
	}
	if gvk, err := s.ObjectKind(&testtypes.PodList{}); err != nil || gvk != coreV1.WithKind("PodList") {
		t.Fatalf("ObjectKind(PodList) = %v %v", gvk, err)
	}

	known := s.KnownTypes(coreV1)
	if len(known) != 3 || known["Pod"] != reflect.TypeFor[testtypes.Pod]() {
		t.Fatalf("KnownTypes = %v", known)
	}
	if all := s.AllKnownTypes(); len(all) != 3 {
		t.Fatalf("AllKnownTypes = %v", all)
	}
	if !s.IsGroupRegistered("") || s.IsGroupRegistered("apps") || !s.IsVersionRegistered(coreV1) {
		t.Fatal("group/version registration is wrong")
	}
}

func TestSchemeMultipleGroups(t *testing.T) {
	s := newScheme(t)
	s.AddKnownTypes(appsV1, &testtypes.Pod{})
	s.AddKnownTypes(schema.GroupVersion{Group: "apps", Version: "v2"}, &testtypes.PodList{})
	gvks, _, err := s.ObjectKinds(&testtypes.Pod{})
	if err != nil || len(gvks) != 2 || gvks[0] != coreV1.WithKind("Pod") || gvks[1] != appsV1.WithKind("Pod") {
		t.Fatalf("ObjectKinds = %v %v", gvks, err)
	}
	if got := s.PrioritizedVersionsForGroup("apps"); len(got) != 2 || got[0] != appsV1 {
		t.Fatalf("PrioritizedVersionsForGroup = %v", got)
	}
	if got := s.PrioritizedVersionsAllGroups(); len(got) != 3 {
		t.Fatalf("PrioritizedVersionsAllGroups = %v", got)
	}
	// Registering the same type again is harmless.
	s.AddKnownTypes(coreV1, &testtypes.Pod{})
	if gvks, _, _ := s.ObjectKinds(&testtypes.Pod{}); len(gvks) != 2 {
		t.Fatalf("re-registration duplicated kinds: %v", gvks)
	}
}

func TestSchemeErrors(t *testing.T) {
	s := newScheme(t)
	_, err := s.New(coreV1.WithKind("Foo"))
	if !runtime.IsNotRegisteredError(err) {
		t.Fatalf("New(Foo): %v", err)
	}
	want := `no kind "Foo" is registered for version "v1" in scheme "kubecore.io/apimachinery/pkg/runtime_test/scheme_test.go:`
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %q, want prefix %q", err, want)
	}
	_, _, err = s.ObjectKinds(&testtypes.Unstructured{})
	if !runtime.IsNotRegisteredError(err) || !strings.Contains(err.Error(), "no kind is registered for the type *testtypes.Unstructured") {
		t.Fatalf("ObjectKinds(unregistered): %v", err)
	}
	if runtime.IsNotRegisteredError(errors.New("x")) || runtime.IsNotRegisteredError(nil) {
		t.Fatal("IsNotRegisteredError matches other errors")
	}
}

func TestSchemeRegistrationPanics(t *testing.T) {
	tests := []struct {
		name string
		fn   func(s *runtime.Scheme)
		want string
	}{
		{"two types for one kind", func(s *runtime.Scheme) {
			s.AddKnownTypeWithName(coreV1.WithKind("Pod"), &testtypes.Status{})
		}, "double registration"},
		{"no version", func(s *runtime.Scheme) {
			s.AddKnownTypeWithName(schema.GroupVersionKind{Kind: "X"}, &testtypes.Status{})
		}, "version and kind are required"},
		{"not a pointer to struct", func(s *runtime.Scheme) {
			s.AddKnownTypes(coreV1, notStruct{})
		}, "pointers to structs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScheme(t)
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), tt.want) {
					t.Fatalf("panic %v, want one containing %q", r, tt.want)
				}
			}()
			tt.fn(s)
		})
	}
}

type notStruct struct{}

func (notStruct) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (notStruct) DeepCopyObject() runtime.Object   { return notStruct{} }

func TestKindToResource(t *testing.T) {
	tests := []struct{ kind, plural, singular string }{
		{"Pod", "pods", "pod"},
		{"Endpoints", "endpoints", "endpoints"},
		{"NetworkPolicy", "networkpolicies", "networkpolicy"},
		{"Ingress", "ingresses", "ingress"},
		{"PriorityClass", "priorityclasses", "priorityclass"},
		{"Lease", "leases", "lease"},
		{"Deployment", "deployments", "deployment"},
		{"StorageClass", "storageclasses", "storageclass"},
		{"PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget"},
		{"", "", ""},
	}
	for _, tt := range tests {
		plural, singular := runtime.KindToResource(appsV1.WithKind(tt.kind))
		if plural != appsV1.WithResource(tt.plural) || singular != appsV1.WithResource(tt.singular) {
			t.Errorf("KindToResource(%s) = %v, %v; want %s, %s", tt.kind, plural, singular, tt.plural, tt.singular)
		}
	}
}

func TestResourceMapping(t *testing.T) {
	s := newScheme(t)
	gvr, err := s.ResourceFor(coreV1.WithKind("Pod"))
	if err != nil || gvr != coreV1.WithResource("pods") {
		t.Fatalf("ResourceFor(Pod) = %v %v", gvr, err)
	}
	gvk, err := s.KindFor(coreV1.WithResource("pods"))
	if err != nil || gvk != coreV1.WithKind("Pod") {
		t.Fatalf("KindFor(pods) = %v %v", gvk, err)
	}
	if _, err := s.KindFor(coreV1.WithResource("podlists")); !runtime.IsNotRegisteredError(err) {
		t.Fatalf("lists must not map to a resource: %v", err)
	}
	if _, err := s.ResourceFor(coreV1.WithKind("PodList")); err == nil {
		t.Fatal("ResourceFor(PodList) should fail")
	}
	if _, err := s.ResourceFor(appsV1.WithKind("Pod")); !runtime.IsNotRegisteredError(err) {
		t.Fatalf("ResourceFor(unregistered) = %v", err)
	}
	_, err = s.KindFor(coreV1.WithResource("widgets"))
	if err == nil || !strings.Contains(err.Error(), `no resource "widgets" is registered for version "v1"`) {
		t.Fatalf("KindFor(widgets) = %v", err)
	}

	s.SetResource(coreV1.WithKind("Status"), "statuses")
	if gvr, _ := s.ResourceFor(coreV1.WithKind("Status")); gvr.Resource != "statuses" {
		t.Fatalf("override not applied: %v", gvr)
	}
	if _, err := s.KindFor(coreV1.WithResource("statuss")); err == nil {
		t.Fatal("the guessed name survived the override")
	}
	if gvk, _ := s.KindFor(coreV1.WithResource("statuses")); gvk.Kind != "Status" {
		t.Fatalf("KindFor(statuses) = %v", gvk)
	}
}

func TestDefaulting(t *testing.T) {
	s := newScheme(t)
	var order []string
	s.AddTypeDefaultingFunc(&testtypes.Pod{}, func(obj any) {
		order = append(order, "untyped")
		p := obj.(*testtypes.Pod)
		if p.Spec.RestartPolicy == "" {
			p.Spec.RestartPolicy = "Always"
		}
	})
	runtime.AddDefaultingFunc(s, func(p *testtypes.Pod) {
		order = append(order, "typed")
		if p.Spec.DNSPolicy == "" {
			p.Spec.DNSPolicy = "ClusterFirst"
		}
	})
	p := &testtypes.Pod{}
	s.Default(p)
	if p.Spec.RestartPolicy != "Always" || p.Spec.DNSPolicy != "ClusterFirst" {
		t.Fatalf("not defaulted: %+v", p.Spec)
	}
	if strings.Join(order, ",") != "untyped,typed" {
		t.Fatalf("order %v", order)
	}
	s.Default(&testtypes.PodList{}) // no defaulter: nothing happens
}

func TestSchemeBuilder(t *testing.T) {
	var sb runtime.SchemeBuilder
	calls := 0
	sb.Register(func(*runtime.Scheme) error { calls++; return nil })
	sb.Register(func(*runtime.Scheme) error { return errors.New("boom") })
	sb.Register(func(*runtime.Scheme) error { calls++; return nil })
	addToScheme := sb.AddToScheme
	err := addToScheme(runtime.NewScheme())
	if err == nil || !strings.Contains(err.Error(), "(function 2 of 3): boom") || calls != 1 {
		t.Fatalf("err %v, calls %d", err, calls)
	}
}
