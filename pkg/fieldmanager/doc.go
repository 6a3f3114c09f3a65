// Package fieldmanager is server-side apply's engine: it records in
// metadata.managedFields which manager set which fields on every write, and
// merges apply configurations into live objects by the schema's list, map
// and struct types, answering conflicts as Kubernetes does.
//
// The merge algebra is sigs.k8s.io/structured-merge-diff; this package
// feeds it schemas built from kubecore's OpenAPI models (built-in kinds) and
// from CustomResourceDefinition structural schemas, encodes its field sets
// as FieldsV1, and adds Kubernetes' rules around it: manager identities,
// the cap on Update managers, client-side apply upgrades, and the 409
// Status of a conflicting apply. It knows nothing of storage or HTTP: the
// generic Store calls Update on every write and Apply on apply patches.
package fieldmanager
