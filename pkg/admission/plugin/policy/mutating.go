package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/klog/v2"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Types knows the structured-merge-diff type of each built-in kind, by
// which an apply configuration is merged (pkg/fieldmanager's
// TypeConverter); other kinds are merged by the shape of their values.
type Types interface {
	Type(kind schema.GroupVersionKind) (typed.ParseableType, bool)
}

// Mutating is the MutatingAdmissionPolicy plugin of the mutating phase.
type Mutating struct {
	Objects     Objects
	Params      Params
	Kinds       Kinds
	Types       Types
	Equivalents matching.Equivalents

	env      *cel.Env
	cache    compiledCache[compiledMutating]
	bindings compiledCache[compiledMatcher]
}

// NewMutating returns the plugin; its environment is built here, once.
func NewMutating(objects Objects, params Params, kinds Kinds, types Types, eq matching.Equivalents) (*Mutating, error) {
	env, err := newEnv(true)
	if err != nil {
		return nil, fmt.Errorf("mutating admission policy environment: %w", err)
	}
	return &Mutating{Objects: objects, Params: params, Kinds: kinds, Types: types, Equivalents: eq, env: env}, nil
}

// Handles implements admission.Interface: policies mutate creates and
// updates.
func (m *Mutating) Handles(a *rest.Attributes) bool {
	return !isExempt(a) && a.Object != nil && (a.Operation == rest.OperationCreate || a.Operation == rest.OperationUpdate)
}

// Compiles is how many times a policy was compiled.
func (m *Mutating) Compiles() int { return m.cache.Compiles() }

type compiledMutation struct {
	namedProgram
	patchType admissionregistrationv1.PatchType
}

type compiledMutating struct {
	common
	mutations    []compiledMutation
	reinvocation admissionregistrationv1.ReinvocationPolicyType
}

func (m *Mutating) compile(p *admissionregistrationv1.MutatingAdmissionPolicy) *compiledMutating {
	c := &compiledMutating{common: compileCommon(m.env, p.Spec.ParamKind, p.Spec.MatchConstraints, p.Spec.MatchConditions, p.Spec.Variables, p.Spec.FailurePolicy),
		reinvocation: p.Spec.ReinvocationPolicy}
	for i, mu := range p.Spec.Mutations {
		cm := compiledMutation{patchType: mu.PatchType}
		name := fmt.Sprintf("mutations[%d]", i)
		switch {
		case mu.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && mu.ApplyConfiguration != nil:
			cm.namedProgram = compileNamed(m.env, name, mu.ApplyConfiguration.Expression)
		case mu.PatchType == admissionregistrationv1.PatchTypeJSONPatch && mu.JSONPatch != nil:
			cm.namedProgram = compileNamed(m.env, name, mu.JSONPatch.Expression, cel.ListType(cel.ObjectType(jsonPatchType)), cel.ListType(cel.DynType))
		default:
			cm.namedProgram = namedProgram{name: name, err: fmt.Errorf("unsupported patchType %q", mu.PatchType)}
		}
		c.mutations = append(c.mutations, cm)
	}
	klog.V(2).InfoS("Compiled MutatingAdmissionPolicy", "policy", klog.KObj(p), "resourceVersion", p.ResourceVersion)
	return c
}

// binding is a policy and one of its bindings that match a write.
type mutatingBinding struct {
	policy  *admissionregistrationv1.MutatingAdmissionPolicy
	binding *admissionregistrationv1.MutatingAdmissionPolicyBinding
	c       *compiledMutating
}

// Admit implements admission.MutationInterface. The bindings run in
// name order, each seeing the object the ones before left; when a later
// policy changed the object, those whose reinvocationPolicy is IfNeeded
// run once more.
func (m *Mutating) Admit(ctx context.Context, a *rest.Attributes) error {
	bindings, err := m.Objects.MutatingAdmissionPolicyBindings(ctx)
	if err != nil || len(bindings) == 0 {
		return err
	}
	policies, err := m.Objects.MutatingAdmissionPolicies(ctx)
	if err != nil {
		return err
	}
	byName := make(map[string]*admissionregistrationv1.MutatingAdmissionPolicy, len(policies))
	live := make(map[string]bool, len(policies))
	for _, p := range policies {
		byName[p.Name] = p
		live[p.Name] = true
	}
	m.cache.prune(live)
	slices.SortFunc(bindings, func(x, y *admissionregistrationv1.MutatingAdmissionPolicyBinding) int {
		return strings.Compare(x.Name, y.Name)
	})
	var in *input
	changed := false
	var reinvoke []mutatingBinding
	lastChange := -1
	var ran []mutatingBinding
	for _, b := range bindings {
		p := byName[b.Spec.PolicyName]
		if p == nil {
			continue
		}
		c := m.cache.get(p.Name, string(p.UID), p.ResourceVersion, func() *compiledMutating { return m.compile(p) })
		mb := mutatingBinding{policy: p, binding: b, c: c}
		match, ok, err := matchBinding(ctx, &c.common, &m.bindings, b.Name, string(b.UID), b.ResourceVersion, b.Spec.MatchResources, a, m.Equivalents, m.Objects)
		if err != nil {
			if err := mb.fail(a, err); err != nil {
				return err
			}
			continue
		}
		if !ok {
			continue
		}
		if in == nil {
			if in, err = newInput(ctx, m.Objects, m.Kinds, a, match); err != nil {
				return apierrors.NewInternalError(err)
			}
		}
		did, err := m.apply(ctx, mb, in)
		if err != nil {
			return err
		}
		ran = append(ran, mb)
		if did {
			changed = true
			lastChange = len(ran) - 1
		}
	}
	for i, mb := range ran {
		if i < lastChange && mb.c.reinvocation == admissionregistrationv1.IfNeededReinvocationPolicy {
			reinvoke = append(reinvoke, mb)
		}
	}
	for _, mb := range reinvoke {
		did, err := m.apply(ctx, mb, in)
		if err != nil {
			return err
		}
		changed = changed || did
	}
	if !changed {
		return nil
	}
	return setObject(a, in.objMap)
}

// fail is the answer to a failure of the binding: none under
// failurePolicy Ignore.
func (mb mutatingBinding) fail(a *rest.Attributes, err error) error {
	if mb.c.failurePolicy == admissionregistrationv1.Ignore {
		klog.V(4).InfoS("Ignoring a failure of a MutatingAdmissionPolicy", "policy", mb.policy.Name, "binding", mb.binding.Name, "err", err)
		return nil
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
		fmt.Errorf("MutatingAdmissionPolicy '%s' with binding '%s' denied request: %w", mb.policy.Name, mb.binding.Name, err))
}

// apply runs the mutations of one binding on in's object; it reports
// whether the object changed.
func (m *Mutating) apply(ctx context.Context, mb mutatingBinding, in *input) (bool, error) {
	c, b := mb.c, mb.binding
	fail := func(err error) error { return mb.fail(in.attrs, err) }
	ps, err := params(ctx, m.Params, in, c.paramKind, b.Spec.ParamRef)
	if err != nil {
		return false, fail(err)
	}
	changed := false
	for _, param := range ps {
		e := newEvaluation(ctx, in, param, c.variables)
		pass, err := c.matchConditionsPass(e)
		if err != nil {
			return changed, fail(err)
		}
		if !pass {
			continue
		}
		for _, mu := range c.mutations {
			if mu.err != nil {
				return changed, fail(fmt.Errorf("compilation error in %s: %w", mu.name, mu.err))
			}
			out, err := e.run(mu.prg)
			if err != nil {
				if !errors.Is(err, errOutOfBudget) {
					err = fmt.Errorf("expression '%s' resulted in error: %w", mu.expr, err)
				}
				return changed, fail(err)
			}
			var next map[string]any
			switch mu.patchType {
			case admissionregistrationv1.PatchTypeApplyConfiguration:
				next, err = m.mergeApply(in, out)
			case admissionregistrationv1.PatchTypeJSONPatch:
				next, err = applyJSONPatch(in.objMap, out)
			}
			if err != nil {
				return changed, fail(fmt.Errorf("%s: %w", mu.name, err))
			}
			if !reflect.DeepEqual(next, in.objMap) {
				in.setObject(next)
				changed = true
				// Later expressions see the mutated object.
				e.vars[varObject] = in.object
			}
		}
	}
	return changed, nil
}

// mergeApply merges the apply configuration out into the object as
// server-side apply merges: by the kind's schema (list types and map
// keys) when it is known, by the values' shape otherwise.
func (m *Mutating) mergeApply(in *input, out ref.Val) (map[string]any, error) {
	sv, ok := out.(*structVal)
	if !ok || sv.typ.TypeName() != applyObjectType {
		return nil, fmt.Errorf("an applyConfiguration must evaluate to an Object{...}, got %s", typeName(out))
	}
	cfg, err := fromCEL(sv)
	if err != nil {
		return nil, err
	}
	pt := typed.DeducedParseableType
	if m.Types != nil {
		if t, ok := m.Types.Type(in.gvk); ok {
			pt = t
		}
	}
	orig, err := pt.FromUnstructured(in.objMap, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("read the object: %w", err)
	}
	patch, err := pt.FromUnstructured(cfg)
	if err != nil {
		return nil, fmt.Errorf("invalid apply configuration: %w", err)
	}
	merged, err := orig.Merge(patch)
	if err != nil {
		return nil, fmt.Errorf("merge the apply configuration: %w", err)
	}
	u, ok := merged.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, errors.New("merged object is not an object")
	}
	return u, nil
}

// applyJSONPatch applies the JSONPatch{...} list out to obj.
func applyJSONPatch(obj map[string]any, out ref.Val) (map[string]any, error) {
	list, ok := out.(traits.Lister)
	if !ok {
		return nil, fmt.Errorf("a jsonPatch must evaluate to a list of JSONPatch, got %s", typeName(out))
	}
	ops, err := fromCEL(list)
	if err != nil {
		return nil, err
	}
	patchJSON, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON patch: %w", err)
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("JSON patch: %w", err)
	}
	return decodeJSON(patched)
}

// setObject replaces the content of a.Object (the object the Store goes
// on with) by the mutated JSON form m.
func setObject(a *rest.Attributes, m map[string]any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("encode the mutated object: %w", err))
	}
	v := reflect.ValueOf(a.Object)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return apierrors.NewInternalError(fmt.Errorf("cannot mutate %T", a.Object))
	}
	fresh := reflect.New(v.Elem().Type())
	if err := json.Unmarshal(b, fresh.Interface()); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("the object mutated by admission policies does not decode: %v", err))
	}
	// The object keeps the apiVersion and kind it had (typed objects
	// travel without them).
	if obj, ok := fresh.Interface().(runtime.Object); ok {
		obj.GetObjectKind().SetGroupVersionKind(a.Object.GetObjectKind().GroupVersionKind())
	}
	v.Elem().Set(fresh.Elem())
	return nil
}
