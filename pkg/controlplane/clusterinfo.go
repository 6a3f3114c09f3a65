package controlplane

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/clientcmd"
	clientcmdapi "kubecore.io/client/tools/clientcmd/api"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/auth/bootstrappolicy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ClusterInfoPath is the URL path of cluster-info, which anonymous users
// may GET (and nothing else).
const ClusterInfoPath = bootstrappolicy.ClusterInfoPath

// objectWriter is a storage that creates, reads and replaces objects.
type objectWriter interface {
	rest.Creater
	rest.Getter
	rest.Updater
}

// ClusterInfoKubeconfig is the content of cluster-info's kubeconfig key:
// one cluster with the server and CA (kubeadm names it "", which
// kubeconfig loaders refuse), and no credentials.
func ClusterInfoKubeconfig(server string, caPEM []byte) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubecore"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	return clientcmd.Marshal(cfg)
}

// publishClusterInfo creates or refreshes the ConfigMap
// kube-public/cluster-info with the CA and the advertised URL. Anyone may
// read it (see bootstrappolicy.ClusterInfoName): a joining node checks
// the CA it finds there against the hash it was given.
func (in *Instance) publishClusterInfo(ctx context.Context) error {
	if len(in.clusterCA) == 0 || !in.advertise.valid() || in.configMaps == nil {
		return nil
	}
	server := "https://" + net.JoinHostPort(in.advertise.IP.String(), strconv.Itoa(in.advertise.Port))
	data, err := ClusterInfoKubeconfig(server, in.clusterCA)
	if err != nil {
		return fmt.Errorf("cluster-info: %w", err)
	}
	ns, name := metav1.NamespacePublic, bootstrappolicy.ClusterInfoName
	ctx = apirequest.WithNamespace(ctx, ns)
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{bootstrappolicy.ClusterInfoKey: string(data)}}
	_, err = in.configMaps.Create(ctx, want, nil, &metav1.CreateOptions{})
	if err == nil || !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("create configmap %s/%s: %w", ns, name, err)
		}
		return nil
	}
	obj, err := in.configMaps.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get configmap %s/%s: %w", ns, name, err)
	}
	cur, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return fmt.Errorf("configmap storage returned %T", obj)
	}
	if key := bootstrappolicy.ClusterInfoKey; cur.Data[key] == want.Data[key] {
		return nil
	}
	upd := cur.DeepCopy()
	if upd.Data == nil {
		upd.Data = map[string]string{}
	}
	upd.Data[bootstrappolicy.ClusterInfoKey] = want.Data[bootstrappolicy.ClusterInfoKey]
	if _, _, err := in.configMaps.Update(ctx, name, replaceWith{upd}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update configmap %s/%s: %w", ns, name, err)
	}
	return nil
}
