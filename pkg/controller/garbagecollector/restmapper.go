package garbagecollector

import (
	"fmt"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// mapping is where the objects of a kind are served.
type mapping struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// restMapper resolves the kinds of ownerReferences to resources, from
// discovery. It is rebuilt on every discovery and never changed after.
type restMapper struct {
	byGVK       map[schema.GroupVersionKind]mapping
	byGroupKind map[schema.GroupKind]mapping
}

// monitored is a resource the collector watches.
type monitored struct {
	gvr  schema.GroupVersionResource
	kind string
}

// newRESTMapper reads the preferred resources of discovery; it also
// returns the resources to watch: those that can be listed, watched and
// deleted, except ignored ones.
func newRESTMapper(lists []*metav1.APIResourceList, ignored map[schema.GroupResource]bool) (*restMapper, []monitored) {
	m := &restMapper{byGVK: map[schema.GroupVersionKind]mapping{}, byGroupKind: map[schema.GroupKind]mapping{}}
	var watch []monitored
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || r.Kind == "" {
				continue
			}
			mp := mapping{gvr: gv.WithResource(r.Name), namespaced: r.Namespaced}
			gvk := gv.WithKind(r.Kind)
			if _, dup := m.byGVK[gvk]; !dup {
				m.byGVK[gvk] = mp
			}
			if _, dup := m.byGroupKind[gvk.GroupKind()]; !dup {
				m.byGroupKind[gvk.GroupKind()] = mp
			}
			if ignored[mp.gvr.GroupResource()] {
				continue
			}
			if r.Verbs.Has("list") && r.Verbs.Has("watch") && r.Verbs.Has("delete") {
				watch = append(watch, monitored{gvr: mp.gvr, kind: r.Kind})
			}
		}
	}
	return m, watch
}

// resolve finds the resource of an ownerReference's apiVersion and kind;
// another version of a served group and kind resolves to the served one.
func (m *restMapper) resolve(apiVersion, kind string) (mapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return mapping{}, fmt.Errorf("owner apiVersion %q: %w", apiVersion, err)
	}
	if mp, ok := m.byGVK[gv.WithKind(kind)]; ok {
		return mp, nil
	}
	if mp, ok := m.byGroupKind[schema.GroupKind{Group: gv.Group, Kind: kind}]; ok {
		return mp, nil
	}
	return mapping{}, fmt.Errorf("no resource serves kind %q of %s", kind, apiVersion)
}

// defaultIgnored are the resources the collector never watches: Events
// are many, short-lived and never owners.
func defaultIgnored() map[schema.GroupResource]bool {
	return map[schema.GroupResource]bool{
		{Group: "", Resource: "events"}:              true,
		{Group: "events.k8s.io", Resource: "events"}: true,
	}
}
