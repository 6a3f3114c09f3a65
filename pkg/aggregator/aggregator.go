// Package aggregator is the API server's aggregation layer: it proxies the
// group versions of APIServices backed by a Service to the servers behind
// them, with the front-proxy identity headers and client certificate,
// lists them in discovery, and keeps each APIService's Available
// condition following its backend.
package aggregator

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apidiscoveryv2 "kubecore.io/api/apidiscovery/v2"
	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/apiserver"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/webhook"
)

// DefaultResyncPeriod is how often every APIService's backend is checked
// again when nothing changed.
const DefaultResyncPeriod = 30 * time.Second

// ListWatcher is a storage the aggregator lists and watches in-process.
type ListWatcher = rest.ListerWatcher

// Config is what an Aggregator reads and writes.
type Config struct {
	// APIServices is the storage of APIServices; APIServiceStatus updates
	// their status.
	APIServices      ListWatcher
	APIServiceStatus rest.Updater
	// Services and Endpoints are their storages: the backends are found
	// from them (pkg/webhook), and their changes recheck the APIServices.
	Services, Endpoints interface {
		ListWatcher
		rest.Getter
	}
	// Clients reach the backends; its ClientCert is the front-proxy
	// client certificate.
	Clients *webhook.Clients
	// Local reports the group versions the API server serves itself: an
	// APIService naming one is never proxied.
	Local func(schema.GroupVersion) bool
	// ResyncPeriod is DefaultResyncPeriod when zero.
	ResyncPeriod time.Duration
	// Now is the clock of the conditions; time.Now when nil.
	Now func() time.Time
}

// Aggregator proxies aggregated group versions; it implements the API
// server's Config.Aggregator. Run it to keep its caches and the
// APIServices' conditions.
type Aggregator struct {
	cfg         Config
	resolver    webhook.Resolver
	apiServices *cache.Informer[*apiregistrationv1.APIService]
	services    *cache.Informer[*corev1.Service]
	endpoints   *cache.Informer[*corev1.Endpoints]
	lister      cache.Lister[*apiregistrationv1.APIService]
	queue       workqueue.TypedRateLimitingInterface[string]

	openapiMu sync.Mutex
	openapi   apiserver.OpenAPIDocuments
	// openapiServed are the group versions whose documents it set.
	openapiServed map[schema.GroupVersion]bool

	// discovered are the aggregated discovery entries of the group
	// versions whose servers were asked; discoveryGen counts the changes
	// of what discovery lists.
	discoveryMu  sync.Mutex
	discovered   map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery
	discoveryGen atomic.Uint64
}

var _ apiserver.Aggregator = (*Aggregator)(nil)

// New returns an Aggregator of cfg's APIServices.
func New(cfg Config) (*Aggregator, error) {
	if cfg.APIServices == nil || cfg.APIServiceStatus == nil || cfg.Services == nil || cfg.Endpoints == nil || cfg.Clients == nil {
		return nil, errors.New("aggregator: the APIService, status, Service and Endpoints storages and the clients are required")
	}
	if cfg.ResyncPeriod == 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Local == nil {
		cfg.Local = func(schema.GroupVersion) bool { return false }
	}
	a := &Aggregator{
		cfg:      cfg,
		resolver: webhook.Resolver{Services: cfg.Services, Endpoints: cfg.Endpoints},
		apiServices: cache.NewInformer[*apiregistrationv1.APIService](generic.InProcessListerWatcher(cfg.APIServices), cache.InformerOptions{
			Resource: apiregistrationv1.Resource("apiservices"), ResyncPeriod: cfg.ResyncPeriod,
		}),
		services:  cache.NewInformer[*corev1.Service](generic.InProcessListerWatcher(cfg.Services), cache.InformerOptions{Resource: corev1.Resource("services")}),
		endpoints: cache.NewInformer[*corev1.Endpoints](generic.InProcessListerWatcher(cfg.Endpoints), cache.InformerOptions{Resource: corev1.Resource("endpoints")}),
		queue:     workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),

		openapiServed: map[schema.GroupVersion]bool{},
		discovered:    map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery{},
	}
	a.lister = a.apiServices.Lister()
	if err := a.addHandlers(); err != nil {
		return nil, err
	}
	return a, nil
}

func groupVersion(s *apiregistrationv1.APIService) schema.GroupVersion {
	return schema.GroupVersion{Group: s.Spec.Group, Version: s.Spec.Version}
}

// aggregated reports whether s is served by another server: it names a
// Service and a group version the API server does not serve itself.
func (a *Aggregator) aggregated(s *apiregistrationv1.APIService) bool {
	return s.Spec.Service != nil && !a.cfg.Local(groupVersion(s))
}

// isAvailable reports whether s's Available condition is True.
func isAvailable(s *apiregistrationv1.APIService) bool {
	for _, c := range s.Status.Conditions {
		if c.Type == apiregistrationv1.Available {
			return c.Status == apiregistrationv1.ConditionTrue
		}
	}
	return false
}

// APIGroups implements apiserver.Aggregator: the groups of the available
// aggregated APIServices, by group priority (the highest
// groupPriorityMinimum of a group's versions, then the name), each
// group's versions by versionPriority, then Kubernetes' version order.
func (a *Aggregator) APIGroups() []metav1.APIGroup {
	return orderedGroups(a.availableByGroup())
}

// orderedGroups returns the discovery entries of byGroup by group
// priority, then name.
func orderedGroups(byGroup map[string][]*apiregistrationv1.APIService) []metav1.APIGroup {
	names := make([]string, 0, len(byGroup))
	for g := range byGroup {
		names = append(names, g)
	}
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(groupPriority(byGroup[y]), groupPriority(byGroup[x])), cmp.Compare(x, y))
	})
	out := make([]metav1.APIGroup, 0, len(names))
	for _, g := range names {
		out = append(out, apiGroup(g, byGroup[g]))
	}
	return out
}

// availableByGroup returns the available aggregated APIServices by group,
// each group's sorted by version priority.
func (a *Aggregator) availableByGroup() map[string][]*apiregistrationv1.APIService {
	all, _ := a.lister.List(labels.Everything())
	var available []*apiregistrationv1.APIService
	for _, s := range all {
		if a.aggregated(s) && isAvailable(s) {
			available = append(available, s)
		}
	}
	return groupByName(available)
}

// groupByName returns list by group, each group's APIServices by
// versionPriority, then Kubernetes' version order.
func groupByName(list []*apiregistrationv1.APIService) map[string][]*apiregistrationv1.APIService {
	byGroup := map[string][]*apiregistrationv1.APIService{}
	for _, s := range list {
		byGroup[s.Spec.Group] = append(byGroup[s.Spec.Group], s)
	}
	for _, l := range byGroup {
		slices.SortFunc(l, func(x, y *apiregistrationv1.APIService) int {
			return cmp.Or(cmp.Compare(y.Spec.VersionPriority, x.Spec.VersionPriority), apiserver.CompareVersions(y.Spec.Version, x.Spec.Version))
		})
	}
	return byGroup
}

func groupPriority(list []*apiregistrationv1.APIService) int32 {
	var p int32
	for _, s := range list {
		p = max(p, s.Spec.GroupPriorityMinimum)
	}
	return p
}

// apiGroup is the discovery entry of a group's APIServices, sorted.
func apiGroup(name string, list []*apiregistrationv1.APIService) metav1.APIGroup {
	g := metav1.APIGroup{Name: name}
	for _, s := range list {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: s.Spec.Group + "/" + s.Spec.Version, Version: s.Spec.Version})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// ServeAggregated implements apiserver.Aggregator: /apis/<group> of an
// aggregated group is answered here, /apis/<group>/<version>/... proxied
// to its server (503 while it is not available).
func (a *Aggregator) ServeAggregated(w http.ResponseWriter, r *http.Request) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, "/apis/")
	if !ok {
		return false
	}
	segs := strings.SplitN(rest, "/", 3)
	if segs[0] == "" {
		return false
	}
	if len(segs) == 1 || (len(segs) == 2 && segs[1] == "") {
		list, ok := a.availableByGroup()[segs[0]]
		if !ok {
			return false
		}
		g := apiGroup(segs[0], list)
		g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		writeJSON(w, http.StatusOK, &g)
		return true
	}
	s, err := a.lister.Get(segs[1] + "." + segs[0])
	if err != nil || !a.aggregated(s) {
		return false
	}
	if !isAvailable(s) {
		writeStatus(w, apierrors.NewServiceUnavailable("service unavailable"))
		return true
	}
	a.proxy(w, r, s)
	return true
}

// writeStatus writes err as a Status.
func writeStatus(w http.ResponseWriter, err error) {
	var api apierrors.APIStatus
	if !errors.As(err, &api) {
		api = apierrors.NewInternalError(err)
	}
	st := api.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	writeJSON(w, int(st.Code), &st)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, fmt.Appendf(nil, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"code":500}`, err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}
