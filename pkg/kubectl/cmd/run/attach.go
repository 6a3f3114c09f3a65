package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmd/attach"
	"kubecore.io/kubecore/pkg/kubectl/cmd/exec"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// attached says whether the pod is run attached (-i, -t or --attach).
func (o *Options) attached() bool { return o.Attach || o.Stdin }

// validateAttach checks the flags of an attached run as kubectl does.
func (o *Options) validateAttach() error {
	if o.TTY && !o.Stdin {
		return errors.New("-i/--stdin is required for containers with -t/--tty=true")
	}
	if o.Remove && !o.attached() {
		return errors.New("--rm should only be used for attached containers")
	}
	if dryRun, err := o.creator.DryRunFlag.Strategy(); err == nil && dryRun != cmdutil.DryRunNone && o.attached() {
		return errors.New("--dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)")
	}
	return nil
}

// runAttached creates the pod quietly, waits for it to run, attaches (or
// prints the log of a pod that finished first), deletes it with --rm and
// returns the container's exit code as the command's when the pod failed.
func (o *Options) runAttached(ctx context.Context, obj *dynamic.Unstructured) error {
	out := o.creator.Streams.Out
	o.creator.Streams.Out = io.Discard
	err := o.creator.Create(ctx, "pods", obj)
	o.creator.Streams.Out = out
	if err != nil {
		return err
	}
	ns, _, err := o.factory.Namespace()
	if err != nil {
		return err
	}
	name := obj.GetName()
	pod, err := attach.WaitForRunning(ctx, o.factory, ns, name, o.PodRunningTimeout)
	if err != nil {
		return err
	}
	container := cmdutil.DefaultContainer(pod, nil)
	if !completed(pod) {
		err = exec.Attach(ctx, o.factory, o.streams, exec.AttachOptions{
			Namespace: ns, Pod: name, Container: container, Stdin: o.Stdin, TTY: o.TTY, Quiet: o.Quiet,
		})
	}
	if err != nil || completed(pod) {
		// The pod may have finished before the attach: its log says
		// what it did.
		current, getErr := o.getPod(ctx, ns, name)
		if getErr != nil || !completed(current) {
			return err
		}
		if logErr := o.printLog(ctx, ns, name, container); logErr != nil {
			return logErr
		}
	}
	if o.Restart == "Never" {
		// The outcome is the pod's, once it is over.
		if pod, err = cmdutil.WaitForPod(ctx, o.factory, ns, name, func(p *dynamic.Unstructured) (bool, error) {
			return completed(p), nil
		}); err != nil {
			return err
		}
	} else if pod, err = o.getPod(ctx, ns, name); err != nil {
		return err
	}
	if o.Remove {
		dyn, err := o.factory.Dynamic()
		if err != nil {
			return err
		}
		if _, err := dyn.Resource(cmdutil.PodsGVR).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return err
		}
		fmt.Fprintf(o.streams.Out, "pod %q deleted\n", name)
	}
	if dynamic.NestedString(pod.Object, "status", "phase") != "Failed" {
		return nil
	}
	code, reason, message := terminated(pod)
	return &cmdutil.ExitError{Code: code, Msg: fmt.Sprintf("pod %s/%s terminated (%s)\n%s", ns, name, reason, message)}
}

func (o *Options) getPod(ctx context.Context, ns, name string) (*dynamic.Unstructured, error) {
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return nil, err
	}
	return dyn.Resource(cmdutil.PodsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
}

// printLog copies the container's log to stdout.
func (o *Options) printLog(ctx context.Context, ns, name, container string) error {
	return cmdutil.CopyLog(ctx, o.factory, o.streams.Out, ns, name, container)
}

func completed(pod *dynamic.Unstructured) bool {
	phase := dynamic.NestedString(pod.Object, "status", "phase")
	return phase == "Succeeded" || phase == "Failed"
}

// terminated is the exit code, reason and message of the first
// terminated container of the pod.
func terminated(pod *dynamic.Unstructured) (int, string, string) {
	list, _ := dynamic.NestedField(pod.Object, "status", "containerStatuses").([]any)
	for _, c := range list {
		m, _ := c.(map[string]any)
		t, ok := dynamic.NestedField(m, "state", "terminated").(map[string]any)
		if !ok {
			continue
		}
		code, err := strconv.Atoi(fmt.Sprint(t["exitCode"]))
		if err != nil {
			code = 1
		}
		return code, dynamic.NestedString(t, "reason"), dynamic.NestedString(t, "message")
	}
	return 1, "Error", ""
}
