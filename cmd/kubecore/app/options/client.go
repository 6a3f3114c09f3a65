package options

import (
	"fmt"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"
)

// Client is the connection flags of a node-side component: a REST config
// handed in by an embedding command (all-in-one, the kubelet), else a
// kubeconfig file, with the request rate and encoding.
type Client struct {
	RESTConfig  *rest.Config
	Kubeconfig  string
	QPS         float32
	Burst       int
	ContentType string
}

// NewClientset builds the component's clientset; component names it in
// the User-Agent when the config sets none.
func (c Client) NewClientset(component string) (*typed.Clientset, error) {
	rc := c.RESTConfig
	if rc != nil {
		rc = rest.CopyConfig(rc)
	} else {
		var err error
		if rc, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
			return nil, fmt.Errorf("load kubeconfig %s: %w", c.Kubeconfig, err)
		}
	}
	rc.QPS, rc.Burst, rc.ContentType = c.QPS, c.Burst, c.ContentType
	if rc.UserAgent == "" {
		rc.UserAgent = rest.DefaultUserAgent() + "/" + component
	}
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", component, err)
	}
	return cs, nil
}
