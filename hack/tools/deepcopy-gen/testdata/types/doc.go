// Package types exercises deepcopy-gen: every kind of field it has to copy,
// and the tags it reads. Its zz_generated.deepcopy.go is generated.
//
// +kubecore:deepcopy-gen=package
package types
