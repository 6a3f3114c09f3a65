// Package componentstatus serves the read-only componentstatuses: the
// health of etcd and of the scheduler and controller-manager, probed at
// each request as Kubernetes does.
package componentstatus

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// ProbeTimeout bounds each component's probe.
const ProbeTimeout = 5 * time.Second

// The health endpoints Kubernetes probes by default: kube-scheduler's and
// kube-controller-manager's secure ports on the API server's host.
const (
	DefaultSchedulerURL         = "https://127.0.0.1:10259/healthz"
	DefaultControllerManagerURL = "https://127.0.0.1:10257/healthz"
)

// Probe checks one component: Check returns the message of a healthy
// component or the error of an unhealthy one.
type Probe struct {
	Name  string
	Check func(ctx context.Context) (string, error)
}

// HTTPProbe probes url: healthy when it answers 200, with the body as the
// message. Like Kubernetes, it does not verify the component's
// self-signed certificate.
func HTTPProbe(name, url string) Probe {
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // As Kubernetes probes them.
	return Probe{Name: name, Check: func(ctx context.Context) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if err != nil {
			return "", err
		}
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("unhealthy http status code: %d (%s)", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return string(body), nil
	}}
}

// EtcdProbes probe each member endpoint of client as etcd-0, etcd-1...:
// healthy when the member answers its status and knows a leader, with the
// message etcd's /health gives then.
func EtcdProbes(client *clientv3.Client) []Probe {
	if len(client.Endpoints()) == 0 {
		// An in-process client of the embedded member has no endpoint: ask
		// it what etcd's /health asks, a linearizable read.
		return []Probe{{Name: "etcd-0", Check: func(ctx context.Context) (string, error) {
			if _, err := client.Get(ctx, "health"); err != nil {
				return "", fmt.Errorf("read from etcd: %w", err)
			}
			return healthyEtcd, nil
		}}}
	}
	var out []Probe
	for i, ep := range client.Endpoints() {
		out = append(out, Probe{Name: fmt.Sprintf("etcd-%d", i), Check: func(ctx context.Context) (string, error) {
			st, err := client.Status(ctx, ep)
			if err != nil {
				return "", fmt.Errorf("status of etcd member %s: %w", ep, err)
			}
			if st.Leader == 0 {
				return "", fmt.Errorf(`{"health":"false","reason":"RAFT NO LEADER"}`)
			}
			return healthyEtcd, nil
		}})
	}
	return out
}

// healthyEtcd is the body of etcd's /health on a healthy member.
const healthyEtcd = `{"health":"true","reason":""}`

// DefaultProbes are etcd's members then the scheduler and the
// controller-manager at Kubernetes' default addresses.
func DefaultProbes(client *clientv3.Client) []Probe {
	return append(EtcdProbes(client),
		HTTPProbe("scheduler", DefaultSchedulerURL),
		HTTPProbe("controller-manager", DefaultControllerManagerURL))
}

// Replace returns probes with each of with in place of the probe of its
// name, or after them when none has it.
func Replace(probes []Probe, with ...Probe) []Probe {
	out := slices.Clone(probes)
	for _, w := range with {
		i := slices.IndexFunc(out, func(p Probe) bool { return p.Name == w.Name })
		if i < 0 {
			out = append(out, w)
			continue
		}
		out[i] = w
	}
	return out
}

// REST serves componentstatuses: get and list.
type REST struct {
	probes []Probe
	table  rest.TableConvertor
	now    func() time.Time
}

var (
	_ rest.Getter               = (*REST)(nil)
	_ rest.Lister               = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST serves the components probes check; table renders them for
// kubectl (nil gives the default table).
func NewREST(probes []Probe, table rest.TableConvertor) *REST {
	return &REST{probes: probes, table: table, now: time.Now}
}

// New implements rest.Storage.
func (r *REST) New() runtime.Object { return &corev1.ComponentStatus{} }

// NewList implements rest.Lister.
func (r *REST) NewList() runtime.Object { return &corev1.ComponentStatusList{} }

// Destroy implements rest.Storage.
func (r *REST) Destroy() {}

// NamespaceScoped implements rest.Scoper.
func (r *REST) NamespaceScoped() bool { return false }

// Get implements rest.Getter: it probes the named component.
func (r *REST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	for _, p := range r.probes {
		if p.Name == name {
			cs := r.status(ctx, p)
			return &cs, nil
		}
	}
	return nil, apierrors.NewNotFound(corev1.Resource("componentstatuses"), name)
}

// List implements rest.Lister: it probes every component at once; label
// and field selectors filter the results.
func (r *REST) List(ctx context.Context, opts *rest.ListOptions) (runtime.Object, error) {
	items := make([]corev1.ComponentStatus, len(r.probes))
	var wg sync.WaitGroup
	for i, p := range r.probes {
		wg.Go(func() { items[i] = r.status(ctx, p) })
	}
	wg.Wait()
	list := &corev1.ComponentStatusList{}
	for _, cs := range items {
		if opts != nil && opts.LabelSelector != nil && !opts.LabelSelector.Empty() && !opts.LabelSelector.Matches(labels.Set(cs.Labels)) {
			continue
		}
		if opts != nil && opts.FieldSelector != nil && !opts.FieldSelector.Empty() && !opts.FieldSelector.Matches(fields.Set{"metadata.name": cs.Name}) {
			continue
		}
		list.Items = append(list.Items, cs)
	}
	return list, nil
}

func (r *REST) status(ctx context.Context, p Probe) corev1.ComponentStatus {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	msg, err := p.Check(ctx)
	cond := corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: msg}
	if err != nil {
		cond = corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Error: err.Error()}
	}
	return corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: p.Name}, Conditions: []corev1.ComponentCondition{cond}}
}

// ConvertToTable implements rest.TableConvertor.
func (r *REST) ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	if r.table == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("componentstatuses have no table printer"))
	}
	return r.table.ConvertToTable(ctx, obj, opts)
}

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return []string{"cs"} }

// GetSingularName implements rest.SingularNameProvider.
func (r *REST) GetSingularName() string { return "componentstatus" }
