package controlplane

import (
	"context"
	"fmt"
	"maps"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// The default/kubernetes Service: in-cluster clients find the API server
// through it.
const (
	kubernetesServiceName = "kubernetes"
	kubernetesPortName    = "https"
	kubernetesServicePort = 443
)

// KubernetesServiceInterval is how often the kubernetes Service and its
// Endpoints are checked and repaired.
const KubernetesServiceInterval = 10 * time.Second

// Endpoint is where clients in the cluster reach this API server: the
// address and port the kubernetes Service's Endpoints list.
type Endpoint struct {
	IP   net.IP
	Port int
}

func (e Endpoint) valid() bool { return e.IP != nil && e.Port > 0 && e.Port <= 65535 }

func (e Endpoint) String() string { return net.JoinHostPort(e.IP.String(), strconv.Itoa(e.Port)) }

// kubernetesService is the Service's wanted state: the first service IP,
// port 443 named https to the API server's port.
func (in *Instance) kubernetesService() *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:      kubernetesServiceName,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{"component": "apiserver", "provider": "kubernetes"},
		},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: in.services.FirstIP(),
			Ports:     in.kubernetesPorts(),
		},
	}
	in.Scheme.Default(svc)
	return svc
}

func (in *Instance) kubernetesPorts() []corev1.ServicePort {
	return []corev1.ServicePort{{
		Name:       kubernetesPortName,
		Protocol:   corev1.ProtocolTCP,
		Port:       kubernetesServicePort,
		TargetPort: intstr.FromInt(in.advertise.Port),
	}}
}

// kubernetesEndpoints is the Endpoints' wanted state: the live API
// servers, one subset per port.
func kubernetesEndpoints(servers []Endpoint) *corev1.Endpoints {
	byPort := map[int][]corev1.EndpointAddress{}
	for _, e := range servers {
		byPort[e.Port] = append(byPort[e.Port], corev1.EndpointAddress{IP: e.IP.String()})
	}
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Name:      kubernetesServiceName,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"},
		},
	}
	for _, port := range slices.Sorted(maps.Keys(byPort)) {
		addrs := byPort[port]
		slices.SortFunc(addrs, func(a, b corev1.EndpointAddress) int { return strings.Compare(a.IP, b.IP) })
		ep.Subsets = append(ep.Subsets, corev1.EndpointSubset{
			Addresses: addrs,
			Ports:     []corev1.EndpointPort{{Name: kubernetesPortName, Port: int32(port), Protocol: corev1.ProtocolTCP}},
		})
	}
	return ep
}

// apiServerLeases keeps one etcd key per live API server, named by its
// advertised endpoint and bound to an etcd lease: a server that stops
// renewing drops out of the kubernetes Endpoints when its lease expires.
type apiServerLeases struct {
	client *clientv3.Client
	prefix string
}

// apiServerLeaseTTL is how long a server stays listed after its last
// renewal: more than one KubernetesServiceInterval.
const apiServerLeaseTTL = 15 * time.Second

// renew records e for another apiServerLeaseTTL.
func (l apiServerLeases) renew(ctx context.Context, e Endpoint) error {
	lease, err := l.client.Grant(ctx, int64(apiServerLeaseTTL/time.Second))
	if err != nil {
		return fmt.Errorf("grant the lease of API server %s: %w", e, err)
	}
	if _, err := l.client.Put(ctx, l.prefix+e.String(), "", clientv3.WithLease(lease.ID)); err != nil {
		return fmt.Errorf("record API server %s: %w", e, err)
	}
	return nil
}

// release removes e at once, as a server shutting down does.
func (l apiServerLeases) release(ctx context.Context, e Endpoint) error {
	_, err := l.client.Delete(ctx, l.prefix+e.String())
	return err
}

// live returns the endpoints of the servers whose leases have not expired.
func (l apiServerLeases) live(ctx context.Context) ([]Endpoint, error) {
	resp, err := l.client.Get(ctx, l.prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, fmt.Errorf("list the live API servers: %w", err)
	}
	out := make([]Endpoint, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		host, port, err := net.SplitHostPort(strings.TrimPrefix(string(kv.Key), l.prefix))
		p, perr := strconv.Atoi(port)
		e := Endpoint{IP: net.ParseIP(host), Port: p}
		if err != nil || perr != nil || !e.valid() {
			continue // not ours to judge; it expires
		}
		out = append(out, e)
	}
	return out, nil
}

// ReconcileKubernetesService creates the Service default/kubernetes, its
// Endpoints and its EndpointSlice, or repairs them: the Service's type and
// ports, and Endpoints listing exactly the live API servers (this one
// renews its lease first). It does nothing without an advertised endpoint
// (Config.Advertise).
func (in *Instance) ReconcileKubernetesService(ctx context.Context) error {
	if !in.advertise.valid() || in.services == nil || in.endpoints == nil {
		return nil
	}
	ctx = apirequest.WithNamespace(ctx, metav1.NamespaceDefault)
	// Get first: a create of an existing service would fail on its
	// cluster IP, not as AlreadyExists.
	err := reconcileObject(ctx, in.services, in.kubernetesService(), func(cur, want *corev1.Service) bool {
		if cur.Spec.Type == corev1.ServiceTypeClusterIP && reflect.DeepEqual(cur.Spec.Ports, want.Spec.Ports) {
			return false
		}
		cur.Spec.Type, cur.Spec.Ports = corev1.ServiceTypeClusterIP, want.Spec.Ports
		return true
	})
	if err != nil {
		return err
	}
	if err := in.leases.renew(ctx, in.advertise); err != nil {
		return err
	}
	servers, err := in.leases.live(ctx)
	if err != nil {
		return err
	}
	err = reconcileObject(ctx, in.endpoints, kubernetesEndpoints(servers), func(cur, want *corev1.Endpoints) bool {
		if reflect.DeepEqual(cur.Subsets, want.Subsets) {
			return false
		}
		cur.Subsets = want.Subsets
		return true
	})
	if err != nil || in.endpointSlices == nil {
		return err
	}
	slice := in.kubernetesEndpointSlice(servers)
	if obj, err := in.endpointSlices.Get(ctx, slice.Name, &metav1.GetOptions{}); err == nil && obj.(*discoveryv1.EndpointSlice).AddressType != slice.AddressType {
		// The address type is immutable: a server that changed its
		// address family makes the slice anew.
		if _, _, err := in.endpointSlices.Delete(ctx, slice.Name, nil, &metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete EndpointSlice default/kubernetes: %w", err)
		}
	}
	return reconcileObject(ctx, in.endpointSlices, slice, func(cur, want *discoveryv1.EndpointSlice) bool {
		if reflect.DeepEqual(cur.Endpoints, want.Endpoints) && reflect.DeepEqual(cur.Ports, want.Ports) {
			return false
		}
		cur.Endpoints, cur.Ports = want.Endpoints, want.Ports
		return true
	})
}

// kubernetesEndpointSlice is the EndpointSlice of default/kubernetes: the
// live API servers of this one's address family and port.
func (in *Instance) kubernetesEndpointSlice(servers []Endpoint) *discoveryv1.EndpointSlice {
	family := discoveryv1.AddressTypeIPv4
	if in.advertise.IP.To4() == nil {
		family = discoveryv1.AddressTypeIPv6
	}
	var ips []string
	for _, e := range servers {
		if e.Port == in.advertise.Port && (e.IP.To4() != nil) == (family == discoveryv1.AddressTypeIPv4) {
			ips = append(ips, e.IP.String())
		}
	}
	slices.Sort(ips)
	ready := true
	endpoints := make([]discoveryv1.Endpoint, 0, len(ips))
	for _, ip := range ips {
		endpoints = append(endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	name, protocol, port := kubernetesPortName, corev1.ProtocolTCP, int32(in.advertise.Port)
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      kubernetesServiceName,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{discoveryv1.LabelServiceName: kubernetesServiceName},
		},
		AddressType: family,
		Endpoints:   endpoints,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Protocol: &protocol, Port: &port}},
	}
}

// objectStorage is what reconcileObject needs of a storage.
type objectStorage interface {
	rest.Getter
	rest.Creater
	rest.Updater
}

// reconcileObject creates want through st when missing; otherwise repair
// changes a copy of the stored object to want's state and reports whether
// it did, and the copy is written.
func reconcileObject[T interface {
	runtime.Object
	metav1.Object
}](ctx context.Context, st objectStorage, want T, repair func(cur, want T) bool) error {
	what := fmt.Sprintf("%s %s/%s", reflect.TypeOf(want).Elem().Name(), want.GetNamespace(), want.GetName())
	obj, err := st.Get(ctx, want.GetName(), &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err := st.Create(ctx, want, nil, &metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create %s: %w", what, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("get %s: %w", what, err)
	}
	cur, ok := obj.DeepCopyObject().(T)
	if !ok {
		return fmt.Errorf("%s: storage returned %T", what, obj)
	}
	if !repair(cur, want) {
		return nil
	}
	if _, _, err := st.Update(ctx, want.GetName(), replaceWith{cur}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update %s: %w", what, err)
	}
	return nil
}

// RunKubernetesService reconciles the kubernetes Service and Endpoints
// every interval until ctx ends, so that a deleted or edited one comes
// back. Failures to reconcile are logged and retried; it returns nil once
// ctx ended and this server left the Endpoints, so that the API server can
// run it under its errgroup beside its other loops.
func (in *Instance) RunKubernetesService(ctx context.Context, interval time.Duration) error {
	logger := klog.FromContext(ctx)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// Leave the Endpoints now rather than when the lease
			// expires; the other servers' next reconcile drops us.
			if in.advertise.valid() {
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
				if err := in.leases.release(rctx, in.advertise); err != nil {
					logger.Error(err, "Release the API server lease")
				}
				cancel()
			}
			return nil
		case <-t.C:
		}
		if err := in.ReconcileKubernetesService(ctx); err != nil && ctx.Err() == nil {
			logger.Error(err, "Reconcile the kubernetes service")
		}
		if err := in.ReconcileServiceCIDR(ctx); err != nil && ctx.Err() == nil {
			logger.Error(err, "Reconcile the default ServiceCIDR")
		}
		if err := in.RepairServiceAllocations(ctx); err != nil && ctx.Err() == nil {
			logger.Error(err, "Repair the service allocations")
		}
	}
}
