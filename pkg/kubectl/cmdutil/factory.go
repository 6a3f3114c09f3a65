package cmdutil

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	goruntime "runtime"
	"sync"
	"time"

	"k8s.io/klog/v2"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/version"
	"kubecore.io/client/discovery"
	"kubecore.io/client/dynamic"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/tools/clientcmd/api"
	"kubecore.io/kubecore/pkg/kubectl/resource"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StdStreams returns the process's streams.
func StdStreams() IOStreams { return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// Factory makes the clients of one kubectl invocation from its global
// flags, each once.
type Factory struct {
	Flags *ConfigFlags

	mu         sync.Mutex
	clientCfg  clientcmd.ClientConfig
	restConfig *rest.Config
	restClient *rest.Client
	mapper     *restmapper.Mapper
}

// NewFactory returns a Factory reading flags when first asked for a client.
func NewFactory(flags *ConfigFlags) *Factory { return &Factory{Flags: flags} }

func (f *Factory) clientConfig() (clientcmd.ClientConfig, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clientCfg == nil {
		if p := f.Flags.Kubeconfig; p != "" {
			// kubectl's own words for a --kubeconfig that is not there.
			if _, err := os.Stat(p); err != nil {
				return nil, err
			}
		}
		overrides, err := f.Flags.Overrides()
		if err != nil {
			return nil, err
		}
		f.clientCfg = clientcmd.NewClientConfig(f.Flags.LoadingRules(), overrides)
	}
	return f.clientCfg, nil
}

// RawConfig returns the merged kubeconfig, without the flag overrides.
func (f *Factory) RawConfig() (api.Config, error) {
	cc, err := f.clientConfig()
	if err != nil {
		return api.Config{}, err
	}
	return cc.RawConfig()
}

// Namespace returns the namespace to work in and whether -n set it.
func (f *Factory) Namespace() (string, bool, error) {
	cc, err := f.clientConfig()
	if err != nil {
		return "", false, err
	}
	return cc.Namespace()
}

// RESTConfig returns the connection settings of the chosen context.
func (f *Factory) RESTConfig() (*rest.Config, error) {
	cc, err := f.clientConfig()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.restConfig == nil {
		if name := f.Flags.Context; name != "" {
			raw, err := cc.RawConfig()
			if err != nil {
				return nil, err
			}
			if _, ok := raw.Contexts[name]; !ok {
				return nil, RawError("Error in configuration: context was not found for specified context: " + name)
			}
		}
		c, err := cc.ClientConfig()
		if err != nil {
			return nil, err
		}
		c = rest.CopyConfig(c)
		if c.UserAgent == "" {
			// As the stock kubectl's: the server names the field manager
			// of a write without fieldManager by its first segment.
			c.UserAgent = fmt.Sprintf("kubectl/%s (%s/%s) kubecore", version.Get().GitVersion, goruntime.GOOS, goruntime.GOARCH)
		}
		c.WrapTransport = chainWrap(c.WrapTransport, logRequests)
		f.restConfig = c
	}
	return f.restConfig, nil
}

// RESTClient returns a client of absolute paths, shared by every other
// client of the Factory.
func (f *Factory) RESTClient() (*rest.Client, error) {
	cfg, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.restClient == nil {
		rc, err := rest.NewClient(cfg, rest.ClientOptions{})
		if err != nil {
			return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
		}
		f.restClient = rc
	}
	return f.restClient, nil
}

// Discovery returns the discovery client.
func (f *Factory) Discovery() (*discovery.Client, error) {
	rc, err := f.RESTClient()
	if err != nil {
		return nil, err
	}
	return discovery.NewClient(rc), nil
}

// Dynamic returns the client of objects of any resource.
func (f *Factory) Dynamic() (*dynamic.Client, error) {
	rc, err := f.RESTClient()
	if err != nil {
		return nil, err
	}
	return dynamic.NewClient(rc), nil
}

// Mapper returns the discovery-backed REST mapper.
func (f *Factory) Mapper() (*restmapper.Mapper, error) {
	d, err := f.Discovery()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mapper == nil {
		f.mapper = restmapper.New(parallelLister{d})
	}
	return f.mapper, nil
}

// NewBuilder returns a resource builder over this Factory's clients.
func (f *Factory) NewBuilder(streams IOStreams) (*resource.Builder, error) {
	mapper, err := f.Mapper()
	if err != nil {
		return nil, err
	}
	dyn, err := f.Dynamic()
	if err != nil {
		return nil, err
	}
	ns, explicit, err := f.Namespace()
	if err != nil {
		return nil, err
	}
	return resource.NewBuilder(mapper, dyn, streams.In).DefaultNamespace(ns, explicit), nil
}

// parallelLister reads the resources of every group version at once: one
// round trip of latency instead of one per group.
type parallelLister struct{ d *discovery.Client }

func (p parallelLister) ServerGroupsAndResources(ctx context.Context) ([]metav1.APIGroup, []*metav1.APIResourceList, error) {
	groups, err := p.d.ServerGroups(ctx)
	if err != nil {
		return nil, nil, err
	}
	type result struct {
		list *metav1.APIResourceList
		err  error
	}
	var gvs []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gvs = append(gvs, v.GroupVersion)
		}
	}
	results := make([]result, len(gvs))
	var wg sync.WaitGroup
	for i, gv := range gvs {
		wg.Go(func() {
			l, err := p.d.ServerResourcesForGroupVersion(ctx, gv)
			results[i] = result{l, err}
		})
	}
	wg.Wait()
	var lists []*metav1.APIResourceList
	for _, r := range results {
		if r.err != nil {
			return groups.Groups, lists, r.err
		}
		lists = append(lists, r.list)
	}
	return groups.Groups, lists, nil
}

// chainWrap applies inner, then outer.
func chainWrap(inner, outer func(http.RoundTripper) http.RoundTripper) func(http.RoundTripper) http.RoundTripper {
	if inner == nil {
		return outer
	}
	return func(rt http.RoundTripper) http.RoundTripper { return outer(inner(rt)) }
}

// logRequests logs each request at -v=6, as kubectl does.
func logRequests(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if !klog.V(6).Enabled() {
			return rt.RoundTrip(req)
		}
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		status := ""
		if resp != nil {
			status = resp.Status
		}
		klog.V(6).InfoS("Request", "verb", req.Method, "url", req.URL.String(), "status", status, "milliseconds", time.Since(start).Milliseconds(), "err", err)
		return resp, err
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
