// Package explain implements `kubectl explain`: the documentation of a
// resource or of a field path in it (deployment.spec.strategy), read from
// the server's OpenAPI v3 documents.
package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/explain"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// Options are the flags of explain.
type Options struct {
	Recursive  bool
	APIVersion string
	Output     string

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the explain command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{Output: "plaintext", factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [-o|--output=plaintext]",
		Short: "Get documentation for a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return err
			}
			return o.Run(cmd.Context(), args[0])
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.Recursive, "recursive", false, "When true, print the name of all the fields recursively. Otherwise, print the available fields with their description.")
	fs.StringVar(&o.APIVersion, "api-version", "", "Use given api-version (group/version) of the resource.")
	fs.StringVarP(&o.Output, "output", "o", "plaintext", "Format in which to render the schema. Valid values are: (plaintext).")
	return cmd
}

// Validate checks the arguments and the output format.
func (o *Options) Validate(args []string) error {
	switch {
	case len(args) == 0:
		return cmdutil.Errorf(`You must specify the type of resource to explain. Use "kubectl api-resources" for a complete list of supported resources.`)
	case len(args) > 1:
		return cmdutil.Errorf("We accept only this format: explain RESOURCE")
	case o.Output == "plaintext-openapiv2":
		return errors.New("--output=plaintext-openapiv2 (the OpenAPI v2 layout) is not supported by this kubectl; use plaintext")
	case o.Output != "plaintext":
		return fmt.Errorf("unrecognized format: %s", o.Output)
	}
	return nil
}

// Run resolves the resource, fetches its group version's document and
// renders the explanation.
func (o *Options) Run(ctx context.Context, arg string) error {
	gvr, fieldPath, err := o.resolve(ctx, arg)
	if err != nil {
		return err
	}
	if o.APIVersion != "" {
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			return err
		}
		gvr.Group, gvr.Version = gv.Group, gv.Version
	}
	doc, err := o.document(ctx, gvr)
	if err != nil {
		return err
	}
	err = explain.Render(o.streams.Out, doc, gvr, fieldPath, o.Recursive)
	var e explain.Error
	if errors.As(err, &e) {
		// Its words include kubectl's "error: ".
		return cmdutil.RawError(e.Error())
	}
	return err
}

// resolve splits TYPE.field.path into the resource of TYPE and the
// fields; TYPE may be followed by the resource's group
// (deployments.apps.spec).
func (o *Options) resolve(ctx context.Context, arg string) (schema.GroupVersionResource, []string, error) {
	mapper, err := o.factory.Mapper()
	if err != nil {
		return schema.GroupVersionResource{}, nil, err
	}
	arg = strings.TrimSuffix(arg, ".")
	typ, fields, _ := strings.Cut(arg, ".")
	m, err := mapper.ResourceFor(ctx, typ)
	if err != nil {
		var unknown *restmapper.UnknownResourceTypeError
		if errors.As(err, &unknown) {
			// kubectl explain prints this one without its "error: ".
			return schema.GroupVersionResource{}, nil, cmdutil.RawError(err.Error())
		}
		return schema.GroupVersionResource{}, nil, err
	}
	if gr := m.Resource.GroupResource().String(); m.Resource.Group != "" && (arg == gr || strings.HasPrefix(arg, gr+".")) {
		fields = strings.TrimPrefix(strings.TrimPrefix(arg, gr), ".")
	}
	if fields == "" {
		return m.Resource, nil, nil
	}
	return m.Resource, strings.Split(fields, "."), nil
}

// document fetches the OpenAPI v3 document of gvr's group version, by
// the address /openapi/v3 gives for it.
func (o *Options) document(ctx context.Context, gvr schema.GroupVersionResource) (map[string]any, error) {
	rc, err := o.factory.RESTClient()
	if err != nil {
		return nil, err
	}
	rootBody, err := rc.Get().AbsPath("/openapi/v3").Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("failed to fetch list of groupVersions: %w", err)
	}
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rootBody, &root); err != nil {
		return nil, fmt.Errorf("failed to fetch list of groupVersions: %w", err)
	}
	path := "apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		path = "api/" + gvr.Version
	}
	entry, ok := root.Paths[path]
	if !ok {
		return nil, fmt.Errorf("couldn't find resource for %q", gvr.String())
	}
	u, err := url.Parse(entry.ServerRelativeURL)
	if err != nil {
		return nil, fmt.Errorf("failed to fetch openapi schema for %s: %w", path, err)
	}
	req := rc.Get().AbsPath(u.Path)
	for k, vs := range u.Query() {
		for _, v := range vs {
			req.Param(k, v)
		}
	}
	body, err := req.Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("failed to fetch openapi schema for %s: %w", path, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("failed to parse openapi schema for %s: %w", path, err)
	}
	return doc, nil
}
