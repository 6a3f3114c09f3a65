package dns

import (
	"net/netip"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
)

// Indexes of the informers: endpoint slices by namespace/service and by
// endpoint address, services by cluster IP (reverse lookups).
const (
	sliceByService = "service"
	sliceByAddress = "address"
	serviceByIP    = "clusterIP"
)

// InformerStore is a Store over the shared service and endpoint slice
// informers.
type InformerStore struct {
	services *cache.Informer[*corev1.Service]
	slices   *cache.Informer[*discoveryv1.EndpointSlice]
}

var _ Store = (*InformerStore)(nil)

// NewInformerStore asks the factory for the informers the store reads;
// start the factory and wait for HasSynced before serving.
func NewInformerStore(factory *informers.SharedInformerFactory) (*InformerStore, error) {
	svcs, err := informers.Services(factory)
	if err != nil {
		return nil, err
	}
	eps, err := informers.EndpointSlices(factory)
	if err != nil {
		return nil, err
	}
	if err := eps.AddIndexers(map[string]cache.IndexFunc[*discoveryv1.EndpointSlice]{sliceByService: func(s *discoveryv1.EndpointSlice) ([]string, error) {
		if name := s.Labels[discoveryv1.LabelServiceName]; name != "" {
			return []string{s.Namespace + "/" + name}, nil
		}
		return nil, nil
	}, sliceByAddress: func(s *discoveryv1.EndpointSlice) ([]string, error) {
		var out []string
		for _, e := range s.Endpoints {
			for _, a := range e.Addresses {
				out = append(out, canonicalIP(a))
			}
		}
		return out, nil
	}}); err != nil {
		return nil, err
	}
	if err := svcs.AddIndexers(map[string]cache.IndexFunc[*corev1.Service]{serviceByIP: func(s *corev1.Service) ([]string, error) {
		var out []string
		for _, ip := range s.Spec.ClusterIPs {
			if ip != corev1.ClusterIPNone && ip != "" {
				out = append(out, canonicalIP(ip))
			}
		}
		return out, nil
	}}); err != nil {
		return nil, err
	}
	return &InformerStore{services: svcs, slices: eps}, nil
}

// HasSynced reports whether both caches hold their first list.
func (s *InformerStore) HasSynced() bool { return s.services.HasSynced() && s.slices.HasSynced() }

// Service implements Store.
func (s *InformerStore) Service(ns, name string) (*corev1.Service, bool) {
	return s.services.GetIndexer().GetByKey(cache.ObjectKey(ns, name))
}

// EndpointSlices implements Store.
func (s *InformerStore) EndpointSlices(ns, name string) []*discoveryv1.EndpointSlice {
	out, _ := s.slices.GetIndexer().ByIndex(sliceByService, ns+"/"+name)
	return out
}

// HasServices implements Store.
func (s *InformerStore) HasServices(ns string) bool {
	out, _ := s.services.GetIndexer().ByIndex(cache.NamespaceIndex, ns)
	return len(out) > 0
}

// ServicesWithIP implements Store.
func (s *InformerStore) ServicesWithIP(ip string) []*corev1.Service {
	out, _ := s.services.GetIndexer().ByIndex(serviceByIP, ip)
	return out
}

// EndpointSlicesWithAddress implements Store.
func (s *InformerStore) EndpointSlicesWithAddress(ip string) []*discoveryv1.EndpointSlice {
	out, _ := s.slices.GetIndexer().ByIndex(sliceByAddress, ip)
	return out
}

// canonicalIP is an address in the form reverse lookups ask for it
// (netip's), the text itself when it is not an address.
func canonicalIP(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return s
}
