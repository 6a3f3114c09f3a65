// Package proxy is kubecore's service proxy: it programs its own nftables
// table (kubecore-proxy, ip and ip6) from Services and EndpointSlices, so
// that cluster IPs, external IPs and node ports reach the endpoints.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/nftables"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
)

// DefaultMinSyncPeriod batches the changes of a burst into one
// transaction; the table follows an endpoint change within it plus the
// transaction's time.
const DefaultMinSyncPeriod = 100 * time.Millisecond

// Config configures a Proxy.
type Config struct {
	// NodeName is this node; endpoints on it are local for
	// externalTrafficPolicy Local.
	NodeName string
	// Families are the families programmed; both when empty.
	Families []Family
	// MinSyncPeriod is the batching delay (DefaultMinSyncPeriod when 0).
	MinSyncPeriod time.Duration
	// NetNSFd, when not 0, programs the network namespace of this file
	// descriptor instead of the process's (tests).
	NetNSFd int
}

// Proxy keeps the table in line with the informers' Services and
// EndpointSlices.
type Proxy struct {
	cfg      Config
	services *cache.Informer[*corev1.Service]
	slices   *cache.Informer[*discoveryv1.EndpointSlice]
	synced   []cache.InformerSynced
	trigger  chan struct{}

	mu      sync.Mutex
	applied map[Family]string // the program text last applied
	syncs   int
	lastErr error
	// changed is closed and replaced after every successful sync.
	changed chan struct{}
}

// New makes a proxy over the factory's service and endpoint slice
// informers; start the factory and then Run.
func New(cfg Config, factory *informers.SharedInformerFactory) (*Proxy, error) {
	if len(cfg.Families) == 0 {
		cfg.Families = []Family{IPv4, IPv6}
	}
	if cfg.MinSyncPeriod <= 0 {
		cfg.MinSyncPeriod = DefaultMinSyncPeriod
	}
	p := &Proxy{cfg: cfg, trigger: make(chan struct{}, 1), applied: map[Family]string{}, changed: make(chan struct{})}
	svcs, err := informers.Services(factory)
	if err != nil {
		return nil, fmt.Errorf("service informer: %w", err)
	}
	eps, err := informers.EndpointSlices(factory)
	if err != nil {
		return nil, fmt.Errorf("endpoint slice informer: %w", err)
	}
	p.services, p.slices = svcs, eps
	r1, err := svcs.AddEventHandler(handler[*corev1.Service](p.kick))
	if err != nil {
		return nil, fmt.Errorf("service informer: %w", err)
	}
	r2, err := eps.AddEventHandler(handler[*discoveryv1.EndpointSlice](p.kick))
	if err != nil {
		return nil, fmt.Errorf("endpoint slice informer: %w", err)
	}
	p.synced = []cache.InformerSynced{r1.HasSynced, r2.HasSynced}
	return p, nil
}

// handler calls kick on every event.
func handler[T cache.Object](kick func()) cache.ResourceEventHandlerFuncs[T] {
	return cache.ResourceEventHandlerFuncs[T]{
		AddFunc:    func(T, bool) { kick() },
		UpdateFunc: func(o, n T) { kick() },
		DeleteFunc: func(T) { kick() },
	}
}

func (p *Proxy) kick() {
	select {
	case p.trigger <- struct{}{}:
	default:
	}
}

// Run programs the table once the informers have synced and after every
// batch of changes, until ctx ends; then it deletes the table.
func (p *Proxy) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("proxy")
	if !cache.WaitForCacheSync(ctx, p.synced...) {
		return p.Cleanup()
	}
	logger.Info("Service proxy started", "table", TableName, "families", p.cfg.Families)
	if p.cfg.NetNSFd == 0 {
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_forward"); err == nil && strings.TrimSpace(string(b)) != "1" {
			logger.Info("Warning: net.ipv4.ip_forward is 0: node ports and external IPs cannot reach endpoints on other nodes; set it to 1")
		}
	}
	defer func() {
		if err := p.Cleanup(); err != nil {
			logger.Error(err, "Failed to delete the proxy's table")
		} else {
			logger.Info("Service proxy stopped; its table is deleted", "table", TableName)
		}
	}()
	retry := time.Duration(0)
	p.kick()
	for {
		var retryC <-chan time.Time
		if retry > 0 {
			retryC = time.After(retry)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-p.trigger:
		case <-retryC:
		}
		// Batch: let the rest of a burst arrive.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(p.cfg.MinSyncPeriod):
		}
		select {
		case <-p.trigger:
		default:
		}
		if err := p.Sync(); err != nil {
			retry = min(max(2*retry, time.Second), 30*time.Second)
			logger.Error(err, "Failed to program the service rules; retrying", "after", retry)
			continue
		}
		retry = 0
	}
}

// Programs builds the programs of the configured families from the
// informers' caches.
func (p *Proxy) Programs() []*Program {
	svcs := p.services.GetIndexer().List()
	slices := p.slices.GetIndexer().List()
	out := make([]*Program, 0, len(p.cfg.Families))
	for _, fam := range p.cfg.Families {
		out = append(out, Build(fam, BuildServicePorts(fam, p.cfg.NodeName, svcs, slices)))
	}
	return out
}

// Sync replaces the tables whose program changed since the last sync, in
// one transaction.
func (p *Proxy) Sync() error {
	progs := p.Programs()
	p.mu.Lock()
	var todo []*Program
	for _, prog := range progs {
		if p.applied[prog.Family] != prog.String() {
			todo = append(todo, prog)
		}
	}
	p.mu.Unlock()
	if len(todo) > 0 {
		c, err := p.conn()
		if err != nil {
			return err
		}
		for _, prog := range todo {
			prog.queue(c)
		}
		if err := c.Flush(); err != nil {
			p.mu.Lock()
			p.lastErr = err
			p.mu.Unlock()
			return fmt.Errorf("replace nftables table %s: %w", TableName, err)
		}
	}
	p.mu.Lock()
	for _, prog := range todo {
		p.applied[prog.Family] = prog.String()
	}
	p.syncs++
	p.lastErr = nil
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	return nil
}

// Synced returns how many syncs succeeded and a channel closed at the next
// one (tests and benchmarks wait on it).
func (p *Proxy) Synced() (int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.syncs, p.changed
}

// Applied returns the text of the program last applied in family fam.
func (p *Proxy) Applied(fam Family) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.applied[fam]
}

func (p *Proxy) conn() (*nftables.Conn, error) {
	var opts []nftables.ConnOption
	if p.cfg.NetNSFd != 0 {
		opts = append(opts, nftables.WithNetNSFd(p.cfg.NetNSFd))
	}
	c, err := nftables.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("nftables connection: %w", err)
	}
	return c, nil
}

// Cleanup deletes the proxy's tables (those of every family, whether this
// proxy made them or an earlier one did).
func (p *Proxy) Cleanup() error {
	c, err := p.conn()
	if err != nil {
		return err
	}
	return cleanup(c)
}

// Cleanup deletes the kubecore-proxy tables of the network namespace of
// netnsFd (0: the process's), as `kubecore proxy --cleanup` does.
func Cleanup(netnsFd int) error {
	var opts []nftables.ConnOption
	if netnsFd != 0 {
		opts = append(opts, nftables.WithNetNSFd(netnsFd))
	}
	c, err := nftables.New(opts...)
	if err != nil {
		return fmt.Errorf("nftables connection: %w", err)
	}
	return cleanup(c)
}

func cleanup(c *nftables.Conn) error {
	var errs []error
	for _, fam := range []Family{IPv4, IPv6} {
		(&Program{Family: fam}).queueDelete(c)
		if err := c.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("delete %s table %s: %w", (&Program{Family: fam}).familyName(), TableName, err))
		}
	}
	return errors.Join(errs...)
}
