// Package run implements `kubectl run`: create a pod running one image.
package run

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/generate"
)

// Options are the flags of run.
type Options struct {
	Image   string
	Port    int32
	Labels  string
	Env     []string
	Restart string
	Command bool
	// Overrides is a patch applied to the generated pod, of OverrideType
	// merge (JSON merge patch), json (JSON patch) or strategic.
	Overrides    string
	OverrideType string
	// Stdin, TTY, Attach and Remove run the pod attached, as -i, -t,
	// --attach and --rm (see attach.go).
	Stdin, TTY, Attach, Remove bool
	LeaveStdinOpen             bool
	Quiet                      bool
	PodRunningTimeout          time.Duration

	creator *generate.Creator
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the run command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{Restart: "Always", creator: generate.NewCreator(f, streams, "created"), factory: f, streams: streams}
	o.creator.WrapErrors = false
	cmd := &cobra.Command{
		Use:   "run NAME --image=image [--env=\"key=value\"] [--port=port] [--dry-run=server|client] [--command] -- [COMMAND] [args...]",
		Short: "Run a particular image on the cluster",
		RunE: func(cmd *cobra.Command, args []string) error {
			var rest []string
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				args, rest = args[:at], args[at:]
			} else if len(args) > 1 {
				args, rest = args[:1], args[1:]
			}
			name, err := generate.NameArg("kubectl run", args)
			if err != nil {
				return err
			}
			if err := o.validateAttach(); err != nil {
				return err
			}
			pod, err := o.pod(name, rest)
			if err != nil {
				return err
			}
			if err := o.override(pod.obj); err != nil {
				return err
			}
			if o.attached() {
				return o.runAttached(cmd.Context(), pod.obj)
			}
			return o.creator.Create(cmd.Context(), "pods", pod.obj)
		},
	}
	o.creator.AddFlags(cmd)
	fs := cmd.Flags()
	fs.StringVar(&o.Image, "image", "", "The image for the container to run.")
	fs.Int32Var(&o.Port, "port", -1, "The port that this container exposes.")
	fs.StringVarP(&o.Labels, "labels", "l", "", "Comma separated labels to apply to the pod. Will override previous values.")
	fs.StringArrayVar(&o.Env, "env", nil, "Environment variables to set in the container.")
	fs.StringVar(&o.Restart, "restart", "Always", "The restart policy for this Pod.  Legal values [Always, OnFailure, Never].")
	fs.BoolVar(&o.Command, "command", false, "If true and extra arguments are present, use them as the 'command' field in the container, rather than the 'args' field which is the default.")
	fs.StringVar(&o.Overrides, "overrides", "", "An inline JSON override for the generated object. If this is non-empty, it is used to override the generated object. Requires that the object supply a valid apiVersion field.")
	fs.StringVar(&o.OverrideType, "override-type", "merge", "The method used to override the generated object: json, merge, or strategic.")
	fs.BoolVarP(&o.Stdin, "stdin", "i", false, "Keep stdin open on the container in the pod, even if nothing is attached.")
	fs.BoolVarP(&o.TTY, "tty", "t", false, "Allocate a TTY for the container in the pod.")
	fs.BoolVar(&o.Attach, "attach", false, "If true, wait for the Pod to start running, and then attach to the Pod as if 'kubectl attach ...' were called.  Default false, unless '-i/--stdin' is set, in which case the default is true. With '--restart=Never' the exit code of the container process is returned.")
	fs.BoolVar(&o.Remove, "rm", false, "If true, delete the pod after it exits.  Only valid when attaching to the container, e.g. with '--attach' or with '-i/--stdin'.")
	fs.BoolVar(&o.LeaveStdinOpen, "leave-stdin-open", false, "If the pod is started in interactive mode or with stdin, leave stdin open after the first attach completes. By default, stdin will be closed after the first attach completes.")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "If true, suppress prompt messages.")
	fs.DurationVar(&o.PodRunningTimeout, "pod-running-timeout", time.Minute, "The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod is running")
	return cmd
}

// override applies --overrides to the generated pod.
func (o *Options) override(obj *dynamic.Unstructured) error {
	if o.Overrides == "" {
		return nil
	}
	original, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	var patched []byte
	switch o.OverrideType {
	case "merge":
		patched, err = jsonpatch.MergePatch(original, []byte(o.Overrides))
	case "json":
		var patch jsonpatch.Patch
		if patch, err = jsonpatch.DecodePatch([]byte(o.Overrides)); err == nil {
			patched, err = patch.Apply(original)
		}
	case "strategic":
		patched, err = strategicpatch.StrategicMergePatch(original, []byte(o.Overrides), corev1.Pod{})
	default:
		return fmt.Errorf("invalid override type: %v", o.OverrideType)
	}
	if err != nil {
		return fmt.Errorf("error applying overrides: %w", err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(patched, &out); err != nil {
		return fmt.Errorf("error applying overrides: %w", err)
	}
	obj.Object = out
	return nil
}

type podObject struct{ obj *dynamic.Unstructured }

// pod builds the pod as kubectl's generator does.
func (o *Options) pod(name string, rest []string) (podObject, error) {
	if o.Image == "" {
		return podObject{}, fmt.Errorf("--image is required")
	}
	switch o.Restart {
	case "Always", "OnFailure", "Never":
	default:
		return podObject{}, fmt.Errorf("invalid restart policy: %s", o.Restart)
	}
	labels := map[string]any{"run": name}
	if o.Labels != "" {
		labels = map[string]any{}
		for _, kv := range strings.Split(o.Labels, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return podObject{}, fmt.Errorf("invalid label spec: %v", kv)
			}
			labels[k] = v
		}
	}
	c := map[string]any{"name": name, "image": o.Image, "resources": map[string]any{}}
	if len(rest) > 0 {
		list := make([]any, len(rest))
		for i, s := range rest {
			list[i] = s
		}
		if o.Command {
			c["command"] = list
		} else {
			c["args"] = list
		}
	}
	if o.Port >= 0 {
		c["ports"] = []any{map[string]any{"containerPort": o.Port}}
	}
	if o.Stdin {
		c["stdin"] = true
		c["stdinOnce"] = !o.LeaveStdinOpen
	}
	if o.TTY {
		c["tty"] = true
	}
	if len(o.Env) > 0 {
		var env []any
		for _, e := range o.Env {
			k, v, _ := strings.Cut(e, "=")
			env = append(env, map[string]any{"name": k, "value": v})
		}
		c["env"] = env
	}
	obj := generate.NewObject("v1", "Pod", name)
	obj.Object["metadata"].(map[string]any)["labels"] = labels
	obj.Object["spec"] = map[string]any{
		"containers":    []any{c},
		"dnsPolicy":     "ClusterFirst",
		"restartPolicy": o.Restart,
	}
	obj.Object["status"] = map[string]any{}
	return podObject{obj: obj}, nil
}
