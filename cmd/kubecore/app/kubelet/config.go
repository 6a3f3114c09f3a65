package kubelet

import (
	"fmt"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// kubeletConfiguration holds the fields of kubelet.config.k8s.io/v1beta1
// KubeletConfiguration that this kubelet applies; others are ignored.
type kubeletConfiguration struct {
	Kind                      string   `json:"kind"`
	APIVersion                string   `json:"apiVersion"`
	Address                   string   `json:"address"`
	Port                      *int32   `json:"port"`
	ReadOnlyPort              *int32   `json:"readOnlyPort"`
	StaticPodPath             string   `json:"staticPodPath"`
	StaticPodURL              string   `json:"staticPodURL"`
	FileCheckFrequency        duration `json:"fileCheckFrequency"`
	HTTPCheckFrequency        duration `json:"httpCheckFrequency"`
	NodeStatusUpdateFrequency duration `json:"nodeStatusUpdateFrequency"`
	NodeStatusReportFrequency duration `json:"nodeStatusReportFrequency"`
	NodeLeaseDurationSeconds  *int32   `json:"nodeLeaseDurationSeconds"`
	MaxPods                   *int32   `json:"maxPods"`
	TLSCertFile               string   `json:"tlsCertFile"`
	TLSPrivateKeyFile         string   `json:"tlsPrivateKeyFile"`
	KubeAPIQPS                *float32 `json:"kubeAPIQPS"`
	KubeAPIBurst              *int     `json:"kubeAPIBurst"`
	ContentType               string   `json:"contentType"`
	ContainerRuntimeEndpoint  string   `json:"containerRuntimeEndpoint"`
	ContainerLogMaxSize       string   `json:"containerLogMaxSize"`
	ContainerLogMaxFiles      *int32   `json:"containerLogMaxFiles"`
	ClusterDNS                []string `json:"clusterDNS"`
	ClusterDomain             string   `json:"clusterDomain"`
	ResolvConf                *string  `json:"resolvConf"`
	AllowedUnsafeSysctls      []string `json:"allowedUnsafeSysctls"`
	RegisterWithTaints        []struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Effect string `json:"effect"`
	} `json:"registerWithTaints"`
	Authentication struct {
		X509 struct {
			ClientCAFile string `json:"clientCAFile"`
		} `json:"x509"`
	} `json:"authentication"`
}

// duration is a metav1.Duration: a Go duration string such as "10s".
type duration struct{ d *time.Duration }

func (d *duration) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %s: %w", b, err)
	}
	d.d = &v
	return nil
}

// LoadConfigFile applies a KubeletConfiguration file to o, except for the
// fields whose flag changed reports as set on the command line.
func (o *Options) LoadConfigFile(path string, changed func(flag string) bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var c kubeletConfiguration
	if err := yaml.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	if c.Kind != "KubeletConfiguration" || c.APIVersion != "kubelet.config.k8s.io/v1beta1" {
		return fmt.Errorf("--config %s: kind %q apiVersion %q, want KubeletConfiguration kubelet.config.k8s.io/v1beta1", path, c.Kind, c.APIVersion)
	}
	str := func(flag string, dst *string, v string) {
		if v != "" && !changed(flag) {
			*dst = v
		}
	}
	i32 := func(flag string, dst *int32, v *int32) {
		if v != nil && !changed(flag) {
			*dst = *v
		}
	}
	dur := func(flag string, dst *time.Duration, v duration) {
		if v.d != nil && !changed(flag) {
			*dst = *v.d
		}
	}
	str("address", &o.Address, c.Address)
	i32("port", &o.Port, c.Port)
	i32("read-only-port", &o.ReadOnlyPort, c.ReadOnlyPort)
	str("pod-manifest-path", &o.StaticPodPath, c.StaticPodPath)
	str("manifest-url", &o.StaticPodURL, c.StaticPodURL)
	dur("file-check-frequency", &o.FileCheckFrequency, c.FileCheckFrequency)
	dur("http-check-frequency", &o.HTTPCheckFrequency, c.HTTPCheckFrequency)
	dur("node-status-update-frequency", &o.NodeStatusUpdateFrequency, c.NodeStatusUpdateFrequency)
	// No flag, as in Kubernetes: the config file only.
	dur("", &o.NodeStatusReportFrequency, c.NodeStatusReportFrequency)
	i32("node-lease-duration-seconds", &o.NodeLeaseDurationSeconds, c.NodeLeaseDurationSeconds)
	i32("max-pods", &o.MaxPods, c.MaxPods)
	str("tls-cert-file", &o.TLSCertFile, c.TLSCertFile)
	str("tls-private-key-file", &o.TLSPrivateKeyFile, c.TLSPrivateKeyFile)
	str("client-ca-file", &o.ClientCAFile, c.Authentication.X509.ClientCAFile)
	str("container-runtime-endpoint", &o.ContainerRuntimeEndpoint, c.ContainerRuntimeEndpoint)
	str("container-log-max-size", &o.ContainerLogMaxSize, c.ContainerLogMaxSize)
	i32("container-log-max-files", &o.ContainerLogMaxFiles, c.ContainerLogMaxFiles)
	str("kube-api-content-type", &o.ContentType, c.ContentType)
	str("cluster-domain", &o.ClusterDomain, c.ClusterDomain)
	if len(c.ClusterDNS) > 0 && !changed("cluster-dns") {
		o.ClusterDNS = c.ClusterDNS
	}
	if len(c.AllowedUnsafeSysctls) > 0 && !changed("allowed-unsafe-sysctls") {
		o.AllowedUnsafeSysctls = c.AllowedUnsafeSysctls
	}
	if c.ResolvConf != nil && !changed("resolv-conf") {
		o.ResolvConf = *c.ResolvConf
	}
	if c.KubeAPIQPS != nil && !changed("kube-api-qps") {
		o.QPS = *c.KubeAPIQPS
	}
	if c.KubeAPIBurst != nil && !changed("kube-api-burst") {
		o.Burst = *c.KubeAPIBurst
	}
	if len(c.RegisterWithTaints) > 0 && !changed("register-with-taints") {
		o.RegisterWithTaints = nil
		for _, t := range c.RegisterWithTaints {
			kv := t.Key
			if t.Value != "" {
				kv += "=" + t.Value
			}
			o.RegisterWithTaints = append(o.RegisterWithTaints, kv+":"+t.Effect)
		}
	}
	return nil
}
