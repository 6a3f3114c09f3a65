// Package openapi builds the OpenAPI v3 documents of the served API from the
// Go API types and serves them at /openapi/v3, and the same model as one
// Swagger 2.0 document at /openapi/v2, as kubectl expects them.
package openapi
