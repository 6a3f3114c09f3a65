// Package v1 is a marked package that types of another marked package refer
// to, for deepcopy-gen's tests.
//
// +kubecore:deepcopy-gen=package
package v1
