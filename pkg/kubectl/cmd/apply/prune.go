package apply

import (
	"context"
	"fmt"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	applypatch "kubecore.io/kubecore/pkg/kubectl/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// defaultPruneKinds are the kinds kubectl prunes when no --prune-allowlist
// is given; those the server does not serve are skipped.
func defaultPruneKinds() []string {
	return []string{
		"core/v1/ConfigMap", "core/v1/Endpoints", "core/v1/Namespace", "core/v1/PersistentVolumeClaim",
		"core/v1/PersistentVolume", "core/v1/Pod", "core/v1/ReplicationController", "core/v1/Secret",
		"core/v1/Service", "batch/v1/Job", "batch/v1/CronJob", "networking.k8s.io/v1/Ingress",
		"apps/v1/DaemonSet", "apps/v1/Deployment", "apps/v1/ReplicaSet", "apps/v1/StatefulSet",
	}
}

// parsePruneKind reads group/version/Kind, "core" naming the core group.
func parsePruneKind(s string) (schema.GroupVersionKind, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return schema.GroupVersionKind{}, fmt.Errorf("invalid GroupVersionKind format: %v, please follow <group/version/kind>", s)
	}
	group := parts[0]
	if group == "core" {
		group = ""
	}
	return schema.GroupVersionKind{Group: group, Version: parts[1], Kind: parts[2]}, nil
}

// applied identifies an object apply wrote.
type applied struct {
	resource  schema.GroupVersionResource
	namespace string
	name      string
}

// prune deletes the objects of the allowed kinds that match the selector,
// were created by apply (they carry its annotation), and were not in the
// manifests this time.
func (o *Options) prune(ctx context.Context, visited map[applied]bool, namespaces map[string]bool) error {
	mapper, err := o.factory.Mapper()
	if err != nil {
		return err
	}
	kinds := o.PruneAllowlist
	explicit := len(kinds) > 0
	if !explicit {
		kinds = defaultPruneKinds()
	}
	var mappings []*restmapper.Mapping
	for _, k := range kinds {
		gvk, err := parsePruneKind(k)
		if err != nil {
			return err
		}
		m, err := mapper.KindFor(ctx, gvk)
		if err != nil {
			if explicit {
				return fmt.Errorf("error retrieving RESTMappings to prune: %w", err)
			}
			continue
		}
		mappings = append(mappings, m)
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	propagation := metav1.DeletePropagationBackground
	for _, m := range mappings {
		scopes := []string{""}
		if m.Namespaced {
			scopes = scopes[:0]
			for ns := range namespaces {
				scopes = append(scopes, ns)
			}
		}
		for _, ns := range scopes {
			c := dyn.Resource(m.Resource).Namespace(ns)
			list, err := c.List(ctx, metav1.ListOptions{LabelSelector: o.Selector})
			if err != nil {
				return fmt.Errorf("list %s to prune: %w", m.GroupResource(), err)
			}
			for _, item := range list.Items() {
				key := applied{resource: m.Resource, namespace: item.GetNamespace(), name: item.GetName()}
				if visited[key] {
					continue
				}
				if _, ok := item.GetAnnotations()[applypatch.LastAppliedAnnotation]; !ok {
					continue
				}
				if o.dryRun != cmdutil.DryRunClient {
					_, err := c.Delete(ctx, item.GetName(), metav1.DeleteOptions{PropagationPolicy: &propagation, DryRun: o.dryRun.Param()})
					if err != nil {
						return err
					}
				}
				fmt.Fprintf(o.streams.Out, "%s/%s pruned%s\n", m.KindName(), item.GetName(), o.dryRun.Suffix())
			}
		}
	}
	return nil
}
