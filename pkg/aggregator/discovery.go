package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"reflect"

	"k8s.io/klog/v2"

	apidiscoveryv2 "kubecore.io/api/apidiscovery/v2"
	apiregistrationv1 "kubecore.io/api/apiregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/apiserver"
)

var _ apiserver.AggregatedDiscoverySource = (*Aggregator)(nil)

// errNotAvailable marks the discovery of an APIService whose backend
// failed its availability check: it is not asked.
var errNotAvailable = errors.New("the APIService is not available")

// DiscoveryGeneration implements apiserver.AggregatedDiscoverySource: it
// changes with every APIService event and every change of a fetched
// discovery entry.
func (a *Aggregator) DiscoveryGeneration() uint64 { return a.discoveryGen.Load() }

// DiscoveryGroups implements apiserver.AggregatedDiscoverySource: the
// groups of the aggregated APIServices whose servers were asked for their
// resources, by group priority then name, each group's versions by
// version priority. A version whose server did not answer is Stale, with
// the resources it last listed, as Kubernetes marks it; the others stay
// Current.
func (a *Aggregator) DiscoveryGroups() []apidiscoveryv2.APIGroupDiscovery {
	all, _ := a.lister.List(labels.Everything())
	a.discoveryMu.Lock()
	defer a.discoveryMu.Unlock()
	var listed []*apiregistrationv1.APIService
	for _, s := range all {
		if _, ok := a.discovered[groupVersion(s)]; ok && a.aggregated(s) {
			listed = append(listed, s)
		}
	}
	byGroup := groupByName(listed)
	out := make([]apidiscoveryv2.APIGroupDiscovery, 0, len(byGroup))
	for _, g := range orderedGroups(byGroup) {
		d := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, s := range byGroup[g.Name] {
			d.Versions = append(d.Versions, a.discovered[groupVersion(s)])
		}
		out = append(out, d)
	}
	return out
}

// bumpDiscovery tells the API server that its discovery documents changed.
func (a *Aggregator) bumpDiscovery() { a.discoveryGen.Add(1) }

// forgetDiscovery drops gv from the aggregated discovery document.
func (a *Aggregator) forgetDiscovery(gv schema.GroupVersion) {
	a.discoveryMu.Lock()
	_, ok := a.discovered[gv]
	delete(a.discovered, gv)
	a.discoveryMu.Unlock()
	if ok {
		a.bumpDiscovery()
	}
}

// refreshDiscovery asks s's server for its group version's resources when
// s is available, and records them; when it is not or the server does
// not answer, the version is kept with its last resources, Stale.
func (a *Aggregator) refreshDiscovery(ctx context.Context, s *apiregistrationv1.APIService, available bool) {
	gv := groupVersion(s)
	entry, err := apidiscoveryv2.APIVersionDiscovery{}, errNotAvailable
	if available {
		entry, err = a.fetchDiscovery(ctx, s)
	}
	a.discoveryMu.Lock()
	if err != nil {
		entry = apidiscoveryv2.APIVersionDiscovery{Resources: a.discovered[gv].Resources, Freshness: apidiscoveryv2.DiscoveryFreshnessStale}
	}
	entry.Version = gv.Version
	old, had := a.discovered[gv]
	changed := !had || !reflect.DeepEqual(old, entry)
	a.discovered[gv] = entry
	a.discoveryMu.Unlock()
	if err != nil && !errors.Is(err, errNotAvailable) {
		klog.FromContext(ctx).V(2).Info("The discovery of an aggregated server is stale", "apiService", s.Name, "err", err)
	}
	if changed {
		a.bumpDiscovery()
	}
}

// fetchDiscovery asks s's server for the aggregated discovery document
// of /apis and takes its group version from it; a server that answers the
// legacy documents only is asked for its group version's resource list.
// A server whose document lacks the group version lists no resources for
// it, as in Kubernetes.
func (a *Aggregator) fetchDiscovery(ctx context.Context, s *apiregistrationv1.APIService) (apidiscoveryv2.APIVersionDiscovery, error) {
	gv := groupVersion(s)
	current := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
	data, contentType, err := a.getAccept(ctx, s, "/apis", apiserver.ContentTypeDiscoveryV2+",application/json")
	if err == nil && isDiscoveryV2(contentType) {
		var doc apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(data, &doc); err != nil {
			return current, fmt.Errorf("decode the aggregated discovery document: %w", err)
		}
		for _, g := range doc.Items {
			if g.Name != gv.Group {
				continue
			}
			for _, v := range g.Versions {
				if v.Version == gv.Version {
					current.Resources = v.Resources
				}
			}
		}
		return current, nil
	}
	data, _, err = a.getAccept(ctx, s, "/apis/"+gv.Group+"/"+gv.Version, "application/json")
	if err != nil {
		return current, err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(data, &list); err != nil {
		return current, fmt.Errorf("decode the resource list of %s: %w", gv, err)
	}
	current.Resources = apiserver.ResourcesForDiscovery(list.APIResources)
	return current, nil
}

// isDiscoveryV2 reports whether a Content-Type is the aggregated
// discovery document's, whatever the order of its parameters.
func isDiscoveryV2(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json" && params["g"] == apidiscoveryv2.GroupName &&
		params["v"] == apidiscoveryv2.SchemeGroupVersion.Version && params["as"] == "APIGroupDiscoveryList"
}
