// Package cmdutil holds what every kubectl verb shares: the global
// connection flags and the clients made from them (Factory), the I/O
// streams, and the way errors are printed.
package cmdutil

import (
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"kubecore.io/client/tools/clientcmd"
)

// ConfigFlags are kubectl's global connection flags.
type ConfigFlags struct {
	Kubeconfig     string
	Context        string
	Cluster        string
	User           string
	Namespace      string
	Server         string
	TLSServerName  string
	Token          string
	Username       string
	Password       string
	CAFile         string
	CertFile       string
	KeyFile        string
	Insecure       bool
	RequestTimeout string
}

// NewConfigFlags returns the flags with kubectl's defaults.
func NewConfigFlags() *ConfigFlags { return &ConfigFlags{RequestTimeout: "0"} }

// AddFlags registers the flags on fs (the root command's persistent flags).
func (f *ConfigFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", f.Kubeconfig, "Path to the kubeconfig file to use for CLI requests.")
	fs.StringVar(&f.Context, "context", f.Context, "The name of the kubeconfig context to use")
	fs.StringVar(&f.Cluster, "cluster", f.Cluster, "The name of the kubeconfig cluster to use")
	fs.StringVar(&f.User, "user", f.User, "The name of the kubeconfig user to use")
	fs.StringVarP(&f.Namespace, "namespace", "n", f.Namespace, "If present, the namespace scope for this CLI request")
	fs.StringVarP(&f.Server, "server", "s", f.Server, "The address and port of the Kubernetes API server")
	fs.StringVar(&f.TLSServerName, "tls-server-name", f.TLSServerName, "Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used")
	fs.StringVar(&f.Token, "token", f.Token, "Bearer token for authentication to the API server")
	fs.StringVar(&f.Username, "username", f.Username, "Username for basic authentication to the API server")
	fs.StringVar(&f.Password, "password", f.Password, "Password for basic authentication to the API server")
	fs.StringVar(&f.CAFile, "certificate-authority", f.CAFile, "Path to a cert file for the certificate authority")
	fs.StringVar(&f.CertFile, "client-certificate", f.CertFile, "Path to a client certificate file for TLS")
	fs.StringVar(&f.KeyFile, "client-key", f.KeyFile, "Path to a client key file for TLS")
	fs.BoolVar(&f.Insecure, "insecure-skip-tls-verify", f.Insecure, "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure")
	fs.StringVar(&f.RequestTimeout, "request-timeout", f.RequestTimeout, "The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don't timeout requests.")
}

// LoadingRules returns the kubeconfig files to read: --kubeconfig, else
// $KUBECONFIG, else ~/.kube/config.
func (f *ConfigFlags) LoadingRules() *clientcmd.LoadingRules {
	rules := clientcmd.NewDefaultLoadingRules()
	rules.ExplicitPath = f.Kubeconfig
	return rules
}

// Overrides returns the flags that win over the kubeconfig.
func (f *ConfigFlags) Overrides() (*clientcmd.Overrides, error) {
	timeout, err := ParseRequestTimeout(f.RequestTimeout)
	if err != nil {
		return nil, err
	}
	return &clientcmd.Overrides{
		Context:               f.Context,
		Cluster:               f.Cluster,
		User:                  f.User,
		Namespace:             f.Namespace,
		Server:                f.Server,
		TLSServerName:         f.TLSServerName,
		CertificateAuthority:  f.CAFile,
		InsecureSkipTLSVerify: f.Insecure,
		ClientCertificate:     f.CertFile,
		ClientKey:             f.KeyFile,
		Token:                 f.Token,
		Username:              f.Username,
		Password:              f.Password,
		Timeout:               timeout,
	}, nil
}

// ParseRequestTimeout reads --request-timeout: a duration, or a bare
// integer of seconds; "0" or "" means none.
func ParseRequestTimeout(s string) (time.Duration, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return 0, Errorf("Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)")
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, Errorf("Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)")
	}
	return d, nil
}
