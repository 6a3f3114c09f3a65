// Package types holds small value types shared across the API: UIDs,
// namespaced names, and patch content types.
package types

// UID is a unique identifier the server assigns to each object.
type UID string

// NamespacedName names an object within a namespace.
type NamespacedName struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" for cluster-scoped objects.
func (n NamespacedName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// PatchType is the content type of a PATCH request body.
type PatchType string

// The patch content types the API understands.
const (
	JSONPatchType           PatchType = "application/json-patch+json"
	MergePatchType          PatchType = "application/merge-patch+json"
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
	ApplyPatchType          PatchType = "application/apply-patch+yaml"
)
