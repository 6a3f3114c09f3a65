package kubelet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Kubernetes' limits on a pod's resolv.conf.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

// DNSConfigurer makes the resolv.conf of pods as the kubelet does for
// each dnsPolicy.
type DNSConfigurer struct {
	// ClusterDNS are the cluster DNS servers (--cluster-dns); pods with
	// ClusterFirst fall back to Default when there is none.
	ClusterDNS []string
	// ClusterDomain is --cluster-domain.
	ClusterDomain string
	// HostResolvConf is the node's resolv.conf (--resolv-conf); none
	// when empty.
	HostResolvConf string
}

// hostDNS reads the host's name servers, search domains and options.
func (d DNSConfigurer) hostDNS() (kruntime.DNSConfig, error) {
	var c kruntime.DNSConfig
	if d.HostResolvConf == "" {
		return c, nil
	}
	b, err := os.ReadFile(d.HostResolvConf)
	if err != nil {
		return c, fmt.Errorf("read host resolv.conf: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexAny(line, "#;"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "nameserver":
			if len(f) > 1 {
				c.Servers = append(c.Servers, f[1])
			}
		case "search", "domain":
			// The last of search and domain wins, as in the resolver.
			c.Searches = slices.Clone(f[1:])
		case "options":
			c.Options = append(c.Options, f[1:]...)
		}
	}
	return c, nil
}

// PodDNS returns the resolv.conf of pod, and warnings (limits applied)
// for the pod's events.
func (d DNSConfigurer) PodDNS(pod *corev1.Pod) (kruntime.DNSConfig, []string, error) {
	var warnings []string
	policy := pod.Spec.DNSPolicy
	if policy == "" {
		policy = corev1.DNSClusterFirst
	}
	clusterFirst := policy == corev1.DNSClusterFirstWithHostNet || (policy == corev1.DNSClusterFirst && !pod.Spec.HostNetwork)
	if clusterFirst && len(d.ClusterDNS) == 0 {
		// Without --cluster-dns ClusterFirst means Default; no event, as
		// every pod of such a kubelet would get one.
		clusterFirst = false
		policy = corev1.DNSDefault
	}
	var c kruntime.DNSConfig
	switch {
	case policy == corev1.DNSNone:
	case clusterFirst:
		host, err := d.hostDNS()
		if err != nil {
			return c, nil, err
		}
		domain := strings.TrimSuffix(d.ClusterDomain, ".")
		c.Servers = slices.Clone(d.ClusterDNS)
		c.Searches = append([]string{pod.Namespace + ".svc." + domain, "svc." + domain, domain}, host.Searches...)
		c.Options = []string{"ndots:5"}
	default:
		// Default, and ClusterFirst with host networking.
		host, err := d.hostDNS()
		if err != nil {
			return c, nil, err
		}
		c = host
	}
	if dc := pod.Spec.DNSConfig; dc != nil {
		c.Servers = appendNew(c.Servers, dc.Nameservers...)
		c.Searches = appendNew(c.Searches, dc.Searches...)
		c.Options = mergeOptions(c.Options, dc.Options)
	}
	if len(c.Servers) > maxDNSNameservers {
		warnings = append(warnings, fmt.Sprintf("Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: %s", strings.Join(c.Servers[:maxDNSNameservers], " ")))
		c.Servers = c.Servers[:maxDNSNameservers]
	}
	c.Searches, warnings = limitSearches(c.Searches, warnings)
	return c, warnings, nil
}

// limitSearches keeps at most 32 domains and 2048 characters.
func limitSearches(s []string, warnings []string) ([]string, []string) {
	total, n := 0, 0
	for n < len(s) && n < maxDNSSearchPaths {
		add := len(s[n])
		if n > 0 {
			add++
		}
		if total+add > maxDNSSearchListChars {
			break
		}
		total += add
		n++
	}
	if n < len(s) {
		warnings = append(warnings, fmt.Sprintf("Search Line limits were exceeded, some search paths have been omitted, the applied search line is: %s", strings.Join(s[:n], " ")))
	}
	return s[:n], warnings
}

func appendNew(dst []string, add ...string) []string {
	for _, a := range add {
		if a != "" && !slices.Contains(dst, a) {
			dst = append(dst, a)
		}
	}
	return dst
}

// mergeOptions adds the pod's options to the base ones; a pod option
// replaces a base option of the same name.
func mergeOptions(base []string, pod []corev1.PodDNSConfigOption) []string {
	out := slices.Clone(base)
	for _, o := range pod {
		s := o.Name
		if o.Value != nil {
			s += ":" + *o.Value
		}
		i := slices.IndexFunc(out, func(b string) bool { n, _, _ := strings.Cut(b, ":"); return n == o.Name })
		if i >= 0 {
			out[i] = s
		} else {
			out = append(out, s)
		}
	}
	return out
}

// resolvConfName is the pod's resolv.conf under its directory: the CRI
// runtime gets the same content as the sandbox's DNS config; a runtime
// with per-pod mount namespaces bind-mounts this file on /etc/resolv.conf.
const resolvConfName = "resolv.conf"

// writeResolvConf computes the pod's DNS config, records the warnings as
// events and writes the pod's resolv.conf file.
func (kl *Kubelet) writeResolvConf(ctx context.Context, pod *corev1.Pod) (*kruntime.DNSConfig, error) {
	c, warnings, err := kl.cfg.DNS.PodDNS(pod)
	if err != nil {
		return nil, fmt.Errorf("pod DNS config: %w", err)
	}
	for _, w := range warnings {
		kl.events.pod(ctx, pod, corev1.EventTypeWarning, eventDNSConfigForming, "%s", w)
	}
	dir := kl.podDir(string(pod.UID))
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("pod directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, resolvConfName), c.ResolvConf(), 0o644); err != nil {
		return nil, fmt.Errorf("write pod resolv.conf: %w", err)
	}
	return &c, nil
}
