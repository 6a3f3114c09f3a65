// Package controller runs, inside the API server, the controllers of
// CustomResourceDefinitions: it accepts a definition's names (or reports
// the conflict in NamesAccepted), establishes it and serves its resource
// dynamically while it is Established, and on deletion deletes its
// objects before removing the cleanup finalizer.
package controller

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/apiextensions/customresource"
	"kubecore.io/kubecore/pkg/apiextensions/registry/customresourcedefinition"
	"kubecore.io/kubecore/pkg/apiextensions/validation"
	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// cleanupRetry is how soon a definition whose objects are not all gone
// yet (finalizers of their own) is looked at again.
const cleanupRetry = time.Second

// Controller serves the resources of Established definitions and keeps
// every definition's status and finalizer.
type Controller struct {
	crds    *customresourcedefinition.Storage
	groups  *apiserver.DynamicGroups
	opts    generic.StoreOptions
	hooks   *customresource.ConversionWebhooks
	now     func() time.Time
	queue   workqueue.TypedRateLimitingInterface[string]
	inf     *cache.Informer[*apiextensionsv1.CustomResourceDefinition]
	lister  cache.Lister[*apiextensionsv1.CustomResourceDefinition]
	synced  chan struct{}
	syncOne sync.Once

	mu sync.Mutex
	// served are the resources being served, by definition name.
	served map[string]*served
	// installed are the group versions set in groups.
	installed map[schema.GroupVersion]bool
}

// served is one definition's resource storage and what it was built from.
type served struct {
	generation int64
	names      apiextensionsv1.CustomResourceDefinitionNames
	group      string
	resource   *customresource.Resource
}

// New returns the controller of the definitions in crds, serving their
// resources in groups with storage made from opts; hooks reach the
// conversion webhooks of definitions with the Webhook strategy.
func New(crds *customresourcedefinition.Storage, groups *apiserver.DynamicGroups, opts generic.StoreOptions, hooks *customresource.ConversionWebhooks) *Controller {
	c := &Controller{
		crds:      crds,
		groups:    groups,
		opts:      opts,
		hooks:     hooks,
		now:       time.Now,
		queue:     workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		synced:    make(chan struct{}),
		served:    map[string]*served{},
		installed: map[schema.GroupVersion]bool{},
	}
	c.inf = cache.NewInformer[*apiextensionsv1.CustomResourceDefinition](generic.InProcessListerWatcher(crds.CustomResourceDefinition), cache.InformerOptions{
		Resource: apiextensionsv1.Resource("customresourcedefinitions"),
	})
	c.lister = c.inf.Lister()
	enqueue := func(crd *apiextensionsv1.CustomResourceDefinition) { c.queue.Add(crd.Name) }
	_, _ = c.inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*apiextensionsv1.CustomResourceDefinition]{
		AddFunc: func(crd *apiextensionsv1.CustomResourceDefinition, _ bool) { enqueue(crd) },
		UpdateFunc: func(old, crd *apiextensionsv1.CustomResourceDefinition) {
			enqueue(crd)
			// A definition that gave up names may let another take them.
			if !slices.Equal(namesOf(old), namesOf(crd)) {
				c.enqueueGroup(crd.Spec.Group, crd.Name)
			}
		},
		DeleteFunc: func(crd *apiextensionsv1.CustomResourceDefinition) {
			enqueue(crd)
			c.enqueueGroup(crd.Spec.Group, crd.Name)
		},
	})
	return c
}

// Synced is closed once every definition that existed at start has been
// synced once: their resources are served.
func (c *Controller) Synced() <-chan struct{} { return c.synced }

// Run runs the controller until ctx ends, then stops serving and releases
// every resource's watch cache.
func (c *Controller) Run(ctx context.Context) error {
	go c.inf.Run(ctx)
	go c.markSynced(ctx)
	err := controller.Run(ctx, "customresourcedefinition", 1, c.queue, c.sync, c.inf.HasSynced)
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, s := range c.served {
		c.unserveLocked(name, s)
	}
	return err
}

// markSynced closes Synced once the initial definitions have been synced.
func (c *Controller) markSynced(ctx context.Context) {
	if err := controller.WaitForCacheSync(ctx, c.inf.HasSynced); err != nil {
		return
	}
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		return
	}
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if c.allSynced(crds) {
			c.syncOne.Do(func() { close(c.synced) })
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// allSynced: every established definition of crds is served.
func (c *Controller) allSynced(crds []*apiextensionsv1.CustomResourceDefinition) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, crd := range crds {
		current, err := c.lister.Get(crd.Name)
		if err != nil || !validation.IsEstablished(current) || current.DeletionTimestamp != nil {
			continue
		}
		if _, ok := c.served[crd.Name]; !ok {
			return false
		}
	}
	return true
}

// enqueueGroup enqueues the definitions of group other than except.
func (c *Controller) enqueueGroup(group, except string) {
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, crd := range crds {
		if crd.Spec.Group == group && crd.Name != except {
			c.queue.Add(crd.Name)
		}
	}
}

// sync brings one definition's status, serving and finalizer up to date.
func (c *Controller) sync(ctx context.Context, name string) error {
	crd, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		c.unserve(name)
		return nil
	}
	if err != nil {
		return err
	}
	if crd.DeletionTimestamp != nil {
		return c.finalize(ctx, crd)
	}
	want := c.withStatus(crd)
	if !validation.IsEstablished(want) {
		c.unserve(name)
		return c.writeStatus(ctx, crd, want)
	}
	// Served before the status says Established: a client that waits for
	// the condition finds the resource there.
	if err := c.serve(want); err != nil {
		return err
	}
	return c.writeStatus(ctx, crd, want)
}

// namesOf lists every name a definition holds in its group.
func namesOf(crd *apiextensionsv1.CustomResourceDefinition) []string {
	n := crd.Status.AcceptedNames
	out := []string{"plural:" + n.Plural, "singular:" + n.Singular, "kind:" + n.Kind, "listKind:" + n.ListKind}
	for _, s := range n.ShortNames {
		out = append(out, "short:"+s)
	}
	return out
}

// acceptNames decides the names crd may take in its group: the wanted
// ones, unless another definition of the group holds one of them.
func (c *Controller) acceptNames(crd *apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition) {
	plurals, singulars, kinds, shorts := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	others, _ := c.lister.List(labels.Everything())
	for _, o := range others {
		if o.Name == crd.Name || o.Spec.Group != crd.Spec.Group {
			continue
		}
		n := o.Status.AcceptedNames
		plurals[n.Plural], singulars[n.Singular] = true, true
		kinds[n.Kind], kinds[n.ListKind] = true, true
		for _, s := range n.ShortNames {
			shorts[s] = true
		}
	}
	want := crd.Spec.Names
	conflict := func(reason, name string) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition) {
		return crd.Status.AcceptedNames, apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionFalse,
			Reason: reason, Message: fmt.Sprintf("%q is already in use", name),
		}
	}
	switch {
	case plurals[want.Plural]:
		return conflict("PluralConflict", want.Plural)
	case singulars[want.Singular]:
		return conflict("SingularConflict", want.Singular)
	case kinds[want.Kind]:
		return conflict("KindConflict", want.Kind)
	case kinds[want.ListKind]:
		return conflict("ListKindConflict", want.ListKind)
	}
	for _, s := range want.ShortNames {
		if shorts[s] {
			return conflict("ShortNamesConflict", s)
		}
	}
	return want, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue,
		Reason: "NoConflicts", Message: "no conflicts found",
	}
}

// withStatus returns crd with its accepted names and its NamesAccepted and
// Established conditions brought up to date.
func (c *Controller) withStatus(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	out := crd.DeepCopy()
	now := metav1.NewTime(c.now().Truncate(time.Second))
	names, accepted := c.acceptNames(crd)
	out.Status.AcceptedNames = names
	validation.SetCondition(out, accepted, now)
	established := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue,
		Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
	}
	if names.Plural == "" {
		established = apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: "NotAccepted", Message: "not all names are accepted",
		}
	} else if validation.IsEstablished(crd) {
		established = *validation.FindCondition(crd, apiextensionsv1.Established)
	}
	validation.SetCondition(out, established, now)
	return out
}

// writeStatus stores want's status when it differs from crd's.
func (c *Controller) writeStatus(ctx context.Context, crd, want *apiextensionsv1.CustomResourceDefinition) error {
	if statusEqual(want, crd) {
		return nil
	}
	if _, _, err := c.crds.Status.Update(ctx, crd.Name, statusUpdate{want}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update status of %s: %w", crd.Name, err)
	}
	return nil
}

func statusEqual(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	return reflect.DeepEqual(a.Status, b.Status)
}

// statusUpdate writes a definition's status, guarded by the resourceVersion
// it was computed from.
type statusUpdate struct {
	crd *apiextensionsv1.CustomResourceDefinition
}

func (u statusUpdate) Preconditions() *metav1.Preconditions { return nil }

func (u statusUpdate) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return u.crd.DeepCopy(), nil
}

// serve serves crd's resource, rebuilding its storage when the definition
// changed.
func (c *Controller) serve(crd *apiextensionsv1.CustomResourceDefinition) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.served[crd.Name]; ok && s.generation == crd.Generation && reflect.DeepEqual(s.names, crd.Status.AcceptedNames) {
		return nil
	}
	res, err := customresource.NewResource(crd, c.opts, c.now, c.hooks)
	if err != nil {
		return fmt.Errorf("storage of %s: %w", crd.Name, err)
	}
	old, hadOld := c.served[crd.Name]
	c.served[crd.Name] = &served{generation: crd.Generation, names: crd.Status.AcceptedNames, group: crd.Spec.Group, resource: res}
	if err := c.installGroupLocked(crd.Spec.Group); err != nil {
		// Serve what was served before; the retry builds anew.
		if hadOld {
			c.served[crd.Name] = old
		} else {
			delete(c.served, crd.Name)
		}
		if restoreErr := c.installGroupLocked(crd.Spec.Group); restoreErr != nil {
			klog.ErrorS(restoreErr, "Cannot restore the served group", "group", crd.Spec.Group)
		}
		res.Destroy()
		return err
	}
	if hadOld {
		old.resource.Destroy()
	}
	klog.V(2).InfoS("Serving custom resource", "crd", crd.Name, "generation", crd.Generation)
	return nil
}

// unserve stops serving the resource of the named definition.
func (c *Controller) unserve(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.served[name]; ok {
		c.unserveLocked(name, s)
	}
}

func (c *Controller) unserveLocked(name string, s *served) {
	delete(c.served, name)
	if err := c.installGroupLocked(s.group); err != nil {
		klog.ErrorS(err, "Cannot update the served group", "group", s.group)
	}
	s.resource.Destroy()
	klog.V(2).InfoS("Stopped serving custom resource", "crd", name)
}

// installGroupLocked serves every version of group that served
// definitions have, each with all their resources, and stops serving the
// versions none has any more; c.mu is held.
func (c *Controller) installGroupLocked(group string) error {
	versions := map[string]map[string]rest.Storage{}
	for _, s := range c.served {
		if s.group != group {
			continue
		}
		for v, paths := range s.resource.Versions {
			if versions[v] == nil {
				versions[v] = map[string]rest.Storage{}
			}
			for p, st := range paths {
				versions[v][p] = st
			}
		}
	}
	for gv := range c.installed {
		if _, ok := versions[gv.Version]; gv.Group == group && !ok {
			c.groups.Remove(gv)
			delete(c.installed, gv)
		}
	}
	for v, paths := range versions {
		gv := schema.GroupVersion{Group: group, Version: v}
		if err := c.groups.Set(apiserver.APIGroupInfo{GroupVersion: gv, Storage: paths}); err != nil {
			return fmt.Errorf("serve %s: %w", gv, err)
		}
		c.installed[gv] = true
	}
	return nil
}

// finalize deletes every object of a definition being deleted, then
// removes the cleanup finalizer.
func (c *Controller) finalize(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if !slices.Contains(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return nil
	}
	crd = c.setTerminating(ctx, crd)
	remaining, err := c.deleteObjects(ctx, crd)
	if err != nil {
		return err
	}
	if remaining > 0 {
		c.queue.AddAfter(crd.Name, cleanupRetry)
		return nil
	}
	c.unserve(crd.Name)
	out := crd.DeepCopy()
	out.Finalizers = slices.DeleteFunc(out.Finalizers, func(f string) bool { return f == apiextensionsv1.CustomResourceCleanupFinalizer })
	_, _, err = c.crds.CustomResourceDefinition.Store.Update(ctx, crd.Name, statusUpdate{out}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove the finalizer of %s: %w", crd.Name, err)
	}
	klog.V(2).InfoS("Deleted the objects of a custom resource", "crd", crd.Name)
	return nil
}

// setTerminating reports the deletion in the Terminating condition and
// returns the definition as stored.
func (c *Controller) setTerminating(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	if cond := validation.FindCondition(crd, apiextensionsv1.Terminating); cond != nil && cond.Status == apiextensionsv1.ConditionTrue {
		return crd
	}
	out := crd.DeepCopy()
	validation.SetCondition(out, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress",
	}, metav1.NewTime(c.now().Truncate(time.Second)))
	obj, _, err := c.crds.Status.Update(ctx, crd.Name, statusUpdate{out}, nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Cannot set Terminating", "crd", crd.Name, "err", err)
		return crd
	}
	return obj.(*apiextensionsv1.CustomResourceDefinition)
}

// deleteObjects deletes the objects of crd's resource and returns how many
// are left (held by their own finalizers).
func (c *Controller) deleteObjects(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (int, error) {
	var main interface {
		rest.Lister
		rest.CollectionDeleter
	}
	c.mu.Lock()
	s, ok := c.served[crd.Name]
	c.mu.Unlock()
	var res *customresource.Resource
	if ok {
		res = s.resource
		res.Terminate()
	} else {
		// Never served (a names conflict): its objects may still be
		// stored from an earlier life.
		if crd.Status.AcceptedNames.Plural == "" {
			return 0, nil
		}
		built, err := customresource.NewResource(crd, c.opts, c.now, c.hooks)
		if err != nil {
			return 0, fmt.Errorf("storage of %s: %w", crd.Name, err)
		}
		defer built.Destroy()
		res = built
	}
	for _, paths := range res.Versions {
		if r, ok := paths[crd.Status.AcceptedNames.Plural].(*customresource.REST); ok {
			main = r
			break
		}
	}
	if main == nil {
		return 0, nil
	}
	everything := &rest.ListOptions{LabelSelector: labels.Everything(), FieldSelector: fields.Everything()}
	if _, err := main.DeleteCollection(ctx, nil, &metav1.DeleteOptions{}, everything); err != nil {
		return 0, fmt.Errorf("delete the objects of %s: %w", crd.Name, err)
	}
	list, err := main.List(ctx, everything)
	if err != nil {
		return 0, err
	}
	items, ok := list.(*unstructured.UnstructuredList)
	if !ok {
		return 0, fmt.Errorf("list of %s is a %T", crd.Name, list)
	}
	return len(items.Items), nil
}
