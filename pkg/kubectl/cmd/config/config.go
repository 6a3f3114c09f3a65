// Package config implements `kubectl config`: view, current-context,
// use-context, get-contexts, set-context and delete-context on the
// kubeconfig files.
package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/tools/clientcmd/api"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
)

// NewCommand returns config and its subcommands.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config SUBCOMMAND",
		Short: "Modify kubeconfig files",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q", args[0], "kubectl config")
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(
		newViewCommand(f, streams),
		newCurrentContextCommand(f, streams),
		newUseContextCommand(f, streams),
		newGetContextsCommand(f, streams),
		newSetContextCommand(f, streams),
		newDeleteContextCommand(f, streams),
	)
	return cmd
}

// Redacted stand-ins kubectl prints for secrets.
const (
	dataOmitted = "DATA+OMITTED"
	redacted    = "REDACTED"
)

func newViewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	var raw, minify, flatten bool
	var output string
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Display merged kubeconfig settings or a specified kubeconfig file",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := f.RawConfig()
			if err != nil {
				return err
			}
			if minify {
				if cfg, err = minifyConfig(cfg, f.Flags.Context); err != nil {
					return err
				}
			}
			data, err := clientcmd.Marshal(&cfg)
			if err != nil {
				return err
			}
			js, err := yaml.YAMLToJSON(data)
			if err != nil {
				return err
			}
			var m map[string]any
			if err := json.Unmarshal(js, &m); err != nil {
				return err
			}
			if !raw && !flatten {
				redact(m)
			}
			switch output {
			case "", "yaml":
				out, err := yaml.Marshal(m)
				if err != nil {
					return err
				}
				fmt.Fprint(streams.Out, string(out))
			case "json":
				out, err := json.MarshalIndent(m, "", "    ")
				if err != nil {
					return err
				}
				fmt.Fprintln(streams.Out, string(out))
			default:
				return fmt.Errorf("--output must be yaml or json, not %q", output)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "Display raw byte data and sensitive data")
	cmd.Flags().BoolVar(&minify, "minify", false, "Remove all information not used by current-context from the output")
	cmd.Flags().BoolVar(&flatten, "flatten", false, "Flatten the resulting kubeconfig file into self-contained output (useful for creating portable kubeconfig files)")
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "Output format. One of: (json, yaml).")
	return cmd
}

// minifyConfig keeps only the context in use, its cluster and its user.
func minifyConfig(cfg api.Config, override string) (api.Config, error) {
	name := cfg.CurrentContext
	if override != "" {
		name = override
	}
	ctx, ok := cfg.Contexts[name]
	if name == "" || !ok {
		return cfg, fmt.Errorf("current-context must exist in order to minify")
	}
	out := *api.NewConfig()
	out.CurrentContext = name
	out.Preferences = cfg.Preferences
	out.Contexts[name] = ctx
	if c, ok := cfg.Clusters[ctx.Cluster]; ok {
		out.Clusters[ctx.Cluster] = c
	}
	if u, ok := cfg.AuthInfos[ctx.AuthInfo]; ok {
		out.AuthInfos[ctx.AuthInfo] = u
	}
	return out, nil
}

// redact hides certificates, keys, tokens and passwords.
func redact(m map[string]any) {
	for _, list := range []string{"clusters", "users"} {
		entries, _ := m[list].([]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			for _, inner := range []string{"cluster", "user"} {
				fields, _ := em[inner].(map[string]any)
				for k := range fields {
					switch k {
					case "certificate-authority-data", "client-certificate-data", "client-key-data":
						fields[k] = dataOmitted
					case "token", "password":
						fields[k] = redacted
					}
				}
			}
		}
	}
}

func newCurrentContextCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "current-context",
		Short: "Display the current-context",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := f.RawConfig()
			if err != nil {
				return err
			}
			if cfg.CurrentContext == "" {
				return fmt.Errorf("current-context is not set")
			}
			fmt.Fprintln(streams.Out, cfg.CurrentContext)
			return nil
		},
	}
}

// writeConfig writes cfg to the file kubectl would change.
func writeConfig(f *cmdutil.Factory, cfg *api.Config) error {
	path := f.Flags.LoadingRules().DefaultFilename()
	if path == "" {
		return fmt.Errorf("no kubeconfig file to write")
	}
	return clientcmd.Write(cfg, path)
}

func newUseContextCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "use-context CONTEXT_NAME",
		Aliases: []string{"use"},
		Short:   "Set the current-context in a kubeconfig file",
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Errorf("Unexpected args: %v", args)
			}
			cfg, err := f.RawConfig()
			if err != nil {
				return err
			}
			if _, ok := cfg.Contexts[args[0]]; !ok {
				return fmt.Errorf("no context exists with the name: %q", args[0])
			}
			cfg.CurrentContext = args[0]
			if err := writeConfig(f, &cfg); err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "Switched to context %q.\n", args[0])
			return nil
		},
	}
}

func newGetContextsCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	var output string
	var noHeaders bool
	cmd := &cobra.Command{
		Use:   "get-contexts [(-o|--output=)name)]",
		Short: "Describe one or many contexts",
		RunE: func(_ *cobra.Command, args []string) error {
			if output != "" && output != "name" {
				return fmt.Errorf("output must be one of '' or 'name': %v", output)
			}
			cfg, err := f.RawConfig()
			if err != nil {
				return err
			}
			names := slices.Sorted(func(yield func(string) bool) {
				for n := range cfg.Contexts {
					if !yield(n) {
						return
					}
				}
			})
			if len(args) > 0 {
				for _, a := range args {
					if _, ok := cfg.Contexts[a]; !ok {
						return fmt.Errorf("context %s not found", a)
					}
				}
				names = args
			}
			if output == "name" {
				for _, n := range names {
					fmt.Fprintln(streams.Out, n)
				}
				return nil
			}
			w := printers.NewTabWriter(streams.Out)
			if !noHeaders {
				fmt.Fprintln(w, "CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE")
			}
			for _, n := range names {
				c := cfg.Contexts[n]
				mark := ""
				if n == cfg.CurrentContext {
					mark = "*"
				}
				fmt.Fprintln(w, strings.Join([]string{mark, n, c.Cluster, c.AuthInfo, c.Namespace}, "\t"))
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: (name).")
	cmd.Flags().BoolVar(&noHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
	return cmd
}

func newSetContextCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	var current bool
	var cluster, user, namespace string
	cmd := &cobra.Command{
		Use:   "set-context [NAME | --current] [--cluster=cluster_nickname] [--user=user_nickname] [--namespace=namespace]",
		Short: "Set a context entry in kubeconfig",
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.RawConfig()
			if err != nil {
				return err
			}
			name := ""
			switch {
			case current && len(args) > 0:
				return fmt.Errorf("you cannot specify both a context name and --current")
			case current:
				if cfg.CurrentContext == "" {
					return fmt.Errorf("no current context is set")
				}
				name = cfg.CurrentContext
			case len(args) == 1:
				name = args[0]
			default:
				return fmt.Errorf("unexpected args: %v", args)
			}
			ctx, exists := cfg.Contexts[name]
			if !exists {
				ctx = &api.Context{}
				if cfg.Contexts == nil {
					cfg.Contexts = map[string]*api.Context{}
				}
				cfg.Contexts[name] = ctx
			}
			// The global --cluster, --user and -n flags name the fields.
			if cmd.Flags().Changed("cluster") {
				ctx.Cluster = cluster
			}
			if cmd.Flags().Changed("user") {
				ctx.AuthInfo = user
			}
			if cmd.Flags().Changed("namespace") {
				ctx.Namespace = namespace
			}
			if err := writeConfig(f, &cfg); err != nil {
				return err
			}
			if exists {
				fmt.Fprintf(streams.Out, "Context %q modified.\n", name)
			} else {
				fmt.Fprintf(streams.Out, "Context %q created.\n", name)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&current, "current", false, "Modify the current context")
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster for the context entry in kubeconfig")
	cmd.Flags().StringVar(&user, "user", "", "user for the context entry in kubeconfig")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "namespace for the context entry in kubeconfig")
	return cmd
}

func newDeleteContextCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "delete-context NAME",
		Short: "Delete the specified context from the kubeconfig",
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("unexpected args: %v", args)
			}
			cfg, err := f.RawConfig()
			if err != nil {
				return err
			}
			path := f.Flags.LoadingRules().DefaultFilename()
			if _, ok := cfg.Contexts[args[0]]; !ok {
				return fmt.Errorf("cannot delete context %s, not in %s", args[0], path)
			}
			if cfg.CurrentContext == args[0] {
				fmt.Fprintln(streams.ErrOut, "warning: this removed your active context, use \"kubectl config use-context\" to select a different one")
			}
			delete(cfg.Contexts, args[0])
			if err := writeConfig(f, &cfg); err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "deleted context %s from %s\n", args[0], path)
			return nil
		},
	}
}
