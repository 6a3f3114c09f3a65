package pki

import (
	"bytes"
	"fmt"
	"os"

	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/tools/clientcmd/api"
)

// KubeconfigName names the cluster, user and context of the kubeconfigs this
// package writes.
const KubeconfigName = "kubecore"

// WriteAdminKubeconfig writes to path (mode 0600) a kubeconfig for the admin
// client certificate of b and the apiserver at serverURL, with the CA and
// credentials embedded, so that it can be copied anywhere and used by kubectl.
func WriteAdminKubeconfig(path, serverURL string, b *Bundle) error {
	return WriteKubeconfig(path, serverURL, b, b.Admin)
}

// WriteKubeconfig writes to path (mode 0600) a kubeconfig for the client
// certificate client of b and the apiserver at serverURL, with everything
// embedded. serverURL may list several apiservers, comma-separated: the
// first is the cluster's server, the others its clientcmd.FailoverExtension.
// An identical existing file is left alone.
func WriteKubeconfig(path, serverURL string, b *Bundle, client *KeyPair) error {
	servers := clientcmd.SplitServers(serverURL)
	if len(servers) == 0 {
		return fmt.Errorf("kubeconfig %s: server URL: required", path)
	}
	cluster := &api.Cluster{CertificateAuthorityData: b.CA.CertPEM()}
	if err := clientcmd.SetServers(cluster, servers); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	keyPEM, err := client.KeyPEM()
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	cfg := api.NewConfig()
	cfg.Clusters[KubeconfigName] = cluster
	cfg.AuthInfos[KubeconfigName] = &api.AuthInfo{ClientCertificateData: client.CertPEM(), ClientKeyData: keyPEM}
	cfg.Contexts[KubeconfigName] = &api.Context{Cluster: KubeconfigName, AuthInfo: KubeconfigName}
	cfg.CurrentContext = KubeconfigName
	data, err := clientcmd.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() == 0o600 {
			return nil
		}
	}
	return clientcmd.Write(cfg, path)
}

// KubeconfigServer returns the server URL of the current context of the
// kubeconfig at path.
func KubeconfigServer(path string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return "", err
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return "", fmt.Errorf("kubeconfig %s: no current context", path)
	}
	cluster, ok := cfg.Clusters[ctx.Cluster]
	if !ok || cluster.Server == "" {
		return "", fmt.Errorf("kubeconfig %s: context %q names no cluster with a server", path, cfg.CurrentContext)
	}
	return cluster.Server, nil
}
