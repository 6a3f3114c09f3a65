package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/aggregator"
	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/authenticator"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/pkg/webhook"
)

// NewAggregator returns the aggregation layer of this API: it proxies the
// group versions of APIServices backed by Services through clients (whose
// ClientCert is the front-proxy client certificate) and keeps their
// Available condition. The API server serves it (Config.Aggregator) and
// runs it.
func (in *Instance) NewAggregator(clients *webhook.Clients) (*aggregator.Aggregator, error) {
	local := map[schema.GroupVersion]bool{}
	for _, g := range in.Groups {
		local[g.GroupVersion] = true
	}
	return aggregator.New(aggregator.Config{
		APIServices:      in.apiServices,
		APIServiceStatus: in.apiServiceStatus,
		Services:         in.services,
		Endpoints:        in.endpoints,
		Clients:          clients,
		Local:            func(gv schema.GroupVersion) bool { return local[gv] },
	})
}

// extensionAuthentication is the content of the ConfigMap
// kube-system/extension-apiserver-authentication, as Kubernetes writes
// it: the CA of client certificates, and how a front proxy is trusted
// and names the user.
func extensionAuthentication(clusterCA, frontProxyCA []byte) (map[string]string, error) {
	data := map[string]string{"client-ca-file": string(clusterCA)}
	if len(frontProxyCA) == 0 {
		return data, nil
	}
	data["requestheader-client-ca-file"] = string(frontProxyCA)
	for key, values := range map[string][]string{
		"requestheader-allowed-names":        {pki.FrontProxyClientCN},
		"requestheader-username-headers":     {authenticator.RemoteUserHeader},
		"requestheader-group-headers":        {authenticator.RemoteGroupHeader},
		"requestheader-extra-headers-prefix": {authenticator.RemoteExtraHeaderPrefix},
	} {
		b, err := json.Marshal(values)
		if err != nil {
			return nil, err
		}
		data[key] = string(b)
	}
	return data, nil
}

// publishExtensionAuthentication creates or refreshes the ConfigMap
// kube-system/extension-apiserver-authentication, which extension API
// servers (metrics-server) read to trust the API server's front proxy.
func (in *Instance) publishExtensionAuthentication(ctx context.Context) error {
	if len(in.clusterCA) == 0 || in.configMaps == nil {
		return nil
	}
	data, err := extensionAuthentication(in.clusterCA, in.frontProxyCA)
	if err != nil {
		return fmt.Errorf("extension-apiserver-authentication: %w", err)
	}
	ns, name := metav1.NamespaceSystem, bootstrappolicy.ExtensionAuthenticationName
	ctx = apirequest.WithNamespace(ctx, ns)
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	_, err = in.configMaps.Create(ctx, want, nil, &metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create configmap %s/%s: %w", ns, name, err)
	}
	obj, err := in.configMaps.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get configmap %s/%s: %w", ns, name, err)
	}
	cur, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return fmt.Errorf("configmap storage returned %T", obj)
	}
	if maps.Equal(cur.Data, data) {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Data = data
	if _, _, err := in.configMaps.Update(ctx, name, replaceWith{upd}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update configmap %s/%s: %w", ns, name, err)
	}
	return nil
}
