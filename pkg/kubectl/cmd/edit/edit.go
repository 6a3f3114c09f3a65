// Package edit implements `kubectl edit`: open objects in $KUBE_EDITOR or
// $EDITOR as YAML, and patch what was changed; a change the server
// rejects reopens the editor with the error on top.
package edit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// header opens the file the user edits.
const header = `# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
`

// Options are the flags of edit.
type Options struct {
	PrintFlags *printers.PrintFlags
	Files      resource.FilenameOptions
	Output     string

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the edit command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: printers.NewPrintFlags("edited"), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "edit (RESOURCE/NAME | -f FILENAME)",
		Short: "Edit a resource on the server",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), args)
		},
	}
	o.PrintFlags.AddFlags(cmd.Flags(), false)
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "to use to edit the resource")
	return cmd
}

// editor returns the command line of the user's editor.
func editor() string {
	for _, env := range []string{"KUBE_EDITOR", "EDITOR"} {
		if e := os.Getenv(env); e != "" {
			return e
		}
	}
	return "vi"
}

// Run edits each object in turn.
func (o *Options) Run(ctx context.Context, args []string) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(args...).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	scheme, err := apply.NewScheme()
	if err != nil {
		return err
	}
	patcher := apply.NewPatcher(scheme)
	var errs []error
	for _, info := range infos {
		if err := o.editOne(ctx, r.Client(info), info, patcher); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (o *Options) editOne(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info, patcher *apply.Patcher) error {
	original, err := json.Marshal(info.Object.Object)
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
	var lastErr error
	for {
		edited, err := launch(ctx, o.streams, path, content)
		if err != nil {
			return err
		}
		body := stripComments(edited)
		if len(bytes.TrimSpace(body)) == 0 {
			fmt.Fprintln(o.streams.ErrOut, "Edit cancelled, no changes made.")
			return nil
		}
		if lastErr != nil && bytes.Equal(edited, content) {
			if apierrors.IsInvalid(lastErr) {
				fmt.Fprintf(o.streams.ErrOut, "error: %s %q is invalid\n", info.Mapping.GroupResource(), info.Name)
			} else {
				fmt.Fprintln(o.streams.ErrOut, cmdutil.ErrorMessage(lastErr))
			}
			keepCopy(o.streams, edited)
			return cmdutil.Errorf("Edit cancelled, no valid changes were saved.")
		}
		js, err := yaml.YAMLToJSON(body)
		if err != nil {
			lastErr = fmt.Errorf("the edited file had a syntax error: %w", err)
			content = withError(body, lastErr)
			continue
		}
		if equalJSON(js, original) {
			fmt.Fprintln(o.streams.ErrOut, "Edit cancelled, no changes made.")
			return nil
		}
		if changedIdentity(js, info.Object) {
			keepCopy(o.streams, edited)
			return cmdutil.Errorf("At least one of apiVersion, kind and name was changed")
		}
		patch, pt, err := patcher.Patch(info.Mapping.Kind, original, js, original)
		if err != nil {
			return err
		}
		out, err := c.Patch(ctx, info.Name, pt, patch, metav1.PatchOptions{})
		if err != nil {
			lastErr = err
			content = withError(body, err)
			continue
		}
		if out.GetKind() == "" {
			out.SetGroupVersionKind(info.Mapping.Kind)
		}
		p, err := o.PrintFlags.ToPrinter()
		if err != nil {
			return err
		}
		return p.PrintObj(out, o.streams.Out)
	}
}

// tempFile makes the file the user edits.
func tempFile() (string, error) {
	f, err := os.CreateTemp("", "kubectl-edit-*.yaml")
	if err != nil {
		return "", fmt.Errorf("create the file to edit: %w", err)
	}
	return f.Name(), f.Close()
}

// launch writes content to path, runs the user's editor on it and returns
// what was saved.
func launch(ctx context.Context, streams cmdutil.IOStreams, path string, content []byte) ([]byte, error) {
	if err := os.WriteFile(path, content, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", editor()+` "$1"`, "editor", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, streams.Out, streams.ErrOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("there was a problem with the editor %q: %w", editor(), err)
	}
	return os.ReadFile(path)
}

// stripComments drops the lines starting with '#'.
func stripComments(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

// withError puts the error above the edited text, as comments.
func withError(body []byte, err error) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	for _, l := range strings.Split(cmdutil.ErrorMessage(err), "\n") {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	b.WriteString("#\n")
	b.Write(body)
	return b.Bytes()
}

func equalJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	return bytes.Equal(xj, yj)
}

// changedIdentity reports whether the edit changed what names the object.
func changedIdentity(edited []byte, obj *dynamic.Unstructured) bool {
	m, err := dynamic.DecodeJSONObject(edited)
	if err != nil {
		return false
	}
	u := &dynamic.Unstructured{Object: m}
	return u.GetAPIVersion() != obj.GetAPIVersion() || u.GetKind() != obj.GetKind() || u.GetName() != obj.GetName()
}

// keepCopy saves what the user wrote, and says where.
func keepCopy(streams cmdutil.IOStreams, edited []byte) {
	kept, err := os.CreateTemp("", "kubectl-edit-*.yaml")
	if err != nil {
		return
	}
	_, _ = kept.Write(edited)
	_ = kept.Close()
	fmt.Fprintf(streams.ErrOut, "A copy of your changes has been stored to %q\n", kept.Name())
}
