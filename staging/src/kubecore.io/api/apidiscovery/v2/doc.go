// Package v2 holds the apidiscovery.k8s.io/v2 types: the aggregated
// discovery document (APIGroupDiscoveryList) that /api and /apis answer
// when a client asks for it in Accept, every group version's resources in
// one response.
package v2
