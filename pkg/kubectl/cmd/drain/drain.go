package drain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Filter messages, worded as kubectl words them.
const (
	daemonSetFatal    = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
	daemonSetWarning  = "ignoring DaemonSet-managed Pods"
	localStorageFatal = "Pods with local storage (use --delete-emptydir-data to override)"
	unmanagedFatal    = "cannot delete Pods that declare no controller (use --force to override)"
	unmanagedWarning  = "deleting Pods that declare no controller"
	mirrorAnnotation  = "kubernetes.io/config.mirror"
	// evictionRetry is how long an eviction refused by a disruption budget
	// waits before it is tried again.
	evictionRetry = 5 * time.Second
	// deletePoll is how often a pod is checked for being gone.
	deletePoll = time.Second
)

var (
	podsGVR       = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	daemonSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
)

// DrainOptions are the flags of drain.
type DrainOptions struct {
	Selector           string
	PodSelector        string
	Force              bool
	IgnoreDaemonSets   bool
	DeleteEmptyDirData bool
	GracePeriod        int
	Timeout            time.Duration
	DryRunFlag         cmdutil.DryRunFlag

	dryRun  cmdutil.DryRun
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewDrainCommand returns drain.
func NewDrainCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &DrainOptions{GracePeriod: -1, factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "drain NODE",
		Short: "Drain node in preparation for maintenance",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context(), args)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.Force, "force", false, "Continue even if there are pods that do not declare a controller.")
	fs.BoolVar(&o.IgnoreDaemonSets, "ignore-daemonsets", false, "Ignore DaemonSet-managed pods.")
	fs.BoolVar(&o.DeleteEmptyDirData, "delete-emptydir-data", false, "Continue even if there are pods using emptyDir (local data that will be deleted when the node is drained).")
	fs.IntVar(&o.GracePeriod, "grace-period", -1, "Period of time in seconds given to each pod to terminate gracefully. If negative, the default value specified in the pod will be used.")
	fs.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up, zero means infinite")
	fs.StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on")
	fs.StringVar(&o.PodSelector, "pod-selector", "", "Label selector to filter pods on the node")
	cmdutil.AddDryRunFlag(fs, &o.DryRunFlag)
	return cmd
}

// Complete checks the arguments and resolves the dry-run strategy.
func (o *DrainOptions) Complete(args []string) error {
	if len(args) == 0 && o.Selector == "" {
		return cmdutil.UsageErrorf("kubectl drain", "USAGE: drain NODE [flags]")
	}
	var err error
	o.dryRun, err = o.DryRunFlag.Strategy()
	return err
}

// Run cordons the nodes, then drains them one after another, stopping at
// the first node that cannot be drained.
func (o *DrainOptions) Run(ctx context.Context, args []string) error {
	r, nodes, err := fetchNodes(ctx, o.factory, o.streams, args, o.Selector)
	if err != nil {
		return err
	}
	if err := setUnschedulable(ctx, r, nodes, true, o.dryRun, o.streams); err != nil {
		return err
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	for i, node := range nodes {
		if err := o.drainNode(ctx, dyn, node.Name); err != nil {
			fmt.Fprintf(o.streams.ErrOut, "error: unable to drain node %q due to error: %s, continuing command...\n", node.Name, aggregateText(err))
			fmt.Fprintln(o.streams.ErrOut, "There are pending nodes to be drained:")
			for _, n := range nodes[i:] {
				fmt.Fprintf(o.streams.ErrOut, " %s\n", n.Name)
			}
			// kubectl prints the causes as they are, one a line.
			return cmdutil.RawError(err.Error())
		}
		fmt.Fprintf(o.streams.Out, "%s drained%s\n", node.ObjectName(), o.dryRun.Suffix())
	}
	return nil
}

// podDelete is a pod of the node and what drain does with it.
type podDelete struct {
	pod corev1.Pod
	// evict says the pod is to be evicted; else it is skipped.
	evict bool
	// warning or fatal explain a pod that is skipped or cannot be.
	warning, fatal string
}

// drainNode evicts the pods of node that may go, or says which cannot.
func (o *DrainOptions) drainNode(ctx context.Context, dyn *dynamic.Client, node string) error {
	pods, err := o.podsForDeletion(ctx, dyn, node)
	if err != nil {
		return err
	}
	if errs := summarize(pods, func(p podDelete) string { return p.fatal }); len(errs) > 0 {
		all := make([]error, 0, len(errs))
		for _, e := range errs {
			all = append(all, fmt.Errorf("cannot delete %s", e))
		}
		return errors.Join(all...)
	}
	if warnings := summarize(pods, func(p podDelete) string { return p.warning }); len(warnings) > 0 {
		fmt.Fprintf(o.streams.ErrOut, "Warning: %s\n", strings.Join(warnings, "; "))
	}
	var evict []corev1.Pod
	for _, p := range pods {
		if p.evict {
			evict = append(evict, p.pod)
		}
	}
	if o.dryRun == cmdutil.DryRunClient {
		for _, p := range evict {
			fmt.Fprintf(o.streams.Out, "evicting pod %s/%s%s\n", p.Namespace, p.Name, o.dryRun.Suffix())
		}
		return nil
	}
	if err := o.evictAll(ctx, dyn, evict); err != nil {
		if pending, listErr := o.podsForDeletion(context.WithoutCancel(ctx), dyn, node); listErr == nil {
			var names []string
			for _, p := range pending {
				if p.evict {
					names = append(names, "pod/"+p.pod.Name)
				}
			}
			if len(names) > 0 {
				fmt.Fprintf(o.streams.ErrOut, "There are pending pods in node %q when an error occurred: %s\n%s\n", node, aggregateText(err), strings.Join(names, "\n"))
			}
		}
		return err
	}
	return nil
}

// summarize groups the pods by the message pick gives them ("reason:
// ns/a, ns/b"), in the order of the messages.
func summarize(pods []podDelete, pick func(podDelete) string) []string {
	byMsg := map[string][]string{}
	for _, p := range pods {
		if m := pick(p); m != "" {
			byMsg[m] = append(byMsg[m], p.pod.Namespace+"/"+p.pod.Name)
		}
	}
	var out []string
	for _, m := range slices.Sorted(maps.Keys(byMsg)) {
		out = append(out, fmt.Sprintf("%s: %s", m, strings.Join(byMsg[m], ", ")))
	}
	return out
}

// podsForDeletion lists the pods of node (those --pod-selector picks) and
// decides for each, as kubectl's filters do in turn: a pod being deleted
// or a mirror pod is left alone, a DaemonSet's pod is ignored with
// --ignore-daemonsets, a pod with an emptyDir volume needs
// --delete-emptydir-data and one without a controller needs --force;
// finished pods may always go. Only the last filter a pod passes
// through speaks for it.
func (o *DrainOptions) podsForDeletion(ctx context.Context, dyn *dynamic.Client, node string) ([]podDelete, error) {
	l, err := dyn.Resource(podsGVR).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node, LabelSelector: o.PodSelector})
	if err != nil {
		return nil, err
	}
	var list corev1.PodList
	if err := decode(l, &list); err != nil {
		return nil, err
	}
	out := make([]podDelete, 0, len(list.Items))
	for _, pod := range list.Items {
		d := podDelete{pod: pod, evict: true}
		for _, filter := range []func(context.Context, *dynamic.Client, *corev1.Pod) podDelete{
			o.daemonSetFilter, mirrorPodFilter, o.localStorageFilter, o.unreplicatedFilter,
		} {
			d = filter(ctx, dyn, &pod)
			d.pod = pod
			if !d.evict {
				break
			}
		}
		out = append(out, d)
	}
	return out, nil
}

func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func (o *DrainOptions) daemonSetFilter(ctx context.Context, dyn *dynamic.Client, p *corev1.Pod) podDelete {
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.Kind != "DaemonSet" || finished(p) {
		return podDelete{evict: true}
	}
	if _, err := dyn.Resource(daemonSetsGVR).Namespace(p.Namespace).Get(ctx, ref.Name, metav1.GetOptions{}); err != nil {
		// An orphan goes with --force.
		if apierrors.IsNotFound(err) && o.Force {
			return podDelete{evict: true, warning: err.Error()}
		}
		return podDelete{fatal: err.Error()}
	}
	if !o.IgnoreDaemonSets {
		return podDelete{fatal: daemonSetFatal}
	}
	return podDelete{warning: daemonSetWarning}
}

func mirrorPodFilter(_ context.Context, _ *dynamic.Client, p *corev1.Pod) podDelete {
	if _, ok := p.Annotations[mirrorAnnotation]; ok {
		return podDelete{}
	}
	return podDelete{evict: true}
}

func (o *DrainOptions) localStorageFilter(_ context.Context, _ *dynamic.Client, p *corev1.Pod) podDelete {
	local := slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.EmptyDir != nil })
	if !local || finished(p) || o.DeleteEmptyDirData {
		return podDelete{evict: true}
	}
	return podDelete{fatal: localStorageFatal}
}

func (o *DrainOptions) unreplicatedFilter(_ context.Context, _ *dynamic.Client, p *corev1.Pod) podDelete {
	switch {
	case finished(p) || metav1.GetControllerOf(p) != nil:
		return podDelete{evict: true}
	case o.Force:
		return podDelete{evict: true, warning: unmanagedWarning}
	}
	return podDelete{fatal: unmanagedFatal}
}

// evictAll evicts the pods at once and waits until each is gone; the
// errors of all are returned together.
func (o *DrainOptions) evictAll(ctx context.Context, dyn *dynamic.Client, pods []corev1.Pod) error {
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	for i := range pods {
		wg.Go(func() { errs[i] = o.evict(ctx, dyn, &pods[i]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// evict asks for the pod's eviction until it is accepted (a disruption
// budget may refuse it for now), then waits for the pod to be gone.
func (o *DrainOptions) evict(ctx context.Context, dyn *dynamic.Client, pod *corev1.Pod) error {
	client := dyn.Resource(podsGVR).Namespace(pod.Namespace)
	eviction := &policyv1.Eviction{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
	}
	if o.GracePeriod >= 0 || o.dryRun == cmdutil.DryRunServer {
		eviction.DeleteOptions = &metav1.DeleteOptions{DryRun: o.dryRun.Param()}
		if o.GracePeriod >= 0 {
			grace := int64(o.GracePeriod)
			eviction.DeleteOptions.GracePeriodSeconds = &grace
		}
	}
	for {
		fmt.Fprintf(o.streams.Out, "evicting pod %s/%s%s\n", pod.Namespace, pod.Name, o.dryRun.Suffix())
		if ctx.Err() != nil {
			return fmt.Errorf("error when evicting pods/%q -n %q: global timeout reached: %v", pod.Name, pod.Namespace, o.Timeout)
		}
		req, err := client.NewRequest("POST", pod.Name, "eviction")
		if err != nil {
			return err
		}
		err = req.Body(eviction).Do(ctx).Error()
		if err == nil {
			break
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsTooManyRequests(err) {
			return fmt.Errorf("error when evicting pods/%q -n %q: %v", pod.Name, pod.Namespace, err)
		}
		fmt.Fprintf(o.streams.ErrOut, "error when evicting pods/%q -n %q (will retry after %s): %v\n", pod.Name, pod.Namespace, evictionRetry, err)
		select {
		case <-ctx.Done():
		case <-time.After(evictionRetry):
		}
	}
	if o.dryRun == cmdutil.DryRunServer {
		return nil
	}
	if err := waitForDelete(ctx, client, pod); err != nil {
		return fmt.Errorf("error when waiting for pod %q in namespace %q to terminate: %v", pod.Name, pod.Namespace, err)
	}
	fmt.Fprintf(o.streams.Out, "pod/%s evicted\n", pod.Name)
	return nil
}

// waitForDelete polls until the pod is gone or replaced by another of the
// same name.
func waitForDelete(ctx context.Context, client *dynamic.ResourceClient, pod *corev1.Pod) error {
	tick := time.NewTicker(deletePoll)
	defer tick.Stop()
	for {
		cur, err := client.Get(ctx, pod.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case ctx.Err() != nil:
			return context.DeadlineExceeded
		case err != nil:
			return err
		case cur.GetUID() != string(pod.UID):
			return nil
		}
		select {
		case <-ctx.Done():
			return context.DeadlineExceeded
		case <-tick.C:
		}
	}
}

// aggregateText is how kubectl writes several errors on one line: the
// only one as it is, several as "[a, b]".
func aggregateText(err error) string {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	return "[" + strings.Join(lines, ", ") + "]"
}

// decode reads an object of the dynamic client into a typed struct.
func decode(obj *dynamic.Unstructured, into any) error {
	b, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
