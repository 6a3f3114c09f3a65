package create

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/generate"
)

func newCreator(f *cmdutil.Factory, streams cmdutil.IOStreams) *generate.Creator {
	return generate.NewCreator(f, streams, "created")
}

func newNamespaceCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := newCreator(f, streams)
	// kubectl reports a namespace that exists as the server says it.
	o.WrapErrors = false
	cmd := &cobra.Command{
		Use:     "namespace NAME [--dry-run=server|client|none]",
		Aliases: []string{"ns"},
		Short:   "Create a namespace with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := generate.NameArg("kubectl create namespace", args)
			if err != nil {
				return err
			}
			obj := generate.NewObject("v1", "Namespace", name)
			obj.Object["spec"] = map[string]any{}
			obj.Object["status"] = map[string]any{}
			return o.Create(cmd.Context(), "namespaces", obj)
		},
	}
	o.AddFlags(cmd)
	return cmd
}

func newConfigMapCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := newCreator(f, streams)
	var literals, files, envFiles []string
	cmd := &cobra.Command{
		Use:     "configmap NAME [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
		Aliases: []string{"cm"},
		Short:   "Create a config map from a local file, directory or literal value",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := generate.NameArg("kubectl create configmap", args)
			if err != nil {
				return err
			}
			data, binary, err := collectData(literals, files, envFiles)
			if err != nil {
				return err
			}
			obj := generate.NewObject("v1", "ConfigMap", name)
			if len(data) > 0 {
				obj.Object["data"] = data
			}
			if len(binary) > 0 {
				obj.Object["binaryData"] = binary
			}
			return o.Create(cmd.Context(), "configmaps", obj)
		},
	}
	o.AddFlags(cmd)
	cmd.Flags().StringArrayVar(&literals, "from-literal", nil, "Specify a key and literal value to insert in configmap (i.e. mykey=somevalue)")
	cmd.Flags().StringSliceVar(&files, "from-file", nil, "Key file can be specified using its file path, in which case file basename will be used as configmap key, or optionally with a key and file path, in which case the given key will be used.  Specifying a directory will iterate each named file in the directory whose basename is a valid configmap key.")
	cmd.Flags().StringSliceVar(&envFiles, "from-env-file", nil, "Specify the path to a file to read lines of key=val pairs to create a configmap.")
	return cmd
}

// collectData reads --from-literal, --from-file and --from-env-file into
// text values and binary ones.
func collectData(literals, files, envFiles []string) (data, binary map[string]any, err error) {
	data, binary = map[string]any{}, map[string]any{}
	for _, l := range literals {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("invalid literal source %s, expected key=value", l)
		}
		if err := addKey(data, k, v); err != nil {
			return nil, nil, err
		}
	}
	for _, fspec := range files {
		if err := addFromFile(data, binary, fspec); err != nil {
			return nil, nil, err
		}
	}
	for _, env := range envFiles {
		if err := addFromEnvFile(data, env); err != nil {
			return nil, nil, err
		}
	}
	return data, binary, nil
}

func newSecretCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret (generic) NAME [flags]",
		Short: "Create a secret using a specified subcommand",
	}
	o := newCreator(f, streams)
	var literals, files, envFiles []string
	var typ string
	generic := &cobra.Command{
		Use:   "generic NAME [--type=string] [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
		Short: "Create a secret from a local file, directory, or literal value",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := generate.NameArg("kubectl create secret generic", args)
			if err != nil {
				return err
			}
			data, binary, err := collectData(literals, files, envFiles)
			if err != nil {
				return err
			}
			encoded := map[string]any{}
			for k, v := range data {
				encoded[k] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
			}
			for k, v := range binary {
				encoded[k] = base64.StdEncoding.EncodeToString(v.([]byte))
			}
			obj := generate.NewObject("v1", "Secret", name)
			if len(encoded) > 0 {
				obj.Object["data"] = encoded
			}
			if typ != "" {
				obj.Object["type"] = typ
			}
			return o.Create(cmd.Context(), "secrets", obj)
		},
	}
	o.AddFlags(generic)
	generic.Flags().StringArrayVar(&literals, "from-literal", nil, "Specify a key and literal value to insert in secret (i.e. mykey=somevalue)")
	generic.Flags().StringSliceVar(&files, "from-file", nil, "Key files can be specified using their file path, in which case a default name will be given to them, or optionally with a name and file path, in which case the given name will be used.  Specifying a directory will iterate each named file in the directory that is a valid secret key.")
	generic.Flags().StringSliceVar(&envFiles, "from-env-file", nil, "Specify the path to a file to read lines of key=val pairs to create a secret.")
	generic.Flags().StringVar(&typ, "type", "", "The type of secret to create")
	cmd.AddCommand(generic)
	return cmd
}

func newServiceCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "service (clusterip) NAME [flags]",
		Aliases: []string{"svc"},
		Short:   "Create a service using a specified subcommand",
	}
	o := newCreator(f, streams)
	var tcp []string
	var clusterIP string
	clusterip := &cobra.Command{
		Use:   "clusterip NAME [--tcp=<port>:<targetPort>] [--dry-run=server|client|none]",
		Short: "Create a ClusterIP service",
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := generate.NameArg("kubectl create service clusterip", args)
			if err != nil {
				return err
			}
			var ports []any
			for _, spec := range tcp {
				port, target, hasTarget := strings.Cut(spec, ":")
				if !hasTarget {
					target = port
				}
				p, err := strconv.Atoi(port)
				if err != nil {
					return fmt.Errorf("invalid port %q in --tcp=%s", port, spec)
				}
				var targetPort any = target
				if n, err := strconv.Atoi(target); err == nil {
					targetPort = n
				}
				ports = append(ports, map[string]any{
					"name": strings.ReplaceAll(spec, ":", "-"), "port": p, "protocol": "TCP", "targetPort": targetPort,
				})
			}
			if len(ports) == 0 && clusterIP != "None" {
				return fmt.Errorf("at least one tcp port specifier must be provided")
			}
			obj := generate.NewObject("v1", "Service", name)
			obj.Object["metadata"].(map[string]any)["labels"] = map[string]any{"app": name}
			spec := map[string]any{"selector": map[string]any{"app": name}, "type": "ClusterIP"}
			if len(ports) > 0 {
				spec["ports"] = ports
			}
			if clusterIP != "" {
				spec["clusterIP"] = clusterIP
			}
			obj.Object["spec"] = spec
			obj.Object["status"] = map[string]any{"loadBalancer": map[string]any{}}
			return o.Create(cmd.Context(), "services", obj)
		},
	}
	o.AddFlags(clusterip)
	clusterip.Flags().StringSliceVar(&tcp, "tcp", nil, "Port pairs can be specified as '<port>:<targetPort>'.")
	clusterip.Flags().StringVar(&clusterIP, "clusterip", "", "Assign your own ClusterIP or set to 'None' for a 'headless' service (no loadbalancing).")
	cmd.AddCommand(clusterip)
	return cmd
}

func addKey(data map[string]any, k, v string) error {
	if _, dup := data[k]; dup {
		return fmt.Errorf("cannot add key %s, another key by that name already exists in Data for ConfigMap %q", k, "")
	}
	data[k] = v
	return nil
}

// addFromFile reads [key=]path: one file, or every regular file of a
// directory.
func addFromFile(data, binary map[string]any, spec string) error {
	key, path, hasKey := strings.Cut(spec, "=")
	if !hasKey {
		path, key = spec, ""
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("error reading %s: %w", path, err)
	}
	if st.IsDir() {
		if hasKey {
			return fmt.Errorf("cannot give a key name for a directory path")
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return fmt.Errorf("error listing files in %s: %w", path, err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := addFile(data, binary, e.Name(), filepath.Join(path, e.Name())); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if key == "" {
		key = filepath.Base(path)
	}
	return addFile(data, binary, key, path)
}

func addFile(data, binary map[string]any, key, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("error reading %s: %w", path, err)
	}
	if !utf8.Valid(b) {
		binary[key] = b
		return nil
	}
	return addKey(data, key, string(b))
}

// addFromEnvFile reads KEY=VALUE lines, skipping blanks and # comments.
func addFromEnvFile(data map[string]any, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("error reading %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		if !ok {
			v = os.Getenv(k)
		}
		if k == "" {
			return fmt.Errorf("%s: line %d: invalid key", path, line)
		}
		data[k] = v
	}
	return sc.Err()
}

func newDeploymentCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := newCreator(f, streams)
	var images []string
	var replicas int32
	var port int32
	cmd := &cobra.Command{
		Use:     "deployment NAME --image=image -- [COMMAND] [args...]",
		Aliases: []string{"deploy"},
		Short:   "Create a deployment with the specified name",
		RunE: func(cmd *cobra.Command, args []string) error {
			var command []string
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				args, command = args[:at], args[at:]
			}
			name, err := generate.NameArg("kubectl create deployment", args)
			if err != nil {
				return err
			}
			if len(images) == 0 {
				return fmt.Errorf("required flag(s) \"image\" not set")
			}
			if len(images) > 1 && len(command) > 0 {
				return fmt.Errorf("cannot specify multiple --image options and command")
			}
			labels := map[string]any{"app": name}
			var containers []any
			for _, image := range images {
				c := map[string]any{"name": containerName(image), "image": image, "resources": map[string]any{}}
				if len(command) > 0 {
					cmdList := make([]any, len(command))
					for i, s := range command {
						cmdList[i] = s
					}
					c["command"] = cmdList
				}
				if port >= 0 {
					c["ports"] = []any{map[string]any{"containerPort": port}}
				}
				containers = append(containers, c)
			}
			obj := generate.NewObject("apps/v1", "Deployment", name)
			obj.Object["metadata"].(map[string]any)["labels"] = copyMap(labels)
			obj.Object["spec"] = map[string]any{
				"replicas": replicas,
				"selector": map[string]any{"matchLabels": copyMap(labels)},
				"strategy": map[string]any{},
				"template": map[string]any{
					"metadata": map[string]any{"creationTimestamp": nil, "labels": copyMap(labels)},
					"spec":     map[string]any{"containers": containers},
				},
			}
			obj.Object["status"] = map[string]any{}
			return o.Create(cmd.Context(), "deployments.apps", obj)
		},
	}
	o.AddFlags(cmd)
	cmd.Flags().StringSliceVar(&images, "image", nil, "Image names to run. A deployment can have multiple images set for multi-container pod.")
	cmd.Flags().Int32VarP(&replicas, "replicas", "r", 1, "Number of replicas to create. Default is 1.")
	cmd.Flags().Int32Var(&port, "port", -1, "The containerPort that this deployment exposes.")
	return cmd
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// containerName derives a container name from an image: its last path
// element without tag or digest, made DNS-label safe.
func containerName(image string) string {
	name := image
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexAny(name, ":@"); i >= 0 {
		name = name[:i]
	}
	name = strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(name))
	return name
}
