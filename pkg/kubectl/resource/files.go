package resource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"kubecore.io/apimachinery/pkg/util/yaml"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// manifestExtensions are the files a directory contributes.
var manifestExtensions = []string{".json", ".yaml", ".yml"}

// readFiles reads every -f path into r.Infos, in order. A file that cannot
// be read or parsed stops the reading, unless the builder continues on
// errors: then the objects before the error are kept, the other files are
// read, and the errors are joined in r.ReadErr.
func (b *Builder) readFiles(ctx context.Context, r *Result) error {
	var infos []*Info
	var errs []error
	for _, p := range b.files.Filenames {
		if p == "-" {
			if b.stdin == nil {
				return fmt.Errorf("no standard input to read")
			}
			got, err := b.readStream(ctx, b.stdin, "STDIN")
			infos = append(infos, got...)
			if err != nil {
				if !b.continueOnError {
					return err
				}
				errs = append(errs, err)
			}
			continue
		}
		files, err := expandPath(p, b.files.Recursive)
		if err != nil {
			return err
		}
		for _, f := range files {
			got, err := b.readFile(ctx, f)
			infos = append(infos, got...)
			if err != nil {
				if !b.continueOnError {
					return err
				}
				errs = append(errs, err)
			}
		}
	}
	if len(infos) == 0 && len(errs) == 0 {
		return fmt.Errorf("no objects passed to %s", "the command")
	}
	r.Infos, r.ReadErr = infos, errors.Join(errs...)
	return nil
}

// expandPath lists a file, or the manifests of a directory (its
// subdirectories too when recursive).
func expandPath(p string, recursive bool) ([]string, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the path %q does not exist", p)
	}
	if err != nil {
		return nil, fmt.Errorf("the path %q cannot be accessed: %w", p, err)
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range manifestExtensions {
			if strings.HasSuffix(path, ext) {
				out = append(out, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", p, err)
	}
	return out, nil
}

func (b *Builder) readFile(ctx context.Context, path string) ([]*Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	return b.readStream(ctx, f, path)
}

// readStream decodes every document of r; List objects contribute their
// items. On an error it returns the objects of the documents before it.
func (b *Builder) readStream(ctx context.Context, r io.Reader, source string) ([]*Info, error) {
	dec := yaml.NewYAMLOrJSONDecoder(r, 4096)
	var infos []*Info
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return infos, nil
		}
		if err != nil {
			return infos, &ParseError{Source: source, Err: err}
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		m, err := dynamic.DecodeJSONObject(raw)
		if err != nil {
			return infos, &ParseError{Source: source, Err: err}
		}
		obj := &dynamic.Unstructured{Object: m}
		objs := []*dynamic.Unstructured{obj}
		if obj.IsList() {
			objs = obj.Items()
		}
		for _, o := range objs {
			info, err := b.manifestInfo(ctx, o, source)
			if err != nil {
				return infos, err
			}
			infos = append(infos, info)
		}
	}
}

// ParseError is a manifest that is not valid YAML or JSON. It reads as
// kubectl's: the file, then the parser's words with the line counted from
// the start of the failing document ("error converting YAML to JSON: yaml:
// line 6: ...") or the byte offset in a JSON stream ("json: offset 86: ...").
type ParseError struct {
	Source string
	Err    error
}

func (e *ParseError) Error() string {
	err := e.Err
	var syn *json.SyntaxError
	var doc *yaml.DocumentError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("error parsing %s: json: offset %d: %s", e.Source, syn.Offset, syn.Error())
	case errors.As(err, &doc):
		return fmt.Sprintf("error parsing %s: error converting YAML to JSON: %v", e.Source, doc.Err)
	}
	return fmt.Sprintf("error parsing %s: %v", e.Source, err)
}

func (e *ParseError) Unwrap() error { return e.Err }

func (b *Builder) manifestInfo(ctx context.Context, obj *dynamic.Unstructured, source string) (*Info, error) {
	gvk := obj.GroupVersionKind()
	if obj.GetKind() == "" || obj.GetAPIVersion() == "" {
		what := "kind"
		if obj.GetKind() != "" {
			what = "apiVersion"
		}
		return nil, fmt.Errorf("error validating data: [%s not set]; if you choose to ignore these errors, turn validation off with --validate=false", what)
	}
	m, err := b.mapper.KindFor(ctx, gvk)
	if err != nil {
		var nomatch *restmapper.NoKindMatchError
		if errors.As(err, &nomatch) {
			return nil, fmt.Errorf("resource mapping not found for name: %q namespace: %q from %q: %w\nensure CRDs are installed first", obj.GetName(), obj.GetNamespace(), source, err)
		}
		return nil, err
	}
	ns := obj.GetNamespace()
	switch {
	case !m.Namespaced:
		ns = ""
	case ns == "":
		ns = b.namespace
		obj.SetNamespace(ns)
	case b.explicitNamespace && ns != b.namespace:
		return nil, kubectlError(fmt.Sprintf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", ns, b.namespace, ns))
	}
	return &Info{Mapping: m, Namespace: ns, Name: obj.GetName(), Object: obj, Source: source}, nil
}

// Resolve makes an info of an object read elsewhere (what the user saved
// in an editor, say), as if it came from a manifest named source.
func (b *Builder) Resolve(ctx context.Context, obj *dynamic.Unstructured, source string) (*Info, error) {
	return b.manifestInfo(ctx, obj, source)
}
