package aggregator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"

	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// discoveryTimeout bounds one discovery check of a backend.
const discoveryTimeout = 5 * time.Second

// Reasons of the Available condition, as Kubernetes' availability
// controller words them.
const (
	ReasonPassed             = "Passed"
	ReasonServiceNotFound    = "ServiceNotFound"
	ReasonServicePortError   = "ServicePortError"
	ReasonEndpointsNotFound  = "EndpointsNotFound"
	ReasonMissingEndpoints   = "MissingEndpoints"
	ReasonFailedDiscovery    = "FailedDiscoveryCheck"
	ReasonServiceAccessError = "ServiceAccessError"
)

// The identity the discovery check is made as, Kubernetes' aggregator's.
const (
	checkUser  = "system:kube-aggregator"
	checkGroup = "system:masters"
)

func (a *Aggregator) addHandlers() error {
	// An APIService event may change the groups /apis lists.
	enqueue := func(s *apiregistrationv1.APIService) { a.bumpDiscovery(); a.queue.Add(s.Name) }
	if _, err := a.apiServices.AddEventHandler(cache.ResourceEventHandlerFuncs[*apiregistrationv1.APIService]{
		AddFunc:    func(s *apiregistrationv1.APIService, _ bool) { enqueue(s) },
		UpdateFunc: func(_, s *apiregistrationv1.APIService) { enqueue(s) },
		DeleteFunc: func(s *apiregistrationv1.APIService) { enqueue(s) },
	}); err != nil {
		return fmt.Errorf("aggregator: %w", err)
	}
	if _, err := a.services.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Service]{
		AddFunc:    func(s *corev1.Service, _ bool) { a.enqueueFor(s.Namespace, s.Name) },
		UpdateFunc: func(_, s *corev1.Service) { a.enqueueFor(s.Namespace, s.Name) },
		DeleteFunc: func(s *corev1.Service) { a.enqueueFor(s.Namespace, s.Name) },
	}); err != nil {
		return fmt.Errorf("aggregator: %w", err)
	}
	if _, err := a.endpoints.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Endpoints]{
		AddFunc:    func(e *corev1.Endpoints, _ bool) { a.enqueueFor(e.Namespace, e.Name) },
		UpdateFunc: func(_, e *corev1.Endpoints) { a.enqueueFor(e.Namespace, e.Name) },
		DeleteFunc: func(e *corev1.Endpoints) { a.enqueueFor(e.Namespace, e.Name) },
	}); err != nil {
		return fmt.Errorf("aggregator: %w", err)
	}
	return nil
}

// enqueueFor queues the APIServices backed by Service namespace/name.
func (a *Aggregator) enqueueFor(namespace, name string) {
	all, _ := a.lister.List(labels.Everything())
	for _, s := range all {
		if ref := s.Spec.Service; ref != nil && ref.Namespace == namespace && ref.Name == name {
			a.queue.Add(s.Name)
		}
	}
}

// Run keeps the caches and the APIServices' Available conditions until
// ctx ends; it returns nil then.
func (a *Aggregator) Run(ctx context.Context) error {
	go a.apiServices.Run(ctx)
	go a.services.Run(ctx)
	go a.endpoints.Run(ctx)
	defer a.cfg.Clients.Close()
	err := controller.Run(ctx, "apiservice-availability", 2, a.queue, a.sync, a.apiServices.HasSynced, a.services.HasSynced, a.endpoints.HasSynced)
	if ctx.Err() != nil {
		return nil // stopped, perhaps before the caches synced: not a failure
	}
	return err
}

// HasSynced reports whether the APIServices are in the cache.
func (a *Aggregator) HasSynced() bool { return a.apiServices.HasSynced() }

// sync checks the backend of APIService name and records the result in
// its Available condition.
func (a *Aggregator) sync(ctx context.Context, name string) error {
	s, err := a.lister.Get(name)
	if apierrors.IsNotFound(err) {
		if v, g, ok := strings.Cut(name, "."); ok {
			a.removeOpenAPI(schema.GroupVersion{Group: g, Version: v})
			a.forgetDiscovery(schema.GroupVersion{Group: g, Version: v})
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !a.aggregated(s) {
		a.forgetDiscovery(groupVersion(s))
	}
	if s.Spec.Service == nil {
		return nil // local: the control plane marks it
	}
	want := a.check(ctx, s)
	if !a.cfg.Local(groupVersion(s)) {
		a.refreshOpenAPI(ctx, s, want.Status == apiregistrationv1.ConditionTrue)
		a.refreshDiscovery(ctx, s, want.Status == apiregistrationv1.ConditionTrue)
	}
	if cur := condition(s); cur != nil && cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message {
		return nil
	}
	if want.Status != apiregistrationv1.ConditionTrue {
		klog.FromContext(ctx).V(2).Info("APIService is not available", "apiService", name, "reason", want.Reason, "message", want.Message)
	}
	_, _, err = a.cfg.APIServiceStatus.Update(ctx, name, setCondition{cond: want, now: a.cfg.Now}, nil, nil, false, &metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update the status of apiservice %s: %w", name, err)
	}
	return nil
}

func condition(s *apiregistrationv1.APIService) *apiregistrationv1.APIServiceCondition {
	for i := range s.Status.Conditions {
		if s.Status.Conditions[i].Type == apiregistrationv1.Available {
			return &s.Status.Conditions[i]
		}
	}
	return nil
}

// check finds what the Available condition of s should say.
func (a *Aggregator) check(ctx context.Context, s *apiregistrationv1.APIService) apiregistrationv1.APIServiceCondition {
	unavailable := func(reason, format string, args ...any) apiregistrationv1.APIServiceCondition {
		return apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	ref := s.Spec.Service
	gvLocal := a.cfg.Local(groupVersion(s))
	if gvLocal {
		return unavailable(ReasonServiceAccessError, "the group version %s/%s is served by this API server itself: it cannot be delegated to service/%s in %q", s.Spec.Group, s.Spec.Version, ref.Name, ref.Namespace)
	}
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	svc, err := a.services.Lister().Namespaced(ref.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return unavailable(ReasonServiceNotFound, "service/%s in %q is not present", ref.Name, ref.Namespace)
	}
	if err != nil {
		return unavailable(ReasonServiceAccessError, "service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err)
	}
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		return unavailable(ReasonServicePortError, "service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port)
	}
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		eps, err := a.endpoints.Lister().Namespaced(ref.Namespace).Get(ref.Name)
		if apierrors.IsNotFound(err) {
			return unavailable(ReasonEndpointsNotFound, "cannot find endpoints for service/%s in %q", ref.Name, ref.Namespace)
		}
		if err != nil {
			return unavailable(ReasonEndpointsNotFound, "endpoints for service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err)
		}
		if !hasAddress(eps, sp.Name) {
			return unavailable(ReasonMissingEndpoints, "endpoints for service/%s in %q have no addresses with port name %q", ref.Name, ref.Namespace, sp.Name)
		}
	}
	if err := a.discover(ctx, s); err != nil {
		return unavailable(ReasonFailedDiscovery, "%v", err)
	}
	return apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue, Reason: ReasonPassed, Message: "all checks passed"}
}

func hasAddress(eps *corev1.Endpoints, portName string) bool {
	for _, ss := range eps.Subsets {
		for _, p := range ss.Ports {
			if p.Name == portName && len(ss.Addresses) > 0 {
				return true
			}
		}
	}
	return false
}

// discover asks the backend for the group version's discovery document,
// as the aggregator: any 2xx answer passes, and so do 401 and 403 (the
// server is up, only unwilling), as in Kubernetes.
func (a *Aggregator) discover(ctx context.Context, s *apiregistrationv1.APIService) error {
	loc, err := a.resolver.Locate(ctx, clientConfig(s))
	if err != nil {
		return fmt.Errorf("failing or missing response: %w", err)
	}
	u := *loc.URL
	u.Path = "/apis/" + s.Spec.Group + "/" + s.Spec.Version
	transport, err := a.cfg.Clients.Transport(loc)
	if err != nil {
		return fmt.Errorf("failing or missing response from %s: %w", u.String(), err)
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	setIdentity(req.Header, &apirequest.UserInfo{Name: checkUser, Groups: []string{checkGroup}})
	resp, err := transport.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("failing or missing response from %s: %w", u.String(), err)
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300,
		resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		return nil
	}
	return fmt.Errorf("failing or missing response from %s: bad status from %s: %s", u.String(), u.String(), strconv.Itoa(resp.StatusCode))
}

// setCondition puts cond in the APIService's status, keeping the
// transition time when its status is unchanged.
type setCondition struct {
	cond apiregistrationv1.APIServiceCondition
	now  func() time.Time
}

var _ rest.UpdatedObjectInfo = setCondition{}

func (setCondition) Preconditions() *metav1.Preconditions { return nil }

func (u setCondition) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	s, ok := old.(*apiregistrationv1.APIService)
	if !ok {
		return nil, fmt.Errorf("not an APIService: %T", old)
	}
	s = s.DeepCopy()
	c := u.cond
	c.LastTransitionTime = metav1.NewTime(u.now())
	if cur := condition(s); cur != nil {
		if cur.Status == c.Status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
		*cur = c
	} else {
		s.Status.Conditions = append(s.Status.Conditions, c)
	}
	return s, nil
}
