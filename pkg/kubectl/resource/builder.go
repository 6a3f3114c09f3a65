// Package resource turns what a kubectl user names — TYPE NAME arguments,
// TYPE/NAME, -f manifests, selectors — into the list of objects a verb
// works on, resolved against the server's resources.
package resource

import (
	"context"
	"fmt"
	"io"
	"strings"

	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// Info is one object a verb works on, or, with an empty Name, one
// collection (a resource in a namespace, filtered by the selectors).
type Info struct {
	Mapping   *restmapper.Mapping
	Namespace string
	Name      string
	// Object is the manifest read from a file, or the object read from
	// the server by Fetch; nil until then for arguments.
	Object *dynamic.Unstructured
	// Source is the file the manifest came from ("STDIN" for -), empty for
	// arguments.
	Source string
}

// ObjectName returns "kind.group/name", as -o name prints it.
func (i *Info) ObjectName() string { return i.Mapping.KindName() + "/" + i.Name }

// FilenameOptions are the -f and -R flags.
type FilenameOptions struct {
	Filenames []string
	Recursive bool
}

// Builder collects the arguments of a command; Do resolves them.
type Builder struct {
	mapper *restmapper.Mapper
	dyn    *dynamic.Client
	stdin  io.Reader

	namespace         string
	explicitNamespace bool
	allNamespaces     bool
	files             FilenameOptions
	args              []string
	labelSelector     string
	fieldSelector     string
	selectAll         bool
	requireNames      bool
	continueOnError   bool
}

// NewBuilder returns a Builder resolving against mapper, fetching with dyn;
// stdin is read for "-f -".
func NewBuilder(mapper *restmapper.Mapper, dyn *dynamic.Client, stdin io.Reader) *Builder {
	return &Builder{mapper: mapper, dyn: dyn, stdin: stdin}
}

// DefaultNamespace sets the namespace of objects and collections that do
// not name one; explicit says -n set it, so that a manifest in another
// namespace is an error.
func (b *Builder) DefaultNamespace(ns string, explicit bool) *Builder {
	b.namespace, b.explicitNamespace = ns, explicit
	return b
}

// AllNamespaces makes collections span every namespace (-A).
func (b *Builder) AllNamespaces(all bool) *Builder {
	b.allNamespaces = all
	return b
}

// Filenames adds -f manifests.
func (b *Builder) Filenames(o FilenameOptions) *Builder {
	b.files = o
	return b
}

// Args adds TYPE NAME..., TYPE[,TYPE...] or TYPE/NAME... arguments.
func (b *Builder) Args(args ...string) *Builder {
	b.args = args
	return b
}

// LabelSelector filters collections (-l).
func (b *Builder) LabelSelector(s string) *Builder {
	b.labelSelector = s
	return b
}

// FieldSelector filters collections (--field-selector).
func (b *Builder) FieldSelector(s string) *Builder {
	b.fieldSelector = s
	return b
}

// SelectAll allows a bare TYPE to mean every object of it (--all);
// without it, RequireNames makes a bare TYPE an error.
func (b *Builder) SelectAll(all bool) *Builder {
	b.selectAll = all
	return b
}

// RequireNames makes a bare TYPE without a selector or --all an error, as
// delete, label and the like want.
func (b *Builder) RequireNames() *Builder {
	b.requireNames = true
	return b
}

// ContinueOnError makes a manifest that cannot be parsed an error of the
// result (Result.ReadErr) rather than of Do: the objects before it and the
// other files are still worked on, as kubectl create, apply, replace and
// delete do.
func (b *Builder) ContinueOnError() *Builder {
	b.continueOnError = true
	return b
}

// Result is what the arguments resolved to.
type Result struct {
	Infos []*Info
	// SingleItem says one object was named (TYPE NAME with one name, or one
	// TYPE/NAME), so that it prints as itself rather than as a List.
	SingleItem bool
	// Named says the infos are objects, not collections.
	Named bool

	LabelSelector string
	FieldSelector string
	AllNamespaces bool
	// Namespace is the default namespace (for "No resources found in ...").
	Namespace string
	// ReadErr holds the manifests that could not be read when the builder
	// continues on errors; the verb reports it after working on Infos.
	ReadErr error

	dyn *dynamic.Client
}

// ErrNoResources is returned when neither arguments nor files were given.
var ErrNoResources = kubectlError(`You must provide one or more resources by argument or filename.
Example resource specifications include:
   '-f rsrc.yaml'
   '--filename=rsrc.json'
   '<resource> <name>'
   '<resource>'`)

// kubectlError is an error worded as kubectl words it, capitals and
// punctuation included.
type kubectlError string

func (e kubectlError) Error() string { return string(e) }

// Do resolves the arguments and reads the manifests.
func (b *Builder) Do(ctx context.Context) (*Result, error) {
	r := &Result{
		LabelSelector: b.labelSelector,
		FieldSelector: b.fieldSelector,
		AllNamespaces: b.allNamespaces,
		Namespace:     b.namespace,
		dyn:           b.dyn,
	}
	switch {
	case len(b.files.Filenames) > 0 && len(b.args) > 0:
		return nil, fmt.Errorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	case len(b.files.Filenames) > 0:
		if err := b.readFiles(ctx, r); err != nil {
			return nil, err
		}
		r.Named, r.SingleItem = true, len(r.Infos) == 1
		return r, nil
	case len(b.args) == 0:
		return nil, ErrNoResources
	}
	if err := b.resolveArgs(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

func (b *Builder) resolveArgs(ctx context.Context, r *Result) error {
	slashed := 0
	for _, a := range b.args {
		if strings.Contains(a, "/") {
			slashed++
		}
	}
	switch {
	case slashed == len(b.args):
		for _, a := range b.args {
			typ, name, _ := strings.Cut(a, "/")
			if typ == "" || name == "" {
				return fmt.Errorf("arguments in resource/name form must have a single resource and name")
			}
			m, err := b.mapper.ResourceFor(ctx, typ)
			if err != nil {
				return err
			}
			r.Infos = append(r.Infos, b.named(m, name))
		}
		r.Named, r.SingleItem = true, len(r.Infos) == 1
		return nil
	case slashed > 0:
		return fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'")
	}
	mappings, err := b.mappings(ctx, b.args[0])
	if err != nil {
		return err
	}
	names := b.args[1:]
	if len(names) == 0 {
		if b.requireNames && !b.selectAll && b.labelSelector == "" && b.fieldSelector == "" {
			return fmt.Errorf("resource(s) were provided, but no name was specified")
		}
		for _, m := range mappings {
			ns := b.namespace
			if !m.Namespaced || b.allNamespaces {
				ns = ""
			}
			r.Infos = append(r.Infos, &Info{Mapping: m, Namespace: ns})
		}
		return nil
	}
	if b.labelSelector != "" || b.selectAll {
		return fmt.Errorf("name cannot be provided when a selector is specified")
	}
	for _, m := range mappings {
		for _, n := range names {
			r.Infos = append(r.Infos, b.named(m, n))
		}
	}
	r.Named, r.SingleItem = true, len(r.Infos) == 1
	return nil
}

func (b *Builder) named(m *restmapper.Mapping, name string) *Info {
	ns := b.namespace
	if !m.Namespaced {
		ns = ""
	}
	return &Info{Mapping: m, Namespace: ns, Name: name}
}

// mappings resolves a comma-separated list of types, expanding categories.
func (b *Builder) mappings(ctx context.Context, arg string) ([]*restmapper.Mapping, error) {
	var out []*restmapper.Mapping
	seen := map[string]bool{}
	for _, typ := range strings.Split(arg, ",") {
		if typ == "" {
			continue
		}
		ms, isCategory, err := b.mapper.ExpandCategory(ctx, typ)
		if err != nil {
			return nil, err
		}
		if !isCategory {
			m, err := b.mapper.ResourceFor(ctx, typ)
			if err != nil {
				return nil, err
			}
			ms = []*restmapper.Mapping{m}
		}
		for _, m := range ms {
			if key := m.Resource.String(); !seen[key] {
				seen[key] = true
				out = append(out, m)
			}
		}
	}
	return out, nil
}
