package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/klog/v2"

	admissionv1 "kubecore.io/api/admission/v1"
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/webhook"
)

// Config is what both plugins read and call through.
type Config struct {
	Source     Source
	Namespaces matching.NamespaceGetter
	Locator    Locator
	Clients    *webhook.Clients
	// Equivalents, when set, says which other versions serve a resource
	// (matchPolicy Equivalent).
	Equivalents matching.Equivalents
	// Default, when set, applies the defaults of the object's type again
	// after a webhook's patch, as decoding a request does.
	Default func(runtime.Object)
}

// Plugins are the mutating and the validating webhook plugins, which take
// their places in the admission chain.
type Plugins struct {
	Mutating   *Mutating
	Validating *Validating
}

// New returns the two plugins over cfg.
func New(cfg Config) (Plugins, error) {
	c, err := newCompiler()
	if err != nil {
		return Plugins{}, err
	}
	d := &dispatcher{Config: cfg, compiler: c, caller: &caller{locator: cfg.Locator, clients: cfg.Clients}}
	return Plugins{Mutating: &Mutating{d}, Validating: &Validating{d}}, nil
}

type dispatcher struct {
	Config
	compiler *compiler
	caller   *caller
}

// handles is false for the resources never sent to webhooks: the
// configurations of admission itself, so that a broken webhook can always
// be removed.
func handles(a *rest.Attributes) bool {
	if a.Resource.Group != admissionregistrationv1.GroupName {
		return true
	}
	switch a.Resource.Resource {
	case "validatingwebhookconfigurations", "mutatingwebhookconfigurations", "validatingadmissionpolicies",
		"validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return false
	}
	return true
}

// invocation is a hook that matches a write, with its request.
type invocation struct {
	hook    *hook
	request *admissionv1.AdmissionRequest
}

// match returns whether h is to be called for a, with the request to send;
// an error is to be returned as it is (a compile or match failure already
// decided per failurePolicy, or a refused dry run).
func (d *dispatcher) match(ctx context.Context, h *hook, a *rest.Attributes) (*invocation, error) {
	if h.compileErr != nil {
		return nil, failure(h, &callError{webhook: h.name, err: h.compileErr})
	}
	m, ok, err := h.matcher.Matches(ctx, a, d.Equivalents, d.Namespaces)
	if err != nil {
		return nil, failure(h, &callError{webhook: h.name, err: err})
	}
	if !ok {
		return nil, nil
	}
	req, err := matching.NewRequest(a, m)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("build the admission request for webhook %q: %w", h.name, err))
	}
	if ok, err := h.conditions.Evaluate(req); err != nil {
		return nil, failure(h, &callError{webhook: h.name, err: fmt.Errorf("failed to evaluate match conditions: %w", err)})
	} else if !ok {
		return nil, nil
	}
	if a.DryRun && h.sideEffects != admissionregistrationv1.SideEffectClassNone && h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
	}
	return &invocation{hook: h, request: req}, nil
}

// record passes a response's warnings to the client and its audit
// annotations to the request's audit events, each key prefixed with the
// webhook's name. It runs on the
// request's goroutine (warnings go to its headers).
func record(ctx context.Context, h *hook, resp *admissionv1.AdmissionResponse) {
	if resp == nil {
		return
	}
	for _, w := range resp.Warnings {
		apirequest.AddWarning(ctx, warning(w))
	}
	for k, v := range resp.AuditAnnotations {
		apirequest.AddAuditAnnotation(ctx, h.name+"/"+k, v)
	}
}

// Mutating calls the mutating webhooks in the mutating phase.
type Mutating struct{ d *dispatcher }

var _ admission.MutationInterface = (*Mutating)(nil)

// Handles implements admission.Interface.
func (*Mutating) Handles(a *rest.Attributes) bool { return handles(a) }

// Admit implements admission.MutationInterface: each matching webhook in
// turn, its JSONPatch applied to the object before the next is called;
// then, once, every IfNeeded webhook called before a later one changed the
// object.
func (p *Mutating) Admit(ctx context.Context, a *rest.Attributes) error {
	hooks, err := p.d.compiler.mutatingHooks(ctx, p.d.Source)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if len(hooks) == 0 {
		return nil
	}
	called := map[*hook]bool{}
	var reinvoke []*hook
	for _, h := range hooks {
		changed, err := p.admitOne(ctx, h, a)
		if err != nil {
			return err
		}
		if changed {
			for _, prev := range hooks {
				if prev == h {
					break
				}
				if called[prev] && prev.reinvokeIfNeeded && !contains(reinvoke, prev) {
					reinvoke = append(reinvoke, prev)
				}
			}
		}
		called[h] = true
	}
	for _, h := range hooks {
		if contains(reinvoke, h) {
			if _, err := p.admitOne(ctx, h, a); err != nil {
				return err
			}
		}
	}
	return nil
}

func contains(hs []*hook, h *hook) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// admitOne calls h when it matches and applies its patch; it reports
// whether the object changed.
func (p *Mutating) admitOne(ctx context.Context, h *hook, a *rest.Attributes) (bool, error) {
	inv, err := p.d.match(ctx, h, a)
	if err != nil || inv == nil {
		return false, err
	}
	resp, err := p.d.caller.call(ctx, h, inv.request)
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Admission webhook failed", "webhook", h.name, "failOpen", h.failOpen, "err", err)
		return false, failure(h, err)
	}
	record(ctx, h, resp)
	if !resp.Allowed {
		return false, denied(h.name, resp.Result)
	}
	if len(resp.Patch) == 0 || a.Object == nil {
		return false, nil
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		return false, failure(h, &callError{webhook: h.name, err: fmt.Errorf("unsupported patch type %v", resp.PatchType)})
	}
	changed, err := applyPatch(a.Object, inv.request.Object.Raw, resp.Patch)
	if err != nil {
		return false, apierrors.NewInternalError(fmt.Errorf("admission webhook %q: %w", h.name, err))
	}
	if changed && p.d.Default != nil {
		p.d.Default(a.Object)
	}
	return changed, nil
}

// applyPatch applies a JSONPatch to the object's JSON (orig, as sent) and
// decodes the result into obj again, in place: the Store goes on with the
// object it handed to admission. The object's kind is left as obj had it.
func applyPatch(obj runtime.Object, orig, patch []byte) (bool, error) {
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return false, fmt.Errorf("decode the JSON patch: %w", err)
	}
	patched, err := p.Apply(orig)
	if err != nil {
		return false, fmt.Errorf("apply the JSON patch: %w", err)
	}
	if jsonpatch.Equal(orig, patched) {
		return false, nil
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false, fmt.Errorf("cannot decode into %T", obj)
	}
	// Decode into a fresh value first, so that a patch that does not
	// decode leaves obj as it was.
	fresh := reflect.New(v.Elem().Type())
	if err := json.Unmarshal(patched, fresh.Interface()); err != nil {
		return false, fmt.Errorf("decode the patched object: %w", err)
	}
	kind := obj.GetObjectKind().GroupVersionKind()
	v.Elem().Set(fresh.Elem())
	if kind.Empty() {
		obj.GetObjectKind().SetGroupVersionKind(kind)
	}
	return true, nil
}

// Validating calls the validating webhooks, in parallel, in the
// validating phase.
type Validating struct{ d *dispatcher }

var _ admission.ValidationInterface = (*Validating)(nil)

// Handles implements admission.Interface.
func (*Validating) Handles(a *rest.Attributes) bool { return handles(a) }

// Validate implements admission.ValidationInterface: every matching
// webhook is called at once; the first refusal (in the webhooks' order)
// is the answer.
func (p *Validating) Validate(ctx context.Context, a *rest.Attributes) error {
	hooks, err := p.d.compiler.validatingHooks(ctx, p.d.Source)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var invs []*invocation
	for _, h := range hooks {
		inv, err := p.d.match(ctx, h, a)
		if err != nil {
			return err
		}
		if inv != nil {
			invs = append(invs, inv)
		}
	}
	errs := make([]error, len(invs))
	resps := make([]*admissionv1.AdmissionResponse, len(invs))
	var wg sync.WaitGroup
	for i, inv := range invs {
		wg.Go(func() {
			resp, err := p.d.caller.call(ctx, inv.hook, inv.request)
			if err != nil {
				klog.FromContext(ctx).V(2).Info("Admission webhook failed", "webhook", inv.hook.name, "failOpen", inv.hook.failOpen, "err", err)
				errs[i] = failure(inv.hook, err)
				return
			}
			resps[i] = resp
			if !resp.Allowed {
				errs[i] = denied(inv.hook.name, resp.Result)
			}
		})
	}
	wg.Wait()
	for i, inv := range invs {
		record(ctx, inv.hook, resps[i])
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
