package typed

import (
	"fmt"

	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/cache"
)

// ListWatch returns the ListerWatcher of a built-in resource in namespace
// ("" for all namespaces; ignored for a cluster-scoped resource). With it
// a Clientset is the source of a shared informer factory:
//
//	factory := informers.NewSharedInformerFactory(clientset)
//
// A resource the Clientset does not serve is an error.
func (cs *Clientset) ListWatch(gvr schema.GroupVersionResource, namespace string) (cache.ListerWatcher, error) {
	newLW, ok := cs.listWatchers()[gvr]
	if !ok {
		return nil, fmt.Errorf("list and watch %s: not a built-in resource served by the clientset", gvr)
	}
	return newLW(namespace), nil
}

// listWatchers maps each built-in resource to the maker of its
// ListerWatcher, through the REST client of the resource's group.
func (cs *Clientset) listWatchers() map[schema.GroupVersionResource]func(namespace string) cache.ListerWatcher {
	m := map[schema.GroupVersionResource]func(string) cache.ListerWatcher{}
	add := func(gvr schema.GroupVersionResource, f func(string) cache.ListerWatcher) { m[gvr] = f }
	add(listWatcher(cs.core, PodsResource()))
	add(listWatcher(cs.core, PodTemplatesResource()))
	add(listWatcher(cs.core, NodesResource()))
	add(listWatcher(cs.core, NamespacesResource()))
	add(listWatcher(cs.core, ServicesResource()))
	add(listWatcher(cs.core, EndpointsResource()))
	add(listWatcher(cs.core, ConfigMapsResource()))
	add(listWatcher(cs.core, SecretsResource()))
	add(listWatcher(cs.core, ServiceAccountsResource()))
	add(listWatcher(cs.core, EventsResource()))
	add(listWatcher(cs.core, PersistentVolumesResource()))
	add(listWatcher(cs.core, PersistentVolumeClaimsResource()))
	add(listWatcher(cs.core, ReplicationControllersResource()))
	add(listWatcher(cs.core, ResourceQuotasResource()))
	add(listWatcher(cs.core, LimitRangesResource()))
	add(listWatcher(cs.apps, DeploymentsResource()))
	add(listWatcher(cs.apps, ReplicaSetsResource()))
	add(listWatcher(cs.apps, StatefulSetsResource()))
	add(listWatcher(cs.apps, DaemonSetsResource()))
	add(listWatcher(cs.apps, ControllerRevisionsResource()))
	add(listWatcher(cs.batch, JobsResource()))
	add(listWatcher(cs.batch, CronJobsResource()))
	add(listWatcher(cs.coordination, LeasesResource()))
	add(listWatcher(cs.scheduling, PriorityClassesResource()))
	add(listWatcher(cs.policy, PodDisruptionBudgetsResource()))
	add(listWatcher(cs.certificates, CertificateSigningRequestsResource()))
	add(listWatcher(cs.discovery, EndpointSlicesResource()))
	add(listWatcher(cs.rbac, RolesResource()))
	add(listWatcher(cs.rbac, ClusterRolesResource()))
	add(listWatcher(cs.rbac, RoleBindingsResource()))
	add(listWatcher(cs.rbac, ClusterRoleBindingsResource()))
	add(listWatcher(cs.storage, StorageClassesResource()))
	add(listWatcher(cs.autoscaling, HorizontalPodAutoscalersResource()))
	add(listWatcher(cs.networking, ServiceCIDRsResource()))
	add(listWatcher(cs.networking, IPAddressesResource()))
	return m
}

// listWatcher returns res's GroupVersionResource and the maker of its
// ListerWatcher through rc.
func listWatcher[T Object, L List](rc *rest.Client, res Resource[T, L]) (schema.GroupVersionResource, func(string) cache.ListerWatcher) {
	return res.GroupVersionResource, func(namespace string) cache.ListerWatcher {
		return cache.ListWatchFromClient[L](NewClient(rc, res, namespace))
	}
}
