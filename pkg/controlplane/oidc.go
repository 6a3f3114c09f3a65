package controlplane

import (
	"crypto/ecdsa"
	"net"
	"net/http"
	"strconv"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/auth/serviceaccount"
)

// Paths are the non-resource paths the control plane serves beside the
// API: service account issuer discovery, when it signs tokens. The keys
// are published at the address this server advertises.
func (in *Instance) Paths() map[string]http.Handler {
	if in.serviceAccountKey == nil {
		return nil
	}
	external := "https://" + net.JoinHostPort(in.advertise.IP.String(), strconv.Itoa(in.advertise.Port))
	if !in.advertise.valid() {
		external = serviceaccount.DefaultIssuer
	}
	config, err := serviceaccount.OpenIDConfiguration(serviceaccount.DefaultIssuer, serviceaccount.JWKSURI(external))
	if err != nil {
		klog.ErrorS(err, "Service account issuer discovery is not served")
		return nil
	}
	keys, err := serviceaccount.JWKS([]*ecdsa.PublicKey{&in.serviceAccountKey.PublicKey})
	if err != nil {
		klog.ErrorS(err, "Service account issuer discovery is not served")
		return nil
	}
	return map[string]http.Handler{
		serviceaccount.OpenIDConfigurationPath: document(config, "application/json"),
		serviceaccount.JWKSPath:                document(keys, "application/jwk-set+json"),
	}
}

// document serves a fixed document to GET, cacheable for an hour as
// Kubernetes serves the discovery documents.
func document(body []byte, contentType string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write(body)
	})
}
