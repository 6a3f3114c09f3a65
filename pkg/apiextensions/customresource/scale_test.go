package customresource

import (
	"reflect"
	"testing"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestScaleSpecMapsPaths: the CRD's scale paths are where the shared
// ScaleREST reads the Scale from and writes spec replicas to.
func TestScaleSpecMapsPaths(t *testing.T) {
	sel := ".status.selector"
	s := newScaleSpec(&apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.count", LabelSelectorPath: &sel})
	u := decode(t, `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":4},"status":{"count":2,"selector":"app=a"}}`)
	spec, status, err := s.ScaleOf(u)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Replicas != 4 || status.Replicas != 2 || status.Selector != "app=a" {
		t.Errorf("scale of %v: %+v %+v", u.Object, spec, status)
	}
	if err := s.UpdateReplicas(u, 7); err != nil {
		t.Fatal(err)
	}
	if n, _ := unstructured.Int64(unstructured.NestedField(u.Object, "spec", "size")); n != 7 {
		t.Errorf("spec.size = %v after UpdateReplicas(7)", unstructured.NestedField(u.Object, "spec", "size"))
	}
	if got, want := s.ReplicasConfiguration(3), map[string]any{"spec": map[string]any{"size": int64(3)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("ReplicasConfiguration(3) = %v, want %v", got, want)
	}
	if _, _, err := s.ScaleOf(nil); err == nil {
		t.Error("ScaleOf(nil) succeeded")
	}
	// Absent paths read as 0 and no selector.
	spec, status, err = s.ScaleOf(decode(t, `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"b"}}`))
	if err != nil || spec.Replicas != 0 || status.Replicas != 0 || status.Selector != "" {
		t.Errorf("scale of an empty object: %+v %+v %v", spec, status, err)
	}
}
