package policy

import (
	"context"
	"testing"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkValidate measures one ValidatingAdmissionPolicy on a create:
// matching, the object's conversion and two validations.
func BenchmarkValidate(b *testing.B) {
	p := vap("p", "1",
		admissionregistrationv1.Validation{Expression: "object.data.all(k, k != '' && !object.data[k].endsWith(':latest'))"},
		admissionregistrationv1.Validation{Expression: "!object.metadata.name.startsWith('refuse-')"})
	objs := &fakeObjects{vaps: []*admissionregistrationv1.ValidatingAdmissionPolicy{p},
		vapbs: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{vapb("b", "p", admissionregistrationv1.Deny)},
		ns:    map[string]*corev1.Namespace{"ns": {ObjectMeta: metav1.ObjectMeta{Name: "ns"}}}}
	v, err := NewValidating(objs, objs, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	obj := cm("c", map[string]string{"image": "busybox:1.36", "b": "x", "c": "y"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(ctx, configMapCreate(obj)); err != nil {
			b.Fatal(err)
		}
	}
}
