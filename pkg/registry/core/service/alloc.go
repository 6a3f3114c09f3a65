package service

import (
	"fmt"
	"math/big"
	"net/netip"
	"sync"
)

// ipAllocator hands out the addresses of a service CIDR, skipping the
// network address. It is filled from the stored services at start.
type ipAllocator struct {
	mu     sync.Mutex
	prefix netip.Prefix
	size   int
	next   int
	used   map[netip.Addr]bool
}

func newIPAllocator(cidr string) (*ipAllocator, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("parse service CIDR %q: %w", cidr, err)
	}
	p = p.Masked()
	bits := p.Addr().BitLen() - p.Bits()
	size := 1 << 20
	if bits < 20 {
		size = 1 << bits
	}
	return &ipAllocator{prefix: p, size: size, used: map[netip.Addr]bool{}}, nil
}

func (a *ipAllocator) addr(i int) netip.Addr {
	n := new(big.Int).SetBytes(a.prefix.Addr().AsSlice())
	n.Add(n, big.NewInt(int64(i)))
	b := n.FillBytes(make([]byte, len(a.prefix.Addr().AsSlice())))
	ip, _ := netip.AddrFromSlice(b)
	return ip
}

// First returns the first usable address (the kubernetes service's).
func (a *ipAllocator) First() string { return a.addr(1).String() }

// Allocate reserves ip, which must be in the range and free.
func (a *ipAllocator) Allocate(ip string) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !a.prefix.Contains(addr) {
		return fmt.Errorf("failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, ip, a.prefix)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used[addr] {
		return fmt.Errorf("failed to allocate IP %s: provided IP is already allocated", ip)
	}
	a.used[addr] = true
	return nil
}

// AllocateNext reserves a free address.
func (a *ipAllocator) AllocateNext() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for range a.size {
		a.next = a.next%(a.size-1) + 1
		ip := a.addr(a.next)
		if !a.used[ip] && a.prefix.Contains(ip) {
			a.used[ip] = true
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("range is full")
}

// Release frees ip.
func (a *ipAllocator) Release(ip string) {
	if addr, err := netip.ParseAddr(ip); err == nil {
		a.mu.Lock()
		delete(a.used, addr)
		a.mu.Unlock()
	}
}

// portAllocator hands out node ports of a range.
type portAllocator struct {
	mu   sync.Mutex
	base int
	size int
	next int
	used map[int]bool
}

func newPortAllocator(base, size int) *portAllocator {
	return &portAllocator{base: base, size: size, used: map[int]bool{}}
}

// Allocate reserves port, which must be in the range and free.
func (a *portAllocator) Allocate(port int) error {
	if port < a.base || port >= a.base+a.size {
		return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", a.base, a.base+a.size-1)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used[port] {
		return fmt.Errorf("provided port is already allocated")
	}
	a.used[port] = true
	return nil
}

// AllocateNext reserves a free port.
func (a *portAllocator) AllocateNext() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for range a.size {
		p := a.base + a.next
		a.next = (a.next + 1) % a.size
		if !a.used[p] {
			a.used[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("range is full")
}

// Release frees port.
func (a *portAllocator) Release(port int) {
	a.mu.Lock()
	delete(a.used, port)
	a.mu.Unlock()
}
