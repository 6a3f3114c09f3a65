package network

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"k8s.io/klog/v2"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"
)

// The files WriteCNIConfig writes into containerd's CNI config dir.
const (
	CNIConfFile     = "10-kubecore.conflist"
	CNILoopbackFile = "99-loopback.conf"
	// CNINetworkName is the conflist's network name.
	CNINetworkName = "kubecore"
)

// CNIConfig returns the CNI configuration the CRI runtime (containerd)
// networks pods with, the same network the process runtime makes: the
// standard bridge plugin on bridge (the gateway, masquerading traffic that
// leaves the node), host-local addresses from the node's pod CIDR, portmap
// for hostPort, and the loopback plugin's own file.
func CNIConfig(podCIDR netip.Prefix, bridge string) (conflist, loopback []byte, err error) {
	if !podCIDR.IsValid() || !podCIDR.Addr().Is4() {
		return nil, nil, fmt.Errorf("CNI config: an IPv4 pod CIDR is required, not %q", podCIDR)
	}
	if bridge == "" {
		bridge = DefaultBridge
	}
	podCIDR = podCIDR.Masked()
	list := map[string]any{
		"cniVersion": "1.0.0",
		"name":       CNINetworkName,
		"plugins": []any{
			map[string]any{
				"type":        "bridge",
				"bridge":      bridge,
				"isGateway":   true,
				"ipMasq":      true,
				"hairpinMode": true,
				"ipam": map[string]any{
					"type":   "host-local",
					"ranges": []any{[]any{map[string]any{"subnet": podCIDR.String(), "gateway": gateway(podCIDR).String()}}},
					"routes": []any{map[string]any{"dst": "0.0.0.0/0"}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	if conflist, err = json.MarshalIndent(list, "", "  "); err != nil {
		return nil, nil, err
	}
	loopback, err = json.MarshalIndent(map[string]any{"cniVersion": "1.0.0", "name": "lo", "type": "loopback"}, "", "  ")
	return conflist, loopback, err
}

// WriteCNIConfig writes CNIConfig's files into dir, atomically.
func WriteCNIConfig(dir string, podCIDR netip.Prefix, bridge string) error {
	conflist, loopback, err := CNIConfig(podCIDR, bridge)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("CNI config dir: %w", err)
	}
	for name, b := range map[string][]byte{CNIConfFile: conflist, CNILoopbackFile: loopback} {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("write CNI config: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("write CNI config: %w", err)
		}
	}
	return nil
}

// RunCNI waits for the Node named node to have a pod CIDR, writes the CNI
// configuration into dir for containerd, and returns.
func RunCNI(ctx context.Context, client *typed.Clientset, node, dir string) error {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		n, err := client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err == nil && n.Spec.PodCIDR != "" {
			p, err := netip.ParsePrefix(n.Spec.PodCIDR)
			if err != nil {
				return fmt.Errorf("node %s pod CIDR: %w", node, err)
			}
			if err := WriteCNIConfig(dir, p, DefaultBridge); err != nil {
				return err
			}
			klog.InfoS("Wrote the CNI configuration for the CRI runtime", "dir", dir, "podCIDR", p)
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
}
