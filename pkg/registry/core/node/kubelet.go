package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Defaults of a KubeletClientConfig, as kube-apiserver sets them.
const (
	DefaultKubeletPort        = 10250
	DefaultKubeletDialTimeout = 5 * time.Second
)

// DefaultPreferredAddressTypes is the order kube-apiserver tries a node's
// addresses in to reach its kubelet (--kubelet-preferred-address-types).
func DefaultPreferredAddressTypes() []corev1.NodeAddressType {
	return []corev1.NodeAddressType{
		corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeExternalDNS, corev1.NodeExternalIP,
	}
}

// KubeletClientConfig says how the apiserver reaches kubelets.
type KubeletClientConfig struct {
	// Port is used for nodes that report no kubelet port (10250).
	Port int32
	// PreferredAddressTypes are tried in order; the node's first address
	// of the first type it has is used (DefaultPreferredAddressTypes()).
	PreferredAddressTypes []corev1.NodeAddressType
	// ClientCertificate is presented to kubelets, which require one
	// issued by the cluster CA.
	ClientCertificate *tls.Certificate
	// CAs verify the kubelets' serving certificates. Nil leaves them
	// unverified, as kube-apiserver does without
	// --kubelet-certificate-authority (kubelets serve self-signed ones).
	CAs *x509.CertPool
	// DialTimeout bounds connecting and the TLS handshake (5 s).
	DialTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for a kubelet's response
	// headers; the body may stream for as long as it takes (30 s).
	ResponseHeaderTimeout time.Duration
}

// ConnectionInfo is where a node's kubelet listens and how to talk to it.
type ConnectionInfo struct {
	Scheme   string
	Hostname string
	Port     string
	// Transport verifies the kubelet as the config says.
	Transport http.RoundTripper
	// InsecureSkipTLSVerifyTransport never verifies the kubelet's
	// certificate (the insecureSkipTLSVerifyBackend query parameter).
	InsecureSkipTLSVerifyTransport http.RoundTripper
}

// Host is host:port of the kubelet.
func (c *ConnectionInfo) Host() string { return net.JoinHostPort(c.Hostname, c.Port) }

// KubeletConnections finds the kubelet of a node from its Node object,
// read through the node storage.
type KubeletConnections struct {
	nodes     rest.Getter
	port      int32
	preferred []corev1.NodeAddressType
	verified  http.RoundTripper
	insecure  http.RoundTripper
}

// NewKubeletConnections returns the kubelet connections of the nodes
// nodes serves.
func NewKubeletConnections(nodes rest.Getter, cfg KubeletClientConfig) *KubeletConnections {
	if cfg.Port == 0 {
		cfg.Port = DefaultKubeletPort
	}
	if len(cfg.PreferredAddressTypes) == 0 {
		cfg.PreferredAddressTypes = DefaultPreferredAddressTypes()
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultKubeletDialTimeout
	}
	if cfg.ResponseHeaderTimeout <= 0 {
		cfg.ResponseHeaderTimeout = 30 * time.Second
	}
	k := &KubeletConnections{nodes: nodes, port: cfg.Port, preferred: cfg.PreferredAddressTypes}
	k.insecure = kubeletTransport(cfg, true)
	k.verified = k.insecure
	if cfg.CAs != nil {
		k.verified = kubeletTransport(cfg, false)
	}
	return k
}

// kubeletTransport speaks HTTP/1.1 only: exec upgrades the connection.
func kubeletTransport(cfg KubeletClientConfig, insecure bool) *http.Transport {
	tlsCfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		RootCAs:            cfg.CAs,
		InsecureSkipVerify: insecure, //nolint:gosec // kubelets serve self-signed certificates unless a kubelet CA is configured
		NextProtos:         []string{"http/1.1"},
	}
	if cfg.ClientCertificate != nil {
		tlsCfg.Certificates = []tls.Certificate{*cfg.ClientCertificate}
	}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   cfg.DialTimeout,
		ResponseHeaderTimeout: cfg.ResponseHeaderTimeout,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   10,
		// An empty map turns HTTP/2 off.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
}

// GetConnectionInfo returns where the kubelet of node name listens.
func (k *KubeletConnections) GetConnectionInfo(ctx context.Context, name string) (*ConnectionInfo, error) {
	obj, err := k.nodes.Get(apirequest.WithNamespace(ctx, ""), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("node %s: not a Node: %T", name, obj))
	}
	host, err := PreferredAddress(n, k.preferred)
	if err != nil {
		return nil, err
	}
	port := n.Status.DaemonEndpoints.KubeletEndpoint.Port
	if port <= 0 {
		port = k.port
	}
	return &ConnectionInfo{
		Scheme:                         "https",
		Hostname:                       host,
		Port:                           strconv.Itoa(int(port)),
		Transport:                      k.verified,
		InsecureSkipTLSVerifyTransport: k.insecure,
	}, nil
}

// PreferredAddress is the node's first address of the first type in
// preferred that it reports.
func PreferredAddress(n *corev1.Node, preferred []corev1.NodeAddressType) (string, error) {
	for _, t := range preferred {
		for _, a := range n.Status.Addresses {
			if a.Type == t && a.Address != "" {
				return a.Address, nil
			}
		}
	}
	return "", apierrors.NewInternalError(fmt.Errorf("node %s: no preferred addresses found; known addresses: %v", n.Name, n.Status.Addresses))
}
