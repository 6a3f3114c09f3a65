package network

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

func TestCNIConfig(t *testing.T) {
	dir := t.TempDir()
	if err := WriteCNIConfig(dir, netip.MustParsePrefix("10.244.3.7/24"), ""); err != nil {
		t.Fatal(err)
	}
	var list struct {
		CNIVersion string `json:"cniVersion"`
		Name       string `json:"name"`
		Plugins    []struct {
			Type         string          `json:"type"`
			Bridge       string          `json:"bridge"`
			IsGateway    bool            `json:"isGateway"`
			IPMasq       bool            `json:"ipMasq"`
			Capabilities map[string]bool `json:"capabilities"`
			IPAM         struct {
				Type   string `json:"type"`
				Ranges [][]struct {
					Subnet, Gateway string
				} `json:"ranges"`
				Routes []struct{ Dst string } `json:"routes"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	b, err := os.ReadFile(filepath.Join(dir, CNIConfFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if list.CNIVersion != "1.0.0" || list.Name != CNINetworkName || len(list.Plugins) != 2 {
		t.Fatalf("conflist %s", b)
	}
	br, pm := list.Plugins[0], list.Plugins[1]
	if br.Type != "bridge" || br.Bridge != DefaultBridge || !br.IsGateway || !br.IPMasq {
		t.Errorf("bridge plugin %+v", br)
	}
	if br.IPAM.Type != "host-local" || len(br.IPAM.Ranges) != 1 || len(br.IPAM.Ranges[0]) != 1 ||
		br.IPAM.Ranges[0][0].Subnet != "10.244.3.0/24" || br.IPAM.Ranges[0][0].Gateway != "10.244.3.1" {
		t.Errorf("ipam %+v", br.IPAM)
	}
	if len(br.IPAM.Routes) != 1 || br.IPAM.Routes[0].Dst != "0.0.0.0/0" {
		t.Errorf("routes %+v", br.IPAM.Routes)
	}
	if pm.Type != "portmap" || !pm.Capabilities["portMappings"] {
		t.Errorf("portmap plugin %+v", pm)
	}
	var lo struct{ CNIVersion, Name, Type string }
	b, err = os.ReadFile(filepath.Join(dir, CNILoopbackFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lo); err != nil || lo.Type != "loopback" {
		t.Fatalf("loopback conf %s: %v", b, err)
	}
	if _, _, err := CNIConfig(netip.MustParsePrefix("fd00::/64"), ""); err == nil {
		t.Error("an IPv6 pod CIDR was accepted")
	}
}
