package v1

import (
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of this package.
const GroupName = "admission.k8s.io"

// SchemeGroupVersion is the group version of every type in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// AddToScheme registers the admission.k8s.io/v1 kinds with a scheme.
var AddToScheme = runtime.NewSchemeBuilder(addKnownTypes).AddToScheme

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &AdmissionReview{})
	return nil
}
