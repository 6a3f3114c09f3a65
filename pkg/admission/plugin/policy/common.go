package policy

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/admission/matching"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// compiledCache keeps each policy compiled at the resourceVersion it was
// compiled from: a policy is compiled again only when it changes.
type compiledCache[C any] struct {
	mu       sync.Mutex
	entries  map[string]cacheEntry[C]
	compiles int
}

type cacheEntry[C any] struct {
	uid, resourceVersion string
	compiled             *C
}

// get returns the compiled form of the policy name at uid and
// resourceVersion, compiling it with build when it is not cached.
func (c *compiledCache[C]) get(name, uid, rv string, build func() *C) *C {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[name]; ok && e.uid == uid && e.resourceVersion == rv {
		return e.compiled
	}
	if c.entries == nil {
		c.entries = map[string]cacheEntry[C]{}
	}
	compiled := build()
	c.compiles++
	c.entries[name] = cacheEntry[C]{uid: uid, resourceVersion: rv, compiled: compiled}
	return compiled
}

// prune forgets the policies not in live, once the cache holds more
// than there are.
func (c *compiledCache[C]) prune(live map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) <= len(live) {
		return
	}
	for name := range c.entries {
		if !live[name] {
			delete(c.entries, name)
		}
	}
}

// Compiles is how many times a policy was compiled (for tests).
func (c *compiledCache[C]) Compiles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compiles
}

// namedProgram is an expression of a policy with its compile error.
type namedProgram struct {
	name string
	prg  *program
	err  error
	expr string
}

func compileNamed(env *cel.Env, name, expr string, want ...*cel.Type) namedProgram {
	p, err := compile(env, expr, want...)
	return namedProgram{name: name, prg: p, err: err, expr: expr}
}

// common is what both kinds of policies share once compiled.
type common struct {
	paramKind       *admissionregistrationv1.ParamKind
	matcher         *compiledMatcher
	matchConditions []namedProgram
	variables       []variable
	failurePolicy   admissionregistrationv1.FailurePolicyType
}

func compileCommon(env *cel.Env, paramKind *admissionregistrationv1.ParamKind, mc *admissionregistrationv1.MatchResources,
	conds []admissionregistrationv1.MatchCondition, vars []admissionregistrationv1.Variable, fp *admissionregistrationv1.FailurePolicyType) common {
	c := common{paramKind: paramKind, matcher: newMatcher(mc, false), failurePolicy: admissionregistrationv1.Fail}
	if fp != nil {
		c.failurePolicy = *fp
	}
	for _, m := range conds {
		c.matchConditions = append(c.matchConditions, compileNamed(env, m.Name, m.Expression, cel.BoolType))
	}
	for _, v := range vars {
		p, err := compile(env, v.Expression)
		c.variables = append(c.variables, variable{name: v.Name, prg: p, err: err})
	}
	return c
}

// matchConditionsPass runs the match conditions: false when one is false,
// an error when none is false and one failed.
func (c *common) matchConditionsPass(e *evaluation) (bool, error) {
	var firstErr error
	for _, m := range c.matchConditions {
		if m.err != nil {
			firstErr = cmpErr(firstErr, fmt.Errorf("compilation error in matchCondition %q: %w", m.name, m.err))
			continue
		}
		out, err := e.run(m.prg)
		if err != nil {
			if errors.Is(err, errOutOfBudget) {
				return false, err
			}
			firstErr = cmpErr(firstErr, fmt.Errorf("matchCondition %q: %w", m.name, err))
			continue
		}
		b, ok := out.(types.Bool)
		if !ok {
			firstErr = cmpErr(firstErr, fmt.Errorf("matchCondition %q must evaluate to bool", m.name))
			continue
		}
		if !b {
			return false, nil
		}
	}
	return firstErr == nil, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// errParamNotFound is the failure of a binding whose parameter is missing
// under parameterNotFoundAction Deny.
var errParamNotFound = errors.New("failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")

// params returns the parameters a binding evaluates its policy with: one
// null value without a paramKind, one per object the paramRef selects,
// none when it selects none and the binding allows that.
func params(ctx context.Context, src Params, in *input, kind *admissionregistrationv1.ParamKind, pr *admissionregistrationv1.ParamRef) ([]ref.Val, error) {
	if kind == nil {
		return []ref.Val{types.NullValue}, nil
	}
	if pr == nil {
		return nil, errors.New("failed to configure binding: paramKind is set on the policy but the binding has no paramRef")
	}
	if src == nil {
		return nil, errors.New("failed to configure binding: parameters are not served")
	}
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("failed to configure binding: paramKind apiVersion %q: %w", kind.APIVersion, err)
	}
	gvk := gv.WithKind(kind.Kind)
	namespaced, err := src.Namespaced(gvk)
	if err != nil {
		return nil, fmt.Errorf("failed to configure binding: paramKind %s: %w", gvk, err)
	}
	ns := ""
	if namespaced {
		ns = pr.Namespace
		if ns == "" {
			ns = in.attrs.Namespace
		}
		if ns == "" {
			return nil, errors.New("failed to configure binding: cannot use a namespaced paramRef without a namespace on a cluster-scoped request")
		}
	}
	sel := labels.Everything()
	if pr.Name == "" {
		if sel, err = selector(pr.Selector); err != nil {
			return nil, fmt.Errorf("failed to configure binding: paramRef selector: %w", err)
		}
	}
	objs, err := src.List(ctx, gvk, ns, pr.Name, sel)
	if err != nil {
		return nil, fmt.Errorf("failed to configure binding: read params: %w", err)
	}
	if len(objs) == 0 {
		if pr.ParameterNotFoundAction != nil && *pr.ParameterNotFoundAction == admissionregistrationv1.AllowAction {
			return nil, nil
		}
		return nil, errParamNotFound
	}
	out := make([]ref.Val, 0, len(objs))
	for _, o := range objs {
		m, err := toMap(o, gvk)
		if err != nil {
			return nil, err
		}
		out = append(out, celValue(m))
	}
	return out, nil
}

// matchBinding reports whether the write a matches the policy compiled as
// c and its binding (whose matcher bindings caches), and as what.
func matchBinding(ctx context.Context, c *common, bindings *compiledCache[compiledMatcher], name, uid, rv string, mr *admissionregistrationv1.MatchResources,
	a *rest.Attributes, eq matching.Equivalents, ns matching.NamespaceGetter) (matching.Match, bool, error) {
	m, ok, err := c.matcher.matches(ctx, a, eq, ns)
	if err != nil || !ok {
		return m, ok, err
	}
	bm := bindings.get(name, uid, rv, func() *compiledMatcher { return newMatcher(mr, true) })
	if _, ok, err := bm.matches(ctx, a, eq, ns); err != nil || !ok {
		return m, ok, err
	}
	return m, true, nil
}

func selector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}
