package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// FieldManager is the manager name the operator applies under.
const FieldManager = "widget-operator"

// ConfigMapLabel is the label the operator applies on each Widget, naming
// its ConfigMap.
const ConfigMapLabel = "example.kubecore.io/configmap"

// widgetGVK is the custom resource the operator reconciles.
var widgetGVK = schema.GroupVersionKind{Group: "example.kubecore.io", Version: "v1", Kind: "Widget"}

func main() {
	var namespace, leaseName string
	flag.StringVar(&namespace, "namespace", "", "the only namespace watched, and where the leader election Lease lives")
	flag.StringVar(&leaseName, "lease", "widget-operator.example.kubecore.io", "name of the leader election Lease")
	opts := zap.Options{Development: true}
	opts.BindFlags(flag.CommandLine)
	flag.Parse() // --kubeconfig is controller-runtime's own flag
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	if namespace == "" {
		fmt.Fprintln(os.Stderr, "--namespace is required")
		os.Exit(2)
	}
	if err := run(ctrl.SetupSignalHandler(), namespace, leaseName); err != nil {
		ctrl.Log.Error(err, "operator failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, namespace, leaseName string) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("load client config: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		LeaderElection:                true,
		LeaderElectionID:              leaseName,
		LeaderElectionNamespace:       namespace,
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
	})
	if err != nil {
		return fmt.Errorf("new manager: %w", err)
	}
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(widgetGVK)
	err = ctrl.NewControllerManagedBy(mgr).
		For(widget).
		Owns(&corev1.ConfigMap{}).
		Complete(&reconciler{client: mgr.GetClient()})
	if err != nil {
		return fmt.Errorf("new controller: %w", err)
	}
	return mgr.Start(ctx)
}

// reconciler applies, for each Widget, a ConfigMap of the same name holding
// its spec.entries as data, owned by the Widget, and the Widget's status.
type reconciler struct {
	client client.Client
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(widgetGVK)
	if err := r.client.Get(ctx, req.NamespacedName, widget); err != nil {
		// A deleted Widget's ConfigMap goes by garbage collection.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if widget.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, nil
	}
	data, err := entries(widget)
	if err != nil {
		return ctrl.Result{}, err
	}
	cm := corev1ac.ConfigMap(widget.GetName(), widget.GetNamespace()).
		WithLabels(map[string]string{"app.kubernetes.io/managed-by": FieldManager}).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(widgetGVK.GroupVersion().String()).
			WithKind(widgetGVK.Kind).
			WithName(widget.GetName()).
			WithUID(widget.GetUID()).
			WithController(true).
			WithBlockOwnerDeletion(true)).
		WithData(data)
	if err := r.client.Apply(ctx, cm, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply config map %s: %w", req.NamespacedName, err)
	}

	// A label on the Widget itself, applied with the Patch(obj,
	// client.Apply) form older operators use.
	label := &unstructured.Unstructured{}
	label.SetGroupVersionKind(widgetGVK)
	label.SetName(widget.GetName())
	label.SetNamespace(widget.GetNamespace())
	label.SetLabels(map[string]string{ConfigMapLabel: widget.GetName()})
	//lint:ignore SA1019 the deprecated Patch form is exercised beside client.Apply on purpose
	if err := r.client.Patch(ctx, label, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil { //nolint:staticcheck // see above
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	// The status, applied through the status subresource.
	status := &unstructured.Unstructured{}
	status.SetGroupVersionKind(widgetGVK)
	status.SetName(widget.GetName())
	status.SetNamespace(widget.GetNamespace())
	keys := make([]any, 0, len(data))
	for _, k := range slices.Sorted(maps.Keys(data)) {
		keys = append(keys, k)
	}
	if err := unstructured.SetNestedField(status.Object, map[string]any{
		"observedGeneration": widget.GetGeneration(),
		"configMapName":      widget.GetName(),
		"keys":               keys,
	}, "status"); err != nil {
		return ctrl.Result{}, err
	}
	statusAC := client.ApplyConfigurationFromUnstructured(status)
	if err := r.client.Status().Apply(ctx, statusAC, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("apply status of widget %s: %w", req.NamespacedName, err)
	}
	log.Info("applied", "configMap", widget.GetName(), "keys", len(data), "generation", widget.GetGeneration())
	return ctrl.Result{}, nil
}

// entries reads spec.entries, a list of {key, value} keyed by key.
func entries(widget *unstructured.Unstructured) (map[string]string, error) {
	list, _, err := unstructured.NestedSlice(widget.Object, "spec", "entries")
	if err != nil {
		return nil, fmt.Errorf("widget %s/%s spec.entries: %w", widget.GetNamespace(), widget.GetName(), err)
	}
	data := make(map[string]string, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("widget %s/%s spec.entries[%d] is not an object", widget.GetNamespace(), widget.GetName(), i)
		}
		k, _ := m["key"].(string)
		v, _ := m["value"].(string)
		data[k] = v
	}
	return data, nil
}
