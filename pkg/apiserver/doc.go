// Package apiserver is kubecore's HTTP layer: a go-restful container serving
// every installed resource's storage behind TLS, the filter chain, discovery, health and metrics.
package apiserver
