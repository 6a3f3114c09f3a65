// Package api holds the in-memory form of a kubeconfig file: clusters, users
// and contexts keyed by name, as clientcmd loads, merges and writes them.
package api

import (
	"encoding/json"
	"maps"
	"slices"
)

// Config is a kubeconfig: where the clusters are, who the user is on each, and
// which pair (a context) to use. The file lists entries; here they are maps
// keyed by name, so merging several files and editing are simple.
type Config struct {
	// Preferences holds settings for interactive use; kubecore keeps them only
	// so that files round-trip.
	Preferences Preferences
	// Clusters maps a cluster name to how to reach that cluster.
	Clusters map[string]*Cluster
	// AuthInfos maps a user name to credentials (the file's "users").
	AuthInfos map[string]*AuthInfo
	// Contexts maps a context name to a cluster, a user and a namespace.
	Contexts map[string]*Context
	// CurrentContext names the context used when none is chosen explicitly.
	CurrentContext string
	// Extensions holds extenders' data, by name, as raw JSON.
	Extensions map[string]json.RawMessage
}

// Preferences holds settings for interactive use.
type Preferences struct {
	Colors     bool
	Extensions map[string]json.RawMessage
}

// Cluster says how to reach and trust one API server.
type Cluster struct {
	// LocationOfOrigin is the file this entry was read from; it is never written.
	LocationOfOrigin string
	// Server is the API server's URL, https://host:port.
	Server string
	// TLSServerName is the name checked in the server's certificate when it
	// differs from the host in Server.
	TLSServerName string
	// InsecureSkipTLSVerify turns off verification of the server's certificate.
	InsecureSkipTLSVerify bool
	// CertificateAuthority is the path of a PEM file of CA certificates.
	CertificateAuthority string
	// CertificateAuthorityData holds PEM CA certificates; it wins over
	// CertificateAuthority.
	CertificateAuthorityData []byte
	// ProxyURL is an http, https or socks5 proxy for every request.
	ProxyURL string
	// DisableCompression asks the server not to compress responses.
	DisableCompression bool
	// Extensions holds extenders' data, by name, as raw JSON.
	Extensions map[string]json.RawMessage
}

// AuthInfo holds the credentials of one user.
type AuthInfo struct {
	// LocationOfOrigin is the file this entry was read from; it is never written.
	LocationOfOrigin string
	// ClientCertificate is the path of a PEM client certificate file.
	ClientCertificate string
	// ClientCertificateData holds a PEM client certificate; it wins over
	// ClientCertificate.
	ClientCertificateData []byte
	// ClientKey is the path of the PEM private key of the client certificate.
	ClientKey string
	// ClientKeyData holds the PEM private key; it wins over ClientKey.
	ClientKeyData []byte
	// Token is a bearer token; it wins over TokenFile.
	Token string
	// TokenFile is the path of a file holding a bearer token.
	TokenFile string
	// Impersonate is the user name to act as ("as").
	Impersonate string
	// ImpersonateUID is the uid to act as ("as-uid").
	ImpersonateUID string
	// ImpersonateGroups are the groups to act as ("as-groups").
	ImpersonateGroups []string
	// ImpersonateUserExtra is extra information to act with ("as-user-extra").
	ImpersonateUserExtra map[string][]string
	// Username and Password are basic authentication credentials.
	Username string
	Password string
	// AuthProvider and Exec are credential plugins. kubecore does not run them;
	// they are kept as raw JSON so that files round-trip.
	AuthProvider json.RawMessage
	Exec         json.RawMessage
	// Extensions holds extenders' data, by name, as raw JSON.
	Extensions map[string]json.RawMessage
}

// Context pairs a cluster with a user and a default namespace.
type Context struct {
	// LocationOfOrigin is the file this entry was read from; it is never written.
	LocationOfOrigin string
	// Cluster is the name of the cluster.
	Cluster string
	// AuthInfo is the name of the user (the file's "user").
	AuthInfo string
	// Namespace is the default namespace; empty means "default".
	Namespace string
	// Extensions holds extenders' data, by name, as raw JSON.
	Extensions map[string]json.RawMessage
}

// NewConfig returns an empty Config with its maps made.
func NewConfig() *Config {
	return &Config{
		Clusters:   map[string]*Cluster{},
		AuthInfos:  map[string]*AuthInfo{},
		Contexts:   map[string]*Context{},
		Extensions: map[string]json.RawMessage{},
	}
}

// IsEmpty reports whether c holds no clusters, users, contexts nor current
// context.
func (c *Config) IsEmpty() bool {
	return len(c.Clusters) == 0 && len(c.AuthInfos) == 0 && len(c.Contexts) == 0 && c.CurrentContext == ""
}

// DeepCopy returns a copy of c that shares no memory with it.
func (c *Config) DeepCopy() *Config {
	if c == nil {
		return nil
	}
	out := &Config{
		Preferences:    Preferences{Colors: c.Preferences.Colors, Extensions: copyExtensions(c.Preferences.Extensions)},
		Clusters:       copyMap(c.Clusters, (*Cluster).DeepCopy),
		AuthInfos:      copyMap(c.AuthInfos, (*AuthInfo).DeepCopy),
		Contexts:       copyMap(c.Contexts, (*Context).DeepCopy),
		CurrentContext: c.CurrentContext,
		Extensions:     copyExtensions(c.Extensions),
	}
	return out
}

// DeepCopy returns a copy of c that shares no memory with it.
func (c *Cluster) DeepCopy() *Cluster {
	if c == nil {
		return nil
	}
	out := *c
	out.CertificateAuthorityData = slices.Clone(c.CertificateAuthorityData)
	out.Extensions = copyExtensions(c.Extensions)
	return &out
}

// DeepCopy returns a copy of a that shares no memory with it.
func (a *AuthInfo) DeepCopy() *AuthInfo {
	if a == nil {
		return nil
	}
	out := *a
	out.ClientCertificateData = slices.Clone(a.ClientCertificateData)
	out.ClientKeyData = slices.Clone(a.ClientKeyData)
	out.ImpersonateGroups = slices.Clone(a.ImpersonateGroups)
	if a.ImpersonateUserExtra != nil {
		out.ImpersonateUserExtra = make(map[string][]string, len(a.ImpersonateUserExtra))
		for k, v := range a.ImpersonateUserExtra {
			out.ImpersonateUserExtra[k] = slices.Clone(v)
		}
	}
	out.AuthProvider = slices.Clone(a.AuthProvider)
	out.Exec = slices.Clone(a.Exec)
	out.Extensions = copyExtensions(a.Extensions)
	return &out
}

// DeepCopy returns a copy of c that shares no memory with it.
func (c *Context) DeepCopy() *Context {
	if c == nil {
		return nil
	}
	out := *c
	out.Extensions = copyExtensions(c.Extensions)
	return &out
}

func copyMap[T any](in map[string]*T, copyFn func(*T) *T) map[string]*T {
	if in == nil {
		return nil
	}
	out := make(map[string]*T, len(in))
	for k, v := range in {
		out[k] = copyFn(v)
	}
	return out
}

func copyExtensions(in map[string]json.RawMessage) map[string]json.RawMessage {
	if in == nil {
		return nil
	}
	out := maps.Clone(in)
	for k, v := range out {
		out[k] = slices.Clone(v)
	}
	return out
}
