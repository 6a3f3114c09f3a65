// Package testtypes holds small API-like types (a Pod, a list, a Status)
// for the tests and benchmarks of the runtime package.
//
// +kubecore:deepcopy-gen=package
package testtypes
