package controlplane

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/apirequest"
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

// kubernetesEndpoints is the Endpoints' wanted state: this API server.
func (in *Instance) kubernetesEndpoints() *corev1.Endpoints {
	return &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Name:      kubernetesServiceName,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"},
		},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: in.advertise.IP.String()}},
			Ports: []corev1.EndpointPort{{
				Name: kubernetesPortName, Port: int32(in.advertise.Port), Protocol: corev1.ProtocolTCP,
			}},
		}},
	}
}

// ReconcileKubernetesService creates the Service default/kubernetes and
// its Endpoints, or repairs them: the Service's type and ports, and
// Endpoints listing exactly this API server. It does nothing without an
// advertised endpoint (Config.Advertise).
func (in *Instance) ReconcileKubernetesService(ctx context.Context) error {
	if !in.advertise.valid() || in.services == nil || in.endpoints == nil {
		return nil
	}
	ctx = apirequest.WithNamespace(ctx, metav1.NamespaceDefault)
	if err := in.reconcileService(ctx); err != nil {
		return err
	}
	return in.reconcileEndpoints(ctx)
}

func (in *Instance) reconcileService(ctx context.Context) error {
	want := in.kubernetesService()
	obj, err := in.services.Get(ctx, kubernetesServiceName, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// Get first: a create of an existing service would fail on its
		// cluster IP, not as AlreadyExists.
		if _, err := in.services.Create(ctx, want, nil, &metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create service default/kubernetes: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("get service default/kubernetes: %w", err)
	}
	cur, ok := obj.(*corev1.Service)
	if !ok {
		return fmt.Errorf("service storage returned %T", obj)
	}
	if cur.Spec.Type == corev1.ServiceTypeClusterIP && reflect.DeepEqual(cur.Spec.Ports, want.Spec.Ports) {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Spec.Type, upd.Spec.Ports = corev1.ServiceTypeClusterIP, want.Spec.Ports
	if _, _, err := in.services.Update(ctx, kubernetesServiceName, replaceWith{upd}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update service default/kubernetes: %w", err)
	}
	return nil
}

func (in *Instance) reconcileEndpoints(ctx context.Context) error {
	want := in.kubernetesEndpoints()
	obj, err := in.endpoints.Get(ctx, kubernetesServiceName, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err := in.endpoints.Create(ctx, want, nil, &metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create endpoints default/kubernetes: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("get endpoints default/kubernetes: %w", err)
	}
	cur, ok := obj.(*corev1.Endpoints)
	if !ok {
		return fmt.Errorf("endpoints storage returned %T", obj)
	}
	if reflect.DeepEqual(cur.Subsets, want.Subsets) {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Subsets = want.Subsets
	if _, _, err := in.endpoints.Update(ctx, kubernetesServiceName, replaceWith{upd}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update endpoints default/kubernetes: %w", err)
	}
	return nil
}

// RunKubernetesService reconciles the kubernetes Service and Endpoints
// every interval until ctx ends, so that a deleted or edited one comes
// back. Failures are logged and retried.
func (in *Instance) RunKubernetesService(ctx context.Context, interval time.Duration) {
	logger := klog.FromContext(ctx)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := in.ReconcileKubernetesService(ctx); err != nil && ctx.Err() == nil {
			logger.Error(err, "Reconcile the kubernetes service")
		}
	}
}
