// Package v1 registers the apiextensions.k8s.io/v1 kinds with a server's
// scheme together with their defaults.
package v1

import (
	"strings"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the apiextensions.k8s.io/v1 kinds and their
// defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsCustomResourceDefinition)
	return nil
}

// SetDefaultsCustomResourceDefinition fills the singular name and list
// kind from the kind, and the None conversion, as Kubernetes does.
func SetDefaultsCustomResourceDefinition(crd *apiextensionsv1.CustomResourceDefinition) {
	names := &crd.Spec.Names
	if names.Singular == "" {
		names.Singular = strings.ToLower(names.Kind)
	}
	if names.ListKind == "" && names.Kind != "" {
		names.ListKind = names.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	}
	if crd.Status.StoredVersions == nil {
		crd.Status.StoredVersions = []string{}
	}
}
