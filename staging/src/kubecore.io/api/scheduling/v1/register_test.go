package v1

import (
	"sort"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
)

func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	want := strings.Fields("PriorityClass PriorityClassList")
	var got []string
	for kind, typ := range s.KnownTypes(SchemeGroupVersion) {
		got = append(got, kind)
		if typ.Name() != kind {
			t.Errorf("kind %s is registered as Go type %s", kind, typ.Name())
		}
		obj, err := s.New(SchemeGroupVersion.WithKind(kind))
		if err != nil {
			t.Errorf("New(%s): %v", kind, err)
			continue
		}
		if c := obj.DeepCopyObject(); c == obj {
			t.Errorf("%s: DeepCopyObject returned the same pointer", kind)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("registered kinds %v, want %v", got, want)
	}
}
