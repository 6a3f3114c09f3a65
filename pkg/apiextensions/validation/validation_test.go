package validation

import (
	"testing"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
)

// A status update is checked as Kubernetes checks it: the accepted names
// where set, not the conditions' contents.
func TestValidateStatusUpdate(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Message: "updated"}}
	if errs := ValidateStatusUpdate(crd); len(errs) != 0 {
		t.Errorf("a condition with only a message, empty accepted names: %v", errs)
	}
	crd.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "Bad_Name", Kind: "Widget", ListKind: "Widget"}
	errs := ValidateStatusUpdate(crd)
	got := map[string]bool{}
	for _, e := range errs {
		got[e.Field] = true
	}
	if len(errs) != 2 || !got["status.acceptedNames.plural"] || !got["status.acceptedNames.listKind"] {
		t.Errorf("bad accepted names: %v, want plural and listKind", errs)
	}
}
