package generic

import (
	"testing"

	v1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/fieldmanager"
)

// TestApplyWithoutName: an apply configuration without a name updates an
// existing object (the live name stays, as Kubernetes does) but creates
// nothing (422 naming metadata.name).
func TestApplyWithoutName(t *testing.T) {
	s, _ := newApplyingStore(t)
	mustCreate(t, s, "ns", newPod("web"))
	nameless := func() map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"labels": map[string]any{"tier": "front"}}}
	}

	obj, created, err := s.Apply(nsCtx("ns"), "web", nameless(), false, &metav1.UpdateOptions{FieldManager: "m"})
	if err != nil {
		t.Fatalf("apply without a name to an existing pod: %v", err)
	}
	p := obj.(*v1.Pod)
	if created || p.Name != "web" || p.Labels["tier"] != "front" || p.Labels["app"] != "web" {
		t.Errorf("after the apply: created=%v name=%q labels=%v", created, p.Name, p.Labels)
	}

	_, _, err = s.Apply(nsCtx("ns"), "absent", nameless(), false, &metav1.UpdateOptions{FieldManager: "m"})
	st := statusOf(t, err, 422)
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "metadata.name" || !apierrors.IsInvalid(err) {
		t.Errorf("create on apply without a name: %+v", st)
	}
	if _, err := s.Get(nsCtx("ns"), "absent", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("GET after the refused create: %v", err)
	}
}

// newApplyingStore returns the test pod Store recording managedFields, and
// the Builder of FieldManagers of the core kinds it was built with.
func newApplyingStore(t *testing.T) (*Store, *fieldmanager.Builder) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tc, err := fieldmanager.NewSchemeTypeConverter(scheme)
	if err != nil {
		t.Fatal(err)
	}
	fms := &fieldmanager.Builder{Scheme: scheme, TypeConverter: tc}
	s, _ := newStore(podStrategy{})
	if s.FieldManager, _, err = fms.For(s.NewFunc, nil); err != nil {
		t.Fatal(err)
	}
	return s, fms
}
