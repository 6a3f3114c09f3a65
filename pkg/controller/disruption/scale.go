package disruption

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/discovery"
	"kubecore.io/client/dynamic"
	"kubecore.io/client/tools/cache"
)

// ScaleGetter reads the scale subresource of the controller a reference
// names (its kind and apiVersion), in namespace. It returns nil and no
// error when the controller does not exist, and an error when its
// resource has no scale subresource.
type ScaleGetter interface {
	GetScale(ctx context.Context, namespace string, ref *metav1.OwnerReference) (*autoscalingv1.Scale, error)
}

var (
	replicaSetKind  = appsv1.SchemeGroupVersion.WithKind("ReplicaSet").GroupKind()
	deploymentKind  = appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind()
	statefulSetKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet").GroupKind()
)

// controllerScale is a controller of pods and its desired replicas.
type controllerScale struct {
	uid      types.UID
	replicas int32
}

// scales finds the desired replicas of the controllers of pods: from the
// listers for ReplicaSets (of a Deployment: the Deployment's), and
// StatefulSets, through the scale subresource for any other kind
// (ReplicationControllers, custom resources).
type scales struct {
	replicaSets  cache.Lister[*appsv1.ReplicaSet]
	deployments  cache.Lister[*appsv1.Deployment]
	statefulSets cache.Lister[*appsv1.StatefulSet]
	generic      ScaleGetter
}

// expected implements scaleFunc: the desired replicas of each controller
// of pods, once per controller (the pods of two ReplicaSets of one
// Deployment count the Deployment's replicas once).
func (s *scales) expected(ctx context.Context, pods []*corev1.Pod) (int32, []string, error) {
	byController := map[types.UID]int32{}
	var unmanaged []string
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if _, ok := byController[ref.UID]; ok {
			continue
		}
		cs, err := s.find(ctx, pod.Namespace, ref)
		if err != nil {
			return 0, nil, err
		}
		if cs == nil {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		byController[cs.uid] = cs.replicas
	}
	var total int32
	for _, n := range byController {
		total += n
	}
	return total, unmanaged, nil
}

// find returns the controller ref points to, and its desired replicas;
// nil when there is none.
func (s *scales) find(ctx context.Context, namespace string, ref *metav1.OwnerReference) (*controllerScale, error) {
	if rs, ok := controller.ResolveControllerRef(ref, replicaSetKind, s.replicaSets.Namespaced(namespace).Get); ok {
		dref := metav1.GetControllerOf(rs)
		if d, ok := controller.ResolveControllerRef(dref, deploymentKind, s.deployments.Namespaced(namespace).Get); ok {
			return &controllerScale{uid: d.UID, replicas: replicasOf(d.Spec.Replicas)}, nil
		}
		if dref != nil && dref.Kind == deploymentKind.Kind {
			// Owned by a Deployment the cache does not show (yet): no
			// controller found, as Kubernetes says.
			return nil, nil
		}
		return &controllerScale{uid: rs.UID, replicas: replicasOf(rs.Spec.Replicas)}, nil
	}
	if ss, ok := controller.ResolveControllerRef(ref, statefulSetKind, s.statefulSets.Namespaced(namespace).Get); ok {
		return &controllerScale{uid: ss.UID, replicas: replicasOf(ss.Spec.Replicas)}, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("controller of apiVersion %q: %w", ref.APIVersion, err)
	}
	if gv.Group == appsv1.GroupName && (ref.Kind == replicaSetKind.Kind || ref.Kind == statefulSetKind.Kind) {
		// Known kinds the caches do not hold under this uid.
		return nil, nil
	}
	if s.generic == nil {
		return nil, nil
	}
	scale, err := s.generic.GetScale(ctx, namespace, ref)
	if err != nil || scale == nil {
		return nil, err
	}
	if scale.UID != ref.UID {
		return nil, nil
	}
	return &controllerScale{uid: scale.UID, replicas: scale.Spec.Replicas}, nil
}

func replicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// discoveryScales is the ScaleGetter of every resource with a scale
// subresource: it maps the reference's kind to its resource with
// discovery (the group version of the reference, else the group's
// preferred one) and GETs the resource's scale.
type discoveryScales struct {
	disco *discovery.Client
	dyn   *dynamic.Client
	ttl   time.Duration
	now   func() time.Time

	mu    sync.Mutex
	lists map[string]cachedList
}

type cachedList struct {
	list    *metav1.APIResourceList
	fetched time.Time
}

var _ ScaleGetter = (*discoveryScales)(nil)

func newDiscoveryScales(disco *discovery.Client, now func() time.Time) *discoveryScales {
	return &discoveryScales{disco: disco, dyn: dynamic.NewClient(disco.RESTClient()), ttl: 30 * time.Second, now: now, lists: map[string]cachedList{}}
}

// GetScale implements ScaleGetter.
func (d *discoveryScales) GetScale(ctx context.Context, namespace string, ref *metav1.OwnerReference) (*autoscalingv1.Scale, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("controller of apiVersion %q: %w", ref.APIVersion, err)
	}
	gvr, hasScale, err := d.resource(ctx, gv, ref.Kind)
	if err != nil {
		return nil, err
	}
	if !hasScale {
		return nil, fmt.Errorf("%s does not implement the scale subresource", gvr.GroupResource())
	}
	req, err := d.dyn.Resource(gvr).Namespace(namespace).NewRequest("GET", ref.Name, "scale")
	if err != nil {
		return nil, err
	}
	scale := &autoscalingv1.Scale{}
	if err := req.Do(ctx).Into(scale); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get the scale of %s %s/%s: %w", gvr.GroupResource(), namespace, ref.Name, err)
	}
	return scale, nil
}

// resource maps kind of group version gv to its resource, and says
// whether that has a scale subresource. A kind not found in a list read
// more than ttl ago reads it again.
func (d *discoveryScales) resource(ctx context.Context, gv schema.GroupVersion, kind string) (schema.GroupVersionResource, bool, error) {
	list, err := d.list(ctx, gv, false)
	if err == nil {
		if gvr, scale, ok := findKind(gv, list, kind); ok {
			return gvr, scale, nil
		}
	}
	if list, err = d.list(ctx, gv, true); err != nil && !apierrors.IsNotFound(err) {
		return schema.GroupVersionResource{}, false, err
	}
	if err == nil {
		if gvr, scale, ok := findKind(gv, list, kind); ok {
			return gvr, scale, nil
		}
	}
	// The reference's version is not served (any more): try the group's
	// preferred version.
	groups, gerr := d.disco.ServerGroups(ctx)
	if gerr != nil {
		return schema.GroupVersionResource{}, false, fmt.Errorf("discover the groups: %w", gerr)
	}
	for _, g := range groups.Groups {
		if g.Name != gv.Group || g.PreferredVersion.Version == gv.Version {
			continue
		}
		pgv := schema.GroupVersion{Group: g.Name, Version: g.PreferredVersion.Version}
		if plist, perr := d.list(ctx, pgv, false); perr == nil {
			if gvr, scale, ok := findKind(pgv, plist, kind); ok {
				return gvr, scale, nil
			}
		}
	}
	return schema.GroupVersionResource{}, false, fmt.Errorf("no matches for kind %q in version %q", kind, gv.String())
}

func (d *discoveryScales) list(ctx context.Context, gv schema.GroupVersion, refresh bool) (*metav1.APIResourceList, error) {
	key := gv.String()
	d.mu.Lock()
	c, ok := d.lists[key]
	d.mu.Unlock()
	if ok && (!refresh || d.now().Sub(c.fetched) < d.ttl) {
		return c.list, nil
	}
	list, err := d.disco.ServerResourcesForGroupVersion(ctx, key)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.lists[key] = cachedList{list: list, fetched: d.now()}
	d.mu.Unlock()
	return list, nil
}

// findKind finds the resource serving kind in list, and whether it has a
// scale subresource.
func findKind(gv schema.GroupVersion, list *metav1.APIResourceList, kind string) (schema.GroupVersionResource, bool, bool) {
	var name string
	for _, r := range list.APIResources {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			name = r.Name
			break
		}
	}
	if name == "" {
		return schema.GroupVersionResource{}, false, false
	}
	for _, r := range list.APIResources {
		if r.Name == name+"/scale" {
			return gv.WithResource(name), true, true
		}
	}
	return gv.WithResource(name), false, true
}
