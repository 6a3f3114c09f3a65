// Package token implements `kubecore token create|list|delete`: bootstrap
// tokens, the short-lived credentials with which a new node joins. Each is
// a Secret kube-system/bootstrap-token-<id> of type
// bootstrap.kubernetes.io/token.
package token

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/pkg/auth/authenticator/bootstrap"
	"kubecore.io/kubecore/pkg/pki"
)

// DefaultGroup is the extra group of tokens made for joining nodes.
const DefaultGroup = "system:bootstrappers:kubecore:default-node-token"

// The verbs of `kubecore token`.
const (
	VerbCreate = "create"
	VerbList   = "list"
	VerbDelete = "delete"
)

// Options are the flags of `kubecore token`.
type Options struct {
	// Verb is create, list or delete; Tokens are the arguments of delete.
	Verb   string
	Tokens []string
	// Out receives what the verb prints.
	Out io.Writer

	Kubeconfig  string
	TTL         time.Duration
	Description string
	Groups      []string
	// PrintJoinCommand prints the kubelet command that joins a node with
	// the new token instead of the token alone.
	PrintJoinCommand bool
	Now              func() time.Time
}

// NewOptions returns the defaults: a day-long token for joining nodes.
func NewOptions() *Options {
	return &Options{TTL: 24 * time.Hour, Groups: []string{DefaultGroup}, Now: time.Now}
}

// Validate returns every problem with the options of the verb.
func (o *Options) Validate() []error {
	var errs []error
	switch o.Verb {
	case VerbCreate:
		if o.TTL < 0 {
			errs = append(errs, fmt.Errorf("--ttl %s must not be negative", o.TTL))
		}
		for _, g := range o.Groups {
			if !strings.HasPrefix(g, bootstrap.Group+":") {
				errs = append(errs, fmt.Errorf("--groups: %q must start with %q", g, bootstrap.Group+":"))
			}
		}
	case VerbList:
	case VerbDelete:
		if len(o.Tokens) == 0 {
			errs = append(errs, errors.New("name the tokens to delete (id or id.secret)"))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown verb %q: want create, list or delete", o.Verb))
	}
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	Options
	rc *rest.Config
	cs *typed.Clientset
}

// Complete validates o, loads the kubeconfig and makes the client.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	rc, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return Config{}, err
	}
	cs, err := typed.NewForConfig(rc)
	if err != nil {
		return Config{}, err
	}
	c := &completedConfig{Options: *o, rc: rc, cs: cs}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return Config{completed: c}, nil
}

// Run runs the verb.
func (c Config) Run(ctx context.Context) error {
	cc := c.completed
	if cc == nil {
		return errors.New("token config was not completed")
	}
	switch cc.Verb {
	case VerbCreate:
		return cc.create(ctx)
	case VerbList:
		return cc.list(ctx)
	default:
		return cc.delete(ctx)
	}
}

// run completes o for verb and runs it, printing to out.
func (o *Options) run(ctx context.Context, verb string, out io.Writer, tokens []string) error {
	v := *o
	v.Verb, v.Out, v.Tokens = verb, out, tokens
	c, err := v.Complete()
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// DefaultKubeletRootDir is the root dir the printed join command gives,
// Kubernetes' default.
const DefaultKubeletRootDir = "/var/lib/kubelet"

// joinCommand is the kubelet command that joins a node to the server of
// rc with token, pinning the CA of rc by its public key hash.
func joinCommand(rc *rest.Config, token string) (string, error) {
	caPEM := rc.TLSClientConfig.CAData
	if len(caPEM) == 0 && rc.TLSClientConfig.CAFile != "" {
		b, err := os.ReadFile(rc.TLSClientConfig.CAFile)
		if err != nil {
			return "", fmt.Errorf("cluster CA: %w", err)
		}
		caPEM = b
	}
	if len(caPEM) == 0 {
		return "", errors.New("--print-join-command: the kubeconfig names no certificate authority to pin")
	}
	cas, err := cert.ParseCertsPEM(caPEM)
	if err != nil {
		return "", fmt.Errorf("cluster CA: %w", err)
	}
	return fmt.Sprintf("kubecore kubelet --server %s --token %s --ca-cert-hash %s --root-dir %s", rc.Host, token, pki.CACertHash(cas[0]), DefaultKubeletRootDir), nil
}

// alphabet of token ids and secrets.
const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// Create makes a token and prints it, or with PrintJoinCommand the command
// that joins a node with it.
func (o *Options) Create(ctx context.Context, out io.Writer) error {
	return o.run(ctx, VerbCreate, out, nil)
}

func (o *completedConfig) create(ctx context.Context) error {
	cs, rc, out := o.cs, o.rc, o.Out
	id, err := randomString(6)
	if err != nil {
		return err
	}
	secret, err := randomString(16)
	if err != nil {
		return err
	}
	data := map[string]string{
		bootstrap.KeyTokenID:     id,
		bootstrap.KeyTokenSecret: secret,
		bootstrap.KeyUsageAuthn:  "true",
		bootstrap.KeyExtraGroups: strings.Join(o.Groups, ","),
	}
	if o.TTL > 0 {
		data[bootstrap.KeyExpiration] = o.Now().Add(o.TTL).UTC().Format(time.RFC3339)
	}
	if o.Description != "" {
		data[bootstrap.KeyDescription] = o.Description
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: bootstrap.SecretNamespace, Name: bootstrap.SecretPrefix + id},
		Type:       bootstrap.SecretType,
		StringData: data,
	}
	if _, err := cs.CoreV1().Secrets(bootstrap.SecretNamespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create bootstrap token: %w", err)
	}
	token := id + "." + secret
	if !o.PrintJoinCommand {
		fmt.Fprintln(out, token)
		return nil
	}
	join, err := joinCommand(rc, token)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, join)
	return nil
}

// List prints the tokens, their expiry and groups; secrets are shown as
// the token id only.
func (o *Options) List(ctx context.Context, out io.Writer) error {
	return o.run(ctx, VerbList, out, nil)
}

func (o *completedConfig) list(ctx context.Context) error {
	cs, out := o.cs, o.Out
	list, err := cs.CoreV1().Secrets(bootstrap.SecretNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list bootstrap tokens: %w", err)
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "TOKEN ID\tEXPIRES\tGROUPS\tDESCRIPTION")
	for _, s := range list.Items {
		if s.Type != bootstrap.SecretType {
			continue
		}
		exp := string(s.Data[bootstrap.KeyExpiration])
		if exp == "" {
			exp = "<never>"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Data[bootstrap.KeyTokenID], exp, s.Data[bootstrap.KeyExtraGroups], s.Data[bootstrap.KeyDescription])
	}
	return w.Flush()
}

// Delete removes the tokens named by id or full token.
func (o *Options) Delete(ctx context.Context, out io.Writer, tokens []string) error {
	return o.run(ctx, VerbDelete, out, tokens)
}

func (o *completedConfig) delete(ctx context.Context) error {
	cs, out := o.cs, o.Out
	for _, t := range o.Tokens {
		id, _, _ := strings.Cut(t, ".")
		name := bootstrap.SecretPrefix + id
		if err := cs.CoreV1().Secrets(bootstrap.SecretNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("bootstrap token %q not found", id)
			}
			return fmt.Errorf("delete bootstrap token %s: %w", id, err)
		}
		fmt.Fprintf(out, "bootstrap token %q deleted\n", id)
	}
	return nil
}

// NewCommand returns the token command and its verbs.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage bootstrap tokens for joining nodes",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Kubeconfig of an admin (default: $KUBECONFIG or ~/.kube/config)")
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a bootstrap token and print it",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.Create(cmd.Context(), cmd.OutOrStdout()) },
	}
	create.Flags().DurationVar(&o.TTL, "ttl", o.TTL, "How long the token is valid (0: forever)")
	create.Flags().StringVar(&o.Description, "description", o.Description, "What the token is for")
	create.Flags().StringSliceVar(&o.Groups, "groups", o.Groups, "Extra groups of the token's user, each starting with system:bootstrappers:")
	create.Flags().BoolVar(&o.PrintJoinCommand, "print-join-command", o.PrintJoinCommand, "Print the kubelet command that joins a node with the token (server, token and CA hash), not the token alone")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the bootstrap tokens",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.List(cmd.Context(), cmd.OutOrStdout()) },
	}
	del := &cobra.Command{
		Use:   "delete TOKEN...",
		Short: "Delete bootstrap tokens, by id or whole token",
		RunE:  func(cmd *cobra.Command, args []string) error { return o.Delete(cmd.Context(), cmd.OutOrStdout(), args) },
	}
	cmd.AddCommand(create, list, del)
	return cmd
}
