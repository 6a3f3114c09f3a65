package service

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"sync"

	networkingv1 "kubecore.io/api/networking/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// errRangeFull is the error of an allocation from a range with no free
// member.
var errRangeFull = errors.New("range is full")

// errAllocated is the error of an allocation of a taken member.
var errAllocated = errors.New("provided IP is already allocated")

// errMismatchedNetwork is the error of an allocation of an address no
// ready ServiceCIDR holds.
var errMismatchedNetwork = errors.New("the provided network does not match the current range")

// notInRangeError is the error of an allocation of the network (or
// broadcast) address of a range.
type notInRangeError struct {
	ip    netip.Addr
	valid netip.Prefix
}

func (e *notInRangeError) Error() string {
	return fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", e.ip, e.valid)
}

// isAllocationRefusal reports whether err refuses the address asked for
// (the service is invalid) rather than failing to reach the storage.
func isAllocationRefusal(err error) bool {
	var nir *notInRangeError
	return errors.Is(err, errAllocated) || errors.Is(err, errMismatchedNetwork) || errors.As(err, &nir)
}

// AddressStore is what the ClusterIP allocator needs of the storage of
// networking.k8s.io/v1 IPAddresses: creating one reserves its address
// (the create fails when another writer, on any API server, has it).
type AddressStore interface {
	rest.Getter
	rest.Creater
	rest.GracefulDeleter
	Lister
}

// Lister lists a resource: the IPAddresses, and the ServiceCIDRs whose
// ranges the allocator hands out beside its own.
type Lister interface {
	List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error)
}

// ipRange is one range of service addresses: every address of a prefix
// but the network address (and the broadcast address of IPv4).
type ipRange struct {
	prefix netip.Prefix
	// last is the largest usable offset in the range.
	last int
}

// maxCandidates bounds the offsets of a large (IPv6) range the allocator
// looks at.
const maxCandidates = 1 << 20

func newIPRange(p netip.Prefix) (ipRange, error) {
	p = p.Masked()
	bits := p.Addr().BitLen() - p.Bits()
	last := maxCandidates
	if bits < 20 {
		last = 1<<bits - 1
		if p.Addr().Is4() {
			last-- // the broadcast address
		}
	}
	if last < 1 {
		return ipRange{}, fmt.Errorf("service CIDR %s has no usable address", p)
	}
	return ipRange{prefix: p, last: last}, nil
}

func (r ipRange) addr(i int) netip.Addr {
	n := new(big.Int).SetBytes(r.prefix.Addr().AsSlice())
	n.Add(n, big.NewInt(int64(i)))
	b := n.FillBytes(make([]byte, len(r.prefix.Addr().AsSlice())))
	ip, _ := netip.AddrFromSlice(b)
	return ip
}

// Contains reports whether ip is one the range hands out.
func (r ipRange) Contains(ip netip.Addr) bool {
	if !r.prefix.Contains(ip) || ip == r.prefix.Addr() {
		return false
	}
	return !(r.prefix.Addr().Is4() && r.prefix.Bits() < 31 && ip == r.addr(r.last+1))
}

// ipAllocator hands out service addresses by creating one IPAddress
// object per address: from its own range (the API server's
// service-cluster-ip-range) first, then from the ranges of the other
// ready ServiceCIDRs, by name. It keeps no state of its own: several API
// servers share the ranges safely.
type ipAllocator struct {
	ipRange

	mu    sync.RWMutex
	store AddressStore
	cidrs Lister
}

func newIPAllocator(cidr string) (*ipAllocator, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("parse service CIDR %q: %w", cidr, err)
	}
	r, err := newIPRange(p)
	if err != nil {
		return nil, err
	}
	return &ipAllocator{ipRange: r}, nil
}

// setStores gives the allocator the IPAddress and ServiceCIDR storage,
// built after the services'.
func (a *ipAllocator) setStores(s AddressStore, cidrs Lister) {
	a.mu.Lock()
	a.store, a.cidrs = s, cidrs
	a.mu.Unlock()
}

func (a *ipAllocator) addresses() (AddressStore, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.store == nil {
		return nil, errors.New("the IPAddress storage is not ready")
	}
	return a.store, nil
}

// First returns the first usable address (the kubernetes service's).
func (a *ipAllocator) First() string { return a.addr(1).String() }

// cidrReady reports whether Services may take addresses from a
// ServiceCIDR: it is not being deleted and its Ready condition is not
// false (one no controller has marked yet counts as ready, as in
// Kubernetes).
func cidrReady(c *networkingv1.ServiceCIDR) bool {
	if c.DeletionTimestamp != nil {
		return false
	}
	i := slices.IndexFunc(c.Status.Conditions, func(c metav1.Condition) bool { return c.Type == networkingv1.ServiceCIDRConditionReady })
	return i < 0 || c.Status.Conditions[i].Status == metav1.ConditionTrue
}

// ranges returns the allocator's own range, then those of the stored
// ServiceCIDRs (the ready ones only, when ready), each prefix once.
func (a *ipAllocator) ranges(ctx context.Context, ready bool) ([]ipRange, error) {
	out := []ipRange{a.ipRange}
	a.mu.RLock()
	cidrs := a.cidrs
	a.mu.RUnlock()
	if cidrs == nil {
		return out, nil
	}
	obj, err := cidrs.List(ctx, &rest.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list service CIDRs: %w", err)
	}
	list, ok := obj.(*networkingv1.ServiceCIDRList)
	if !ok {
		return nil, fmt.Errorf("list service CIDRs: got %T", obj)
	}
	items := list.Items
	slices.SortFunc(items, func(x, y networkingv1.ServiceCIDR) int { return strings.Compare(x.Name, y.Name) })
	seen := map[netip.Prefix]bool{a.prefix: true}
	for i := range items {
		if ready && !cidrReady(&items[i]) {
			continue
		}
		for _, c := range items[i].Spec.CIDRs {
			p, err := netip.ParsePrefix(c)
			if err != nil || seen[p.Masked()] {
				continue
			}
			seen[p.Masked()] = true
			if r, err := newIPRange(p); err == nil {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// covers returns whether an address is in any range services take
// addresses from, ready or not: what the repair keeps.
func (a *ipAllocator) covers(ctx context.Context) (func(netip.Addr) bool, error) {
	rs, err := a.ranges(ctx, false)
	if err != nil {
		return nil, err
	}
	return func(ip netip.Addr) bool {
		return slices.ContainsFunc(rs, func(r ipRange) bool { return r.Contains(ip) })
	}, nil
}

// owner is the service an address or port is allocated to.
type owner struct{ namespace, name string }

func (a *ipAllocator) object(ip netip.Addr, o owner) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: ip.String(), Labels: map[string]string{
			networkingv1.LabelIPAddressFamily: family(ip), networkingv1.LabelManagedBy: networkingv1.ServiceIPAllocatorManager,
		}},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: o.namespace, Name: o.name}},
	}
}

func family(ip netip.Addr) string {
	if ip.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// Allocate reserves ip, which must be in a ready range and free, for
// o. With dryRun it only checks.
func (a *ipAllocator) Allocate(ctx context.Context, ip string, o owner, dryRun bool) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return errMismatchedNetwork
	}
	if !a.Contains(addr) {
		rs, err := a.ranges(ctx, true)
		if err != nil {
			return err
		}
		var holder *ipRange
		for i := range rs {
			if rs[i].prefix.Contains(addr) && (holder == nil || rs[i].Contains(addr)) {
				holder = &rs[i]
			}
		}
		switch {
		case holder == nil:
			return errMismatchedNetwork
		case !holder.Contains(addr):
			return &notInRangeError{ip: addr, valid: holder.prefix}
		}
	}
	store, err := a.addresses()
	if err != nil {
		return err
	}
	if dryRun {
		_, err := store.Get(ctx, addr.String(), &metav1.GetOptions{})
		switch {
		case err == nil:
			return errAllocated
		case apierrors.IsNotFound(err):
			return nil
		}
		return err
	}
	_, err = store.Create(ctx, a.object(addr, o), nil, &metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return errAllocated
	}
	return err
}

// randomTries is how many random addresses AllocateNext tries in a range
// before it lists the allocated ones.
const randomTries = 8

// AllocateNext reserves a free address for o: from the allocator's own
// range, then from the other ready ranges of its family when it is
// full. With dryRun it only finds one.
func (a *ipAllocator) AllocateNext(ctx context.Context, o owner, dryRun bool) (string, error) {
	store, err := a.addresses()
	if err != nil {
		return "", err
	}
	ip, err := a.allocateIn(ctx, store, a.ipRange, o, dryRun)
	if !errors.Is(err, errRangeFull) {
		return ip, err
	}
	rs, err := a.ranges(ctx, true)
	if err != nil {
		return "", err
	}
	for _, r := range rs[1:] {
		if r.prefix.Addr().Is4() != a.prefix.Addr().Is4() {
			continue
		}
		ip, err := a.allocateIn(ctx, store, r, o, dryRun)
		if !errors.Is(err, errRangeFull) {
			return ip, err
		}
	}
	return "", errRangeFull
}

// allocateIn reserves a free address of r: a few random ones first, then
// the free ones the stored IPAddresses leave, from a random start.
func (a *ipAllocator) allocateIn(ctx context.Context, store AddressStore, r ipRange, o owner, dryRun bool) (string, error) {
	try := func(ip netip.Addr) (bool, error) {
		if dryRun {
			_, err := store.Get(ctx, ip.String(), &metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		}
		_, err := store.Create(ctx, a.object(ip, o), nil, &metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return err == nil, err
	}
	for range min(randomTries, r.last) {
		ip := r.addr(1 + rand.IntN(r.last))
		if ok, err := try(ip); ok || err != nil {
			return ip.String(), err
		}
	}
	used, err := used(ctx, store, r)
	if err != nil {
		return "", err
	}
	start := rand.IntN(r.last)
	for i := range r.last {
		ip := r.addr(1 + (start+i)%r.last)
		if used[ip] {
			continue
		}
		if ok, err := try(ip); ok || err != nil {
			return ip.String(), err
		}
	}
	return "", errRangeFull
}

// used returns the allocated addresses of a range, as the IPAddress
// storage has them.
func used(ctx context.Context, store Lister, r ipRange) (map[netip.Addr]bool, error) {
	obj, err := store.List(ctx, &rest.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list IP addresses: %w", err)
	}
	list, ok := obj.(*networkingv1.IPAddressList)
	if !ok {
		return nil, fmt.Errorf("list IP addresses: got %T", obj)
	}
	used := make(map[netip.Addr]bool, len(list.Items))
	for _, it := range list.Items {
		if ip, err := netip.ParseAddr(it.Name); err == nil && r.prefix.Contains(ip) {
			used[ip] = true
		}
	}
	return used, nil
}

// Release frees ip, when o holds it, whichever range it is in.
func (a *ipAllocator) Release(ctx context.Context, ip string, o owner) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return nil
	}
	store, err := a.addresses()
	if err != nil {
		return err
	}
	obj, err := store.Get(ctx, addr.String(), &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ref := obj.(*networkingv1.IPAddress).Spec.ParentRef; ref == nil || ref.Resource != "services" || ref.Namespace != o.namespace || ref.Name != o.name {
		return nil // another service's since
	}
	uid := obj.(*networkingv1.IPAddress).UID
	_, _, err = store.Delete(ctx, addr.String(), nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
