// Package rest defines what a resource's storage offers the HTTP layer (one
// small interface per verb) and the strategy hooks the generic Store calls.
package rest
