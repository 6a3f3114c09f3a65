package edit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// BeforeCreate is kubectl create --edit: the objects read from the
// manifests are opened in the user's editor as one document (a List when
// there are several) and create is called with each object of what is
// saved, in order. A document that does not parse reopens the editor; an
// object create fails on stops there, keeping a copy of the edit.
func BeforeCreate(ctx context.Context, streams cmdutil.IOStreams, objs []*dynamic.Unstructured, create func(*dynamic.Unstructured) error) error {
	var doc any
	if len(objs) == 1 {
		doc = objs[0].Object
	} else {
		items := make([]any, 0, len(objs))
		for _, o := range objs {
			items = append(items, o.Object)
		}
		doc = map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}, "items": items}
	}
	original, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	text, err := yaml.JSONToYAML(original)
	if err != nil {
		return err
	}
	path, err := tempFile()
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(path) }()
	content := append([]byte(header), text...)
	for {
		edited, err := launch(ctx, streams, path, content)
		if err != nil {
			return err
		}
		body := stripComments(edited)
		if bytes.Equal(edited, content) || len(bytes.TrimSpace(body)) == 0 {
			fmt.Fprintln(streams.ErrOut, "Edit cancelled, no changes made.")
			return nil
		}
		js, err := yaml.YAMLToJSON(body)
		var m map[string]any
		if err == nil {
			m, err = dynamic.DecodeJSONObject(js)
		}
		if err != nil {
			content = withError(body, fmt.Errorf("the edited file had a syntax error: %w", err))
			continue
		}
		saved := &dynamic.Unstructured{Object: m}
		list := []*dynamic.Unstructured{saved}
		if saved.IsList() {
			list = saved.Items()
		}
		for _, obj := range list {
			if err := create(obj); err != nil {
				keepCopy(streams, edited)
				return err
			}
		}
		return nil
	}
}
