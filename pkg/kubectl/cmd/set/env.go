package set

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// EnvOptions are the flags of set env.
type EnvOptions struct {
	Files         resource.FilenameOptions
	Selector      string
	All           bool
	ContainerName string
	List          bool
	EnvArgs       []string
	From          string
	Prefix        string
	Keys          []string
	DryRunFlag    cmdutil.DryRunFlag

	dryRun   cmdutil.DryRun
	resArgs  []string
	setVars  []envVar
	removals []string

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// envVar is one variable to set: NAME=value of the command line, or a
// key of the --from config map or secret.
type envVar struct {
	name, value string
	// from, when set, is the variable's valueFrom.
	from map[string]any
}

func newEnvCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &EnvOptions{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "env RESOURCE/NAME KEY_1=VAL_1 ... KEY_N=VAL_N",
		Short: "Update environment variables on a pod template",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "the resource to update the env")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().BoolVar(&o.All, "all", false, "If true, select all resources in the namespace of the specified resource types")
	cmd.Flags().StringVarP(&o.ContainerName, "containers", "c", "*", "The names of containers in the selected pod templates to change - may use wildcards")
	cmd.Flags().BoolVar(&o.List, "list", false, "If true, display the environment and any changes in the standard format. this flag will removed when we have kubectl view env.")
	cmd.Flags().StringArrayVarP(&o.EnvArgs, "env", "e", nil, "Specify a key-value pair for an environment variable to set into each container.")
	cmd.Flags().StringVar(&o.From, "from", "", "The name of a resource from which to inject environment variables")
	cmd.Flags().StringVar(&o.Prefix, "prefix", "", "Prefix to append to variable names")
	cmd.Flags().StringSliceVar(&o.Keys, "keys", nil, "Comma-separated list of keys to import from specified resource")
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	return cmd
}

// Complete splits the arguments into resources, variables to set and
// variables to remove.
func (o *EnvOptions) Complete(args []string) error {
	var err error
	if o.dryRun, err = o.DryRunFlag.Strategy(); err != nil {
		return err
	}
	for _, a := range args {
		switch {
		case strings.Contains(a, "="):
			o.EnvArgs = append(o.EnvArgs, a)
		case strings.HasSuffix(a, "-") && !strings.Contains(a, "/"):
			o.removals = append(o.removals, strings.TrimSuffix(a, "-"))
		default:
			o.resArgs = append(o.resArgs, a)
		}
	}
	for _, a := range o.EnvArgs {
		name, value, _ := strings.Cut(a, "=")
		if name == "" {
			return fmt.Errorf("invalid key value pair: %s", a)
		}
		o.setVars = append(o.setVars, envVar{name: name, value: value})
	}
	return nil
}

// Validate checks that there is something to do.
func (o *EnvOptions) Validate() error {
	if len(o.resArgs) == 0 && len(o.Files.Filenames) == 0 {
		return cmdutil.UsageErrorf("kubectl set env", "one or more resources must be specified as <resource> <name> or <resource>/<name>")
	}
	if len(o.Keys) > 0 && o.From == "" {
		return errors.New("when specifying --keys, a configmap or secret must be provided with --from")
	}
	return nil
}

// keyRefs are the valueFrom fields that point at a key of a config map
// or a secret.
var keyRefs = map[string]string{"ConfigMap": "configMapKeyRef", "Secret": "secretKeyRef"}

// varsFrom returns a variable for each key (of --keys, when given) of the
// config maps and secrets --from names, in the order of their keys, and
// warns of each key renamed to be a variable name.
func (o *EnvOptions) varsFrom(ctx context.Context) ([]envVar, error) {
	if strings.Count(o.From, "/") > 1 {
		return nil, errors.New("arguments in resource/name form may not have more than one slash")
	}
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return nil, err
	}
	r, err := b.Args(o.From).RequireNames().Do(ctx)
	if err != nil {
		return nil, err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return nil, err
	}
	var vars []envVar
	for _, info := range infos {
		ref, ok := keyRefs[info.Object.GetKind()]
		if !ok {
			return nil, errors.New("unsupported resource specified in --from")
		}
		data, _ := info.Object.Object["data"].(map[string]any)
		keys := slices.Sorted(maps.Keys(data))
		for _, key := range keys {
			if len(o.Keys) > 0 && !slices.Contains(o.Keys, key) {
				continue
			}
			name := envName(key)
			if name != key {
				fmt.Fprintf(o.streams.ErrOut, "Warning: key %s transferred to %s\n", key, name)
			}
			vars = append(vars, envVar{
				name: o.Prefix + name,
				from: map[string]any{ref: map[string]any{"name": info.Name, "key": key}},
			})
		}
	}
	return vars, nil
}

// notEnvNameChar matches what a key has that a variable name may not.
var notEnvNameChar = regexp.MustCompile(`[^A-Za-z0-9_]`)

// envName makes a variable name of a key: upper case, with an underscore
// for each character a name may not have.
func envName(key string) string {
	return strings.ToUpper(notEnvNameChar.ReplaceAllString(key, "_"))
}

// Run lists or updates the environment of each object's containers.
func (o *EnvOptions) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.resArgs...).LabelSelector(o.Selector).SelectAll(o.All).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	set := o.setVars
	if o.From != "" && !o.List {
		from, err := o.varsFrom(ctx)
		if err != nil {
			return err
		}
		set = append(set, from...)
	}
	var errs []error
	for _, info := range infos {
		where := containersPath(info.Object.GetKind())
		if where == nil {
			errs = append(errs, fmt.Errorf("%s is not supported", info.ObjectName()))
			continue
		}
		containers, _ := dynamic.NestedField(info.Object.Object, where...).([]any)
		if !slices.ContainsFunc(containers, o.selects) {
			fmt.Fprintf(o.streams.ErrOut, "Warning: %s/%s does not have any containers matching %q\n", info.Object.GetKind(), info.Name, o.ContainerName)
			continue
		}
		if o.List {
			o.listEnv(info, containers)
			continue
		}
		var ops []jsonPatchOp
		for i, c := range containers {
			if !o.selects(c) {
				continue
			}
			m, _ := c.(map[string]any)
			env, _ := m["env"].([]any)
			updated := updateEnv(env, set, o.removals)
			if jsonEqual(env, updated) {
				continue
			}
			p := "/" + strings.Join(where, "/") + "/" + strconv.Itoa(i) + "/env"
			if len(updated) == 0 {
				ops = append(ops, jsonPatchOp{Op: "remove", Path: p})
			} else {
				ops = append(ops, jsonPatchOp{Op: "add", Path: p, Value: updated})
			}
		}
		if len(ops) == 0 {
			continue
		}
		patch, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		if o.dryRun != cmdutil.DryRunClient {
			if _, err := r.Client(info).Patch(ctx, info.Name, types.JSONPatchType, patch, metav1.PatchOptions{DryRun: o.dryRun.Param()}); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		fmt.Fprintf(o.streams.Out, "%s env updated%s\n", info.ObjectName(), o.dryRun.Suffix())
	}
	return errors.Join(errs...)
}

// jsonPatchOp is one operation of a JSON patch.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// selects reports whether -c names container c.
func (o *EnvOptions) selects(c any) bool {
	m, _ := c.(map[string]any)
	ok, _ := path.Match(o.ContainerName, dynamic.NestedString(m, "name"))
	return ok
}

// listEnv prints the environment of the selected containers, as set env
// --list does.
func (o *EnvOptions) listEnv(info *resource.Info, containers []any) {
	out := o.streams.Out
	for _, c := range containers {
		if !o.selects(c) {
			continue
		}
		m, _ := c.(map[string]any)
		fmt.Fprintf(out, "# %s %s, container %s\n", info.Object.GetKind(), info.Name, dynamic.NestedString(m, "name"))
		env, _ := m["env"].([]any)
		for _, e := range env {
			v, _ := e.(map[string]any)
			from, _ := v["valueFrom"].(map[string]any)
			if from == nil {
				fmt.Fprintf(out, "%s=%s\n", dynamic.NestedString(v, "name"), dynamic.NestedString(v, "value"))
				continue
			}
			fmt.Fprintf(out, "# %s from %s\n", dynamic.NestedString(v, "name"), refString(from))
		}
	}
}

// refString describes where a variable's value comes from.
func refString(from map[string]any) string {
	switch {
	case from["configMapKeyRef"] != nil:
		return fmt.Sprintf("configmap %s, key %s", dynamic.NestedString(from, "configMapKeyRef", "name"), dynamic.NestedString(from, "configMapKeyRef", "key"))
	case from["secretKeyRef"] != nil:
		return fmt.Sprintf("secret %s, key %s", dynamic.NestedString(from, "secretKeyRef", "name"), dynamic.NestedString(from, "secretKeyRef", "key"))
	case from["fieldRef"] != nil:
		return "field path " + dynamic.NestedString(from, "fieldRef", "fieldPath")
	case from["resourceFieldRef"] != nil:
		return "resource " + dynamic.NestedString(from, "resourceFieldRef", "resource")
	}
	return "invalid source"
}

// updateEnv returns env with the variables of set given their values (in
// place when already there, else appended in order) and those named in
// remove dropped.
func updateEnv(env []any, set []envVar, remove []string) []any {
	out := make([]any, 0, len(env)+len(set))
	done := map[string]bool{}
	value := map[string]envVar{}
	for _, v := range set {
		value[v.name] = v
	}
	removed := map[string]bool{}
	for _, n := range remove {
		removed[n] = true
	}
	for _, e := range env {
		m, _ := e.(map[string]any)
		name := dynamic.NestedString(m, "name")
		if removed[name] {
			continue
		}
		if v, ok := value[name]; ok {
			if !done[name] {
				out = append(out, v.entry())
				done[name] = true
			}
			continue
		}
		out = append(out, e)
	}
	for _, v := range set {
		if !done[v.name] && !removed[v.name] {
			out = append(out, value[v.name].entry())
			done[v.name] = true
		}
	}
	return out
}

// entry is the variable as the container's env holds it; an empty value
// is left out, as the server leaves it out.
func (v envVar) entry() map[string]any {
	switch {
	case v.from != nil:
		return map[string]any{"name": v.name, "valueFrom": v.from}
	case v.value == "":
		return map[string]any{"name": v.name}
	}
	return map[string]any{"name": v.name, "value": v.value}
}

// jsonEqual reports whether a and b encode alike.
func jsonEqual(a, b []any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
