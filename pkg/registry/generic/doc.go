// Package generic holds the Store every resource is served through: it runs
// a resource's strategy around the storage.Interface and speaks the API verbs.
package generic
