// Package hollownodes implements `kubecore hollow-nodes`: N kubelets with
// the fake runtime in one process, for scale tests of the control plane.
package hollownodes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/cmd/kubecore/app/options"
	"kubecore.io/kubecore/pkg/kubelet"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

// Options are the flags of `kubecore hollow-nodes`.
type Options struct {
	Kubeconfig string
	// Count hollow nodes named NamePrefix0, NamePrefix1, ...
	Count      int
	NamePrefix string
	// RootDir holds the nodes' root dirs; a temp dir when empty.
	RootDir string
	// QPS and Burst are each node's client limits, as a kubelet's own
	// (50 and 100); the one client the nodes share allows Count times as
	// much.
	QPS   float32
	Burst int
	// ContentType is the client's encoding, as a kubelet's.
	ContentType string
	// RecordEvents makes the nodes write their Events (Pulled, Created,
	// Started, node conditions...); off, they are only logged, which keeps
	// hundreds of nodes' write load to what they measure.
	RecordEvents bool
	// RESTConfig, when set, is used instead of Kubeconfig (tests).
	RESTConfig *rest.Config
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{Count: 10, NamePrefix: "hollow-node-", QPS: 50, Burst: 100, ContentType: options.DefaultContentType}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.Kubeconfig == "" && o.RESTConfig == nil {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if o.Count <= 0 {
		errs = append(errs, fmt.Errorf("--count %d must be positive", o.Count))
	}
	if err := options.ValidateContentType(o.ContentType); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	cs      *typed.Clientset
	names   []string
	rootDir string
	tmp     bool
	events  bool
}

// Complete validates o and makes the shared client.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	rc := o.RESTConfig
	if rc == nil {
		c, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
		if err != nil {
			return Config{}, fmt.Errorf("load kubeconfig %s: %w", o.Kubeconfig, err)
		}
		rc = c
	}
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst, rc.ContentType = o.QPS*float32(o.Count), o.Burst*o.Count, o.ContentType
	rc.UserAgent = rest.DefaultUserAgent() + "/hollow-node"
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		return Config{}, fmt.Errorf("hollow nodes client: %w", err)
	}
	c := &completedConfig{cs: cs, rootDir: o.RootDir, events: o.RecordEvents}
	if c.rootDir == "" {
		d, err := os.MkdirTemp("", "kubecore-hollow-nodes-")
		if err != nil {
			return Config{}, fmt.Errorf("hollow nodes root dir: %w", err)
		}
		c.rootDir, c.tmp = d, true
	}
	for i := range o.Count {
		c.names = append(c.names, fmt.Sprintf("%s%d", o.NamePrefix, i))
	}
	return Config{completed: c}, nil
}

// machine is what every hollow node reports.
func machine() *kubelet.MachineInfo {
	rl := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceMemory:           resource.MustParse("16Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	return &kubelet.MachineInfo{Capacity: rl, Allocatable: rl, SystemInfo: corev1.NodeSystemInfo{
		KubeletVersion: "v1.32.0-kubecore-hollow", OperatingSystem: "linux", Architecture: "amd64", KernelVersion: "hollow", OSImage: "hollow",
	}}
}

// Run runs the hollow nodes until ctx ends. The nodes share one client,
// one pod informer (all pods bound to any node), which hands each pod to
// its node's kubelet: one watch instead of N, and one ObjectWatcher of the
// config maps and secrets their pods refer to.
func (c Config) Run(ctx context.Context) error {
	if c.completed == nil {
		return errors.New("hollow-nodes config was not completed")
	}
	return c.completed.run(ctx)
}

func (c *completedConfig) run(ctx context.Context) error {
	if c.tmp {
		defer func() { _ = os.RemoveAll(c.rootDir) }()
	}
	logger := klog.FromContext(ctx)
	m := machine()
	// One watch per config map or secret the pods of all nodes refer to.
	objects := kubelet.NewObjectWatcher(c.cs)
	kubelets := make(map[string]*kubelet.Kubelet, len(c.names))
	for i, name := range c.names {
		kl, err := kubelet.New(kubelet.Config{
			NodeName: name, Client: c.cs, Runtime: fake.New(fmt.Sprintf("10.%d.%d.%d", 64+i>>16&63, i>>8&255, i&255), nil),
			RootDir: filepath.Join(c.rootDir, name), NodeIP: fmt.Sprintf("10.%d.%d.%d", 64+i>>16&63, i>>8&255, i&255),
			Machine: m, ExternalPodSource: true, Objects: objects, KubeletPort: 10250, DisableEvents: !c.events,
		})
		if err != nil {
			return fmt.Errorf("hollow node %s: %w", name, err)
		}
		kubelets[name] = kl
	}
	factory := informers.NewSharedInformerFactory(c.cs)
	inf, err := informers.Pods(factory)
	if err != nil {
		return fmt.Errorf("pod informer: %w", err)
	}
	dispatch := func(p *corev1.Pod, removed bool) {
		if kl, ok := kubelets[p.Spec.NodeName]; ok {
			kl.HandlePod(p, removed)
		}
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { dispatch(p, false) },
		UpdateFunc: func(_, p *corev1.Pod) { dispatch(p, false) },
		DeleteFunc: func(p *corev1.Pod) { dispatch(p, true) },
	})
	if err != nil {
		return fmt.Errorf("pod informer: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { objects.Run(ctx) })
	errs := make(chan error, len(kubelets))
	for _, kl := range kubelets {
		kl.SetExternalPodsSynced(reg.HasSynced)
		wg.Go(func() {
			if err := kl.Run(ctx); err != nil {
				errs <- err
			}
		})
	}
	for _, kl := range kubelets {
		select {
		case <-kl.Started():
		case <-ctx.Done():
		}
	}
	logger.Info("Hollow nodes registered", "count", len(kubelets))
	factory.Start(ctx)
	wg.Wait()
	factory.Shutdown()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// NewCommand returns the hollow-nodes subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "hollow-nodes",
		Short: "Run simulated kubelets for scale tests",
		Long: "Run --count kubelets with the fake runtime (no processes) in one process, each with its\n" +
			"own Node, Lease and pod workers, sharing one client and one pod watch.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.Complete()
			if err != nil {
				return err
			}
			return c.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file with the API server and credentials")
	fs.IntVar(&o.Count, "count", o.Count, "Number of hollow nodes")
	fs.StringVar(&o.NamePrefix, "name-prefix", o.NamePrefix, "Prefix of the node names, followed by 0, 1, ...")
	fs.StringVar(&o.RootDir, "root-dir", o.RootDir, "Directory of the nodes' root dirs (default: a temp dir, removed at exit)")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second of each node, as a kubelet's; the shared client allows --count times as many (0: no limit)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of each node; the shared client allows --count times as many")
	fs.BoolVar(&o.RecordEvents, "record-events", o.RecordEvents, "Write the nodes' Events to the API server (off: only logged, to keep the load of many nodes to what a scale test measures)")
	options.AddContentTypeFlag(fs, &o.ContentType)
	return cmd
}
