package clientcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"kubecore.io/client/tools/clientcmd/api"
)

// FailoverExtension names the cluster extension that lists the further API
// servers of a cluster, which kubecore clients fail over to (see
// rest.Config.FailoverHosts):
//
//	clusters:
//	- name: kubecore
//	  cluster:
//	    server: https://10.0.0.1:6443
//	    certificate-authority-data: ...
//	    extensions:
//	    - name: kubecore.io/failover
//	      extension:
//	        servers:
//	        - https://10.0.0.2:6443
//
// Every server must present a certificate of the cluster's CA valid for its
// own address. The stock kubectl keeps the extension and talks to server.
const FailoverExtension = "kubecore.io/failover"

// failoverServers is the value of FailoverExtension.
type failoverServers struct {
	Servers []string `json:"servers"`
}

// SplitServers splits a comma-separated server list (--server a,b) into its
// non-empty entries.
func SplitServers(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// SetServers makes servers[0] the cluster's server and lists the others in
// its FailoverExtension, which is removed when there are none.
func SetServers(c *api.Cluster, servers []string) error {
	if len(servers) == 0 {
		return fmt.Errorf("servers: at least one required")
	}
	c.Server = servers[0]
	if len(servers) == 1 {
		delete(c.Extensions, FailoverExtension)
		return nil
	}
	raw, err := json.Marshal(failoverServers{Servers: servers[1:]})
	if err != nil {
		return err
	}
	if c.Extensions == nil {
		c.Extensions = map[string]json.RawMessage{}
	}
	c.Extensions[FailoverExtension] = raw
	return nil
}

// FailoverServers returns the servers the cluster's FailoverExtension lists
// after its server (none when it has no such extension).
func FailoverServers(c *api.Cluster) ([]string, error) {
	raw, ok := c.Extensions[FailoverExtension]
	if !ok {
		return nil, nil
	}
	var v failoverServers
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("extensions[%s]: %w", FailoverExtension, err)
	}
	for i, s := range v.Servers {
		if strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("extensions[%s].servers[%d]: empty", FailoverExtension, i)
		}
	}
	return v.Servers, nil
}
