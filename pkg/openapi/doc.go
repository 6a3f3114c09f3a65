// Package openapi builds the OpenAPI v3 documents of the served API from the
// Go API types and serves them at /openapi/v3, as kubectl expects them.
package openapi
