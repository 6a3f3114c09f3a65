// Package webhook is the admission plugin that calls admission webhooks:
// the MutatingWebhookConfigurations in the mutating phase and the
// ValidatingWebhookConfigurations (in parallel) in the validating phase,
// with an AdmissionReview v1 POSTed over HTTPS to a URL or a Service, as
// Kubernetes calls them.
package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/webhook"
)

// Source lists the stored webhook configurations (from the watch cache).
type Source interface {
	MutatingWebhookConfigurations(ctx context.Context) ([]*admissionregistrationv1.MutatingWebhookConfiguration, error)
	ValidatingWebhookConfigurations(ctx context.Context) ([]*admissionregistrationv1.ValidatingWebhookConfiguration, error)
}

// The timeouts of a call, as Kubernetes bounds timeoutSeconds.
const (
	defaultTimeout = 10 * time.Second
	maxTimeout     = 30 * time.Second
)

// hook is one webhook compiled: its matcher, conditions and call settings.
type hook struct {
	name             string
	config           string
	matcher          *matching.Matcher
	conditions       *matching.Conditions
	compileErr       error
	client           webhook.ClientConfig
	timeout          time.Duration
	failOpen         bool
	sideEffects      admissionregistrationv1.SideEffectClass
	reviewV1         bool
	reinvokeIfNeeded bool
}

// snapshot is the compiled hooks of one version of the configurations.
type snapshot struct {
	key   string
	hooks []*hook
}

// compiler keeps the hooks compiled from the configurations as last
// listed, and compiles them again only when a configuration changed.
type compiler struct {
	env *cel.Env

	mu         sync.Mutex
	mutating   snapshot
	validating snapshot
}

func newCompiler() (*compiler, error) {
	env, err := matching.ConditionsEnv()
	if err != nil {
		return nil, fmt.Errorf("build the CEL environment of matchConditions: %w", err)
	}
	return &compiler{env: env}, nil
}

// versionKey identifies the stored versions of configurations; it changes
// when any is added, changed or removed.
func versionKey[T interface {
	GetName() string
	GetResourceVersion() string
}](objs []T) string {
	var b strings.Builder
	for _, o := range objs {
		b.WriteString(o.GetName())
		b.WriteByte('@')
		b.WriteString(o.GetResourceVersion())
		b.WriteByte(',')
	}
	return b.String()
}

// mutatingHooks returns the compiled mutating webhooks, configurations in
// name order, each configuration's webhooks in their order.
func (c *compiler) mutatingHooks(ctx context.Context, src Source) ([]*hook, error) {
	cfgs, err := src.MutatingWebhookConfigurations(ctx)
	if err != nil {
		return nil, fmt.Errorf("list mutating webhook configurations: %w", err)
	}
	slices.SortFunc(cfgs, func(a, b *admissionregistrationv1.MutatingWebhookConfiguration) int {
		return strings.Compare(a.Name, b.Name)
	})
	key := versionKey(cfgs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mutating.key == key {
		return c.mutating.hooks, nil
	}
	var hooks []*hook
	for _, cfg := range cfgs {
		for _, w := range cfg.Webhooks {
			h := c.compile(cfg.Name, w.Name, w.ClientConfig, w.Rules, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector,
				w.MatchConditions, w.FailurePolicy, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions)
			h.reinvokeIfNeeded = w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy
			hooks = append(hooks, h)
		}
	}
	c.mutating = snapshot{key: key, hooks: hooks}
	return hooks, nil
}

// validatingHooks is mutatingHooks for the validating webhooks.
func (c *compiler) validatingHooks(ctx context.Context, src Source) ([]*hook, error) {
	cfgs, err := src.ValidatingWebhookConfigurations(ctx)
	if err != nil {
		return nil, fmt.Errorf("list validating webhook configurations: %w", err)
	}
	slices.SortFunc(cfgs, func(a, b *admissionregistrationv1.ValidatingWebhookConfiguration) int {
		return strings.Compare(a.Name, b.Name)
	})
	key := versionKey(cfgs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.validating.key == key {
		return c.validating.hooks, nil
	}
	var hooks []*hook
	for _, cfg := range cfgs {
		for _, w := range cfg.Webhooks {
			hooks = append(hooks, c.compile(cfg.Name, w.Name, w.ClientConfig, w.Rules, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector,
				w.MatchConditions, w.FailurePolicy, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions))
		}
	}
	c.validating = snapshot{key: key, hooks: hooks}
	return hooks, nil
}

func (c *compiler) compile(config, name string, cc admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations,
	policy *admissionregistrationv1.MatchPolicyType, nsSel, objSel *metav1.LabelSelector, mcs []admissionregistrationv1.MatchCondition,
	fp *admissionregistrationv1.FailurePolicyType, se *admissionregistrationv1.SideEffectClass, timeout *int32, versions []string) *hook {
	h := &hook{name: name, config: config, timeout: defaultTimeout, failOpen: fp != nil && *fp == admissionregistrationv1.Ignore,
		sideEffects: admissionregistrationv1.SideEffectClassUnknown, reviewV1: len(versions) == 0 || slices.Contains(versions, "v1")}
	if se != nil {
		h.sideEffects = *se
	}
	if timeout != nil && *timeout > 0 {
		h.timeout = min(time.Duration(*timeout)*time.Second, maxTimeout)
	}
	var ref *webhook.ServiceReference
	if s := cc.Service; s != nil {
		ref = webhook.NewServiceReference(s.Namespace, s.Name, s.Path, s.Port)
	}
	h.client = webhook.NewClientConfig(cc.URL, cc.CABundle, ref)
	var err error
	h.matcher, err = matching.NewMatcher(matching.Criteria{Rules: matching.WebhookRules(rules), MatchPolicy: policy, NamespaceSelector: nsSel, ObjectSelector: objSel})
	if err != nil {
		h.compileErr = err
		return h
	}
	if len(mcs) > 0 {
		h.conditions, err = matching.CompileConditions(c.env, mcs)
		if err != nil {
			h.compileErr = fmt.Errorf("compile matchConditions: %w", err)
		}
	}
	return h
}
