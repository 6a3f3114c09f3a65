// Package policy makes ValidatingAdmissionPolicies and
// MutatingAdmissionPolicies (admissionregistration.k8s.io/v1) work: two
// admission plugins that read the policies and their bindings from the
// watch cache, compile each policy's CEL once per resourceVersion, and on
// every write they match evaluate matchConditions, variables and either
// validations (Deny, Warn, Audit) or mutations (ApplyConfiguration merged
// as server-side apply does, JSONPatch), with parameters, failurePolicy
// and Kubernetes' runtime cost budget.
package policy
