package cel

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"k8s.io/klog/v2"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
)

// costHint ends the messages of estimated costs over a limit.
const costHint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"

// Validator holds the compiled x-kubernetes-validations rules of one
// version's schema; it is built once per definition version and safe for
// concurrent use.
type Validator struct {
	provider *Provider
	root     *node
}

// node is a schema node whose subtree holds rules.
type node struct {
	schema *apischema.Structural
	// names are the properties' names in order, for a stable order of
	// errors.
	names      []string
	rules      []*compiledRule
	properties map[string]*node
	items      *node
	values     *node
}

type compiledRule struct {
	rule        apiextensionsv1.ValidationRule
	program     cel.Program
	message     cel.Program
	transition  bool
	optionalOld bool
	fieldPath   []pathElem
}

// pathElem is one step of a rule's fieldPath: a field or an index.
type pathElem struct {
	field string
	index int
	isIdx bool
}

// compiler walks a schema compiling its rules.
type compiler struct {
	provider *Provider
	base     *cel.Env
	envs     map[envKey]*cel.Env
	errs     field.ErrorList
	// total is the estimated cost of every rule times its cardinality.
	total uint64
}

type envKey struct {
	t        *types.Type
	optional bool
}

// Compile compiles every rule of a structural schema (a version's
// openAPIV3Schema, whose field path fldPath errors are reported under).
// It returns a nil Validator when the schema has no rules.
func Compile(root *apischema.Structural, fldPath *field.Path) (*Validator, field.ErrorList) {
	if root == nil || !hasRules(root) {
		return nil, nil
	}
	base, err := NewEnv()
	if err != nil {
		return nil, field.ErrorList{field.InternalError(fldPath, fmt.Errorf("build CEL environment: %w", err))}
	}
	p := NewProvider(base.CELTypeProvider(), root)
	env, err := base.Extend(cel.CustomTypeProvider(p))
	if err != nil {
		return nil, field.ErrorList{field.InternalError(fldPath, fmt.Errorf("build CEL environment: %w", err))}
	}
	c := &compiler{provider: p, base: env, envs: map[envKey]*cel.Env{}}
	n := c.compile(root, fldPath, true, true, 1)
	if c.total > StaticEstimatedCRDCostLimit {
		c.errs = append(c.errs, field.Forbidden(fldPath, fmt.Sprintf(
			"x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of %s %s",
			factor(c.total, StaticEstimatedCRDCostLimit), costHint)))
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return &Validator{provider: p, root: n}, nil
}

func hasRules(s *apischema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(p) {
			return true
		}
	}
	return hasRules(s.Items) || hasRules(s.AdditionalProperties)
}

func factor(cost, limit uint64) string {
	return strconv.FormatFloat(float64(cost)/float64(limit), 'f', 1, 64)
}

func (c *compiler) env(t *types.Type, optional bool) (*cel.Env, error) {
	k := envKey{t, optional}
	if e, ok := c.envs[k]; ok {
		return e, nil
	}
	old := t
	if optional {
		old = types.NewOptionalType(t)
	}
	e, err := c.base.Extend(cel.Variable("self", t), cel.Variable("oldSelf", old))
	if err != nil {
		return nil, err
	}
	c.envs[k] = e
	return e, nil
}

// compile compiles the rules of s and its subtree; correlatable says
// whether oldSelf can be found for s on update, cardinality how many
// times s may occur in one object.
func (c *compiler) compile(s *apischema.Structural, p *field.Path, root, correlatable bool, cardinality uint64) *node {
	if !hasRules(s) {
		return nil
	}
	n := &node{schema: s}
	for i := range s.XValidations {
		if r := c.compileRule(s, &s.XValidations[i], p.Child("x-kubernetes-validations").Index(i), root, correlatable, cardinality); r != nil {
			n.rules = append(n.rules, r)
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		ps := s.Properties[name]
		if child := c.compile(ps, p.Child("properties").Key(name), false, correlatable, cardinality); child != nil {
			if n.properties == nil {
				n.properties = map[string]*node{}
			}
			n.properties[name] = child
			n.names = append(n.names, name)
		}
	}
	if s.Items != nil {
		n.items = c.compile(s.Items, p.Child("items"), false, correlatable && s.ListType == "map", mulSat(cardinality, maxCount(s)))
	}
	if s.AdditionalProperties != nil {
		n.values = c.compile(s.AdditionalProperties, p.Child("additionalProperties"), false, correlatable, mulSat(cardinality, maxCount(s)))
	}
	return n
}

var reasons = []apiextensionsv1.FieldValueErrorReason{
	apiextensionsv1.FieldValueRequired, apiextensionsv1.FieldValueDuplicate,
	apiextensionsv1.FieldValueInvalid, apiextensionsv1.FieldValueForbidden,
}

func (c *compiler) compileRule(s *apischema.Structural, rule *apiextensionsv1.ValidationRule, p *field.Path, root, correlatable bool, cardinality uint64) *compiledRule {
	rp := p.Child("rule")
	if strings.TrimSpace(rule.Rule) == "" {
		c.errs = append(c.errs, field.Required(rp, "rule is not specified"))
		return nil
	}
	if strings.ContainsAny(rule.Message, "\r\n") {
		c.errs = append(c.errs, field.Invalid(p.Child("message"), rule.Message, "message must not contain line breaks"))
	}
	if rule.Reason != nil && !containsReason(*rule.Reason) {
		c.errs = append(c.errs, field.NotSupported(p.Child("reason"), *rule.Reason, reasons))
	}
	out := &compiledRule{rule: *rule, optionalOld: rule.OptionalOldSelf != nil && *rule.OptionalOldSelf}
	if rule.FieldPath != "" {
		elems, err := parseFieldPath(s, rule.FieldPath, root)
		if err != nil {
			c.errs = append(c.errs, field.Invalid(p.Child("fieldPath"), rule.FieldPath, err.Error()))
		}
		out.fieldPath = elems
	}
	t := c.provider.TypeOf(s)
	env, err := c.env(t, out.optionalOld)
	if err != nil {
		c.errs = append(c.errs, field.InternalError(rp, err))
		return nil
	}
	est := &estimator{roots: map[string]*apischema.Structural{"self": s, "oldSelf": s}, atRoot: root}
	ast, iss := env.Compile(rule.Rule)
	if iss.Err() != nil {
		c.errs = append(c.errs, field.Invalid(rp, rule.Rule, "compilation failed: "+iss.Err().Error()))
		return nil
	}
	if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
		c.errs = append(c.errs, field.Invalid(rp, rule.Rule, "cel expression must evaluate to a bool"))
		return nil
	}
	out.transition = usesOldSelf(ast)
	if out.transition && !correlatable {
		c.errs = append(c.errs, field.Invalid(rp, rule.Rule, "oldSelf cannot be used on the uncorrelatable portion of the schema within "+p.String()))
	}
	if rule.OptionalOldSelf != nil && !out.transition {
		c.errs = append(c.errs, field.Forbidden(p.Child("optionalOldSelf"), "may not be set if rule does not use oldSelf"))
	}
	cost, ok := c.estimate(env, ast, est, rp)
	if !ok {
		return nil
	}
	c.total = addSat(c.total, mulSat(cost, cardinality))
	if out.program, err = c.program(env, ast); err != nil {
		c.errs = append(c.errs, field.InternalError(rp, err))
		return nil
	}
	if rule.MessageExpression != "" {
		mp := p.Child("messageExpression")
		mast, iss := env.Compile(rule.MessageExpression)
		switch {
		case iss.Err() != nil:
			c.errs = append(c.errs, field.Invalid(mp, rule.MessageExpression, "messageExpression compilation failed: "+iss.Err().Error()))
		case mast.OutputType() != cel.StringType:
			c.errs = append(c.errs, field.Invalid(mp, rule.MessageExpression, "messageExpression must evaluate to a string"))
		default:
			mcost, ok := c.estimate(env, mast, est, mp)
			if !ok {
				return nil
			}
			c.total = addSat(c.total, mulSat(mcost, cardinality))
			if out.message, err = c.program(env, mast); err != nil {
				c.errs = append(c.errs, field.InternalError(mp, err))
			}
		}
	}
	return out
}

func (c *compiler) estimate(env *cel.Env, ast *cel.Ast, est *estimator, p *field.Path) (uint64, bool) {
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		c.errs = append(c.errs, field.InternalError(p, fmt.Errorf("estimate cost: %w", err)))
		return 0, false
	}
	if cost.Max > StaticEstimatedCostLimit {
		c.errs = append(c.errs, field.Forbidden(p, fmt.Sprintf("estimated rule cost exceeds budget by factor of %s %s",
			factor(cost.Max, StaticEstimatedCostLimit), costHint)))
		return 0, false
	}
	return cost.Max, true
}

func (c *compiler) program(env *cel.Env, ast *cel.Ast) (cel.Program, error) {
	return env.Program(ast, ProgramOptions()...)
}

func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

func containsReason(r apiextensionsv1.FieldValueErrorReason) bool {
	for _, x := range reasons {
		if x == r {
			return true
		}
	}
	return false
}

// usesOldSelf reports whether an expression refers to oldSelf: a
// transition rule.
func usesOldSelf(ast *cel.Ast) bool {
	checked, err := cel.AstToCheckedExpr(ast)
	if err != nil {
		return false
	}
	for _, r := range checked.GetReferenceMap() {
		if r.GetName() == "oldSelf" {
			return true
		}
	}
	return false
}

// parseFieldPath parses a rule's fieldPath (".a.b", "['a.b']", ".l[0]")
// and checks that its fields exist in the schema.
func parseFieldPath(s *apischema.Structural, path string, root bool) ([]pathElem, error) {
	var out []pathElem
	rest := path
	cur := s
	for rest != "" {
		var name string
		switch {
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			name, rest = rest[:end], rest[end:]
			if name == "" {
				return nil, fmt.Errorf("fieldPath must be a valid path: empty field name in %q", path)
			}
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest, "']")
			if end < 0 {
				return nil, fmt.Errorf("fieldPath must be a valid path: unclosed quote in %q", path)
			}
			name, rest = rest[2:end], rest[end+2:]
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return nil, fmt.Errorf("fieldPath must be a valid path: unclosed index in %q", path)
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 || cur == nil || cur.Type != "array" {
				return nil, fmt.Errorf("fieldPath must be a valid path: invalid index in %q", path)
			}
			out = append(out, pathElem{index: i, isIdx: true})
			cur, rest = cur.Items, rest[end+1:]
			continue
		default:
			return nil, fmt.Errorf("fieldPath must be a valid path: %q", path)
		}
		if cur == nil {
			return nil, fmt.Errorf("fieldPath must be a valid path: %q does not exist in the schema", path)
		}
		next, ok := objectProperties(cur, root)[name]
		if !ok && cur.AdditionalProperties != nil {
			next, ok = cur.AdditionalProperties, true
		}
		if !ok && !cur.PreserveUnknownFields {
			return nil, fmt.Errorf("fieldPath must be a valid path: field %q does not exist in the schema", name)
		}
		out = append(out, pathElem{field: name})
		cur, root = next, false
	}
	return out, nil
}

// Budget is the runtime cost left to the rules of one request.
type Budget struct{ Remaining int64 }

// NewBudget returns the budget of one object's rules.
func NewBudget() *Budget { return &Budget{Remaining: RuntimeCELCostBudget} }

// Validate evaluates the rules on a custom object; old is the stored
// object on update, nil on create. Transition rules run only where the
// old value exists (or they set optionalOldSelf). A value unchanged from
// the old object is not checked again (ratcheting).
func (v *Validator) Validate(ctx context.Context, obj, old map[string]any, budget *Budget) field.ErrorList {
	if v == nil || v.root == nil {
		return nil
	}
	if budget == nil {
		budget = NewBudget()
	}
	w := &walker{ctx: ctx, v: v, budget: budget}
	var oldVal any
	if old != nil {
		oldVal = old
	}
	w.walk(v.root, nil, obj, oldVal, old != nil, true, nil)
	return w.errs
}

type walker struct {
	ctx    context.Context
	v      *Validator
	budget *Budget
	errs   field.ErrorList
	// outOfBudget stops every further rule.
	outOfBudget bool
}

// walk checks the rules of n on value (and below); hasOld says whether
// old is the correlated value from before the update. self is value
// already converted for CEL by an ancestor, nil when not yet.
func (w *walker) walk(n *node, p *field.Path, value, old any, hasOld, root bool, self ref.Val) {
	if n == nil || value == nil || w.outOfBudget {
		return
	}
	if len(n.rules) > 0 {
		// Ratcheting: an unchanged value (and so its subtree) passed
		// before; it is not checked again.
		if hasOld && jsonEqual(value, old) {
			return
		}
		if self == nil {
			self = w.v.provider.value(n.schema, value, root)
		}
		var oldSelf ref.Val
		for _, r := range n.rules {
			if w.outOfBudget {
				return
			}
			if (r.transition || r.optionalOld) && oldSelf == nil && hasOld && old != nil {
				oldSelf = w.v.provider.value(n.schema, old, root)
			}
			w.evaluate(r, n.schema, p, self, oldSelf)
		}
	}
	// child returns the converted value of a child of self, nil when it
	// is to be converted later.
	mapper, _ := self.(traits.Mapper)
	child := func(key string) ref.Val {
		if mapper == nil {
			return nil
		}
		v, found := mapper.Find(types.String(key))
		if !found || types.IsError(v) {
			return nil
		}
		return v
	}
	switch t := value.(type) {
	case map[string]any:
		om, _ := old.(map[string]any)
		for _, name := range n.names {
			cv, ok := t[name]
			if !ok {
				continue
			}
			var cs ref.Val
			if esc, ok := EscapeName(name); ok && !(root && name == "metadata") {
				cs = child(esc)
			}
			ov, oldOK := om[name]
			w.walk(n.properties[name], p.Child(name), cv, ov, hasOld && oldOK, false, cs)
		}
		if n.values != nil {
			for _, k := range sortedKeys(t) {
				ov, oldOK := om[k]
				w.walk(n.values, p.Key(k), t[k], ov, hasOld && oldOK, false, child(k))
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		var oldByKey map[string]any
		if hasOld && n.schema.ListType == "map" {
			oldByKey = map[string]any{}
			if ol, ok := old.([]any); ok {
				for _, e := range ol {
					oldByKey[mapKey(n.schema.ListMapKeys, e)] = e
				}
			}
		}
		lister, _ := self.(traits.Lister)
		for i, e := range t {
			var cs ref.Val
			if lister != nil {
				cs = lister.Get(types.Int(i))
			}
			var ov any
			oldOK := false
			if oldByKey != nil {
				ov, oldOK = oldByKey[mapKey(n.schema.ListMapKeys, e)]
			}
			w.walk(n.items, p.Index(i), e, ov, oldOK, false, cs)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// mapKey is the identity of an item of a map list.
func mapKey(keys []string, item any) string {
	m, ok := item.(map[string]any)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%q=%v;", k, m[k])
	}
	return b.String()
}

// jsonEqual compares two JSON values, numbers by their text (the int64
// of a request and the json.Number of storage are equal).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	switch b.(type) {
	case map[string]any, []any, string, bool, nil:
		return false
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// ruleError is the message of a rule without a usable messageExpression.
func ruleError(r *apiextensionsv1.ValidationRule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return "failed rule: " + strings.TrimSpace(r.Rule)
}

// activation binds self and oldSelf (nil: unbound) without a map.
type activation struct {
	self, oldSelf any
}

var _ interpreter.Activation = (*activation)(nil)

func (a *activation) ResolveName(name string) (any, bool) {
	switch {
	case name == "self":
		return a.self, true
	case name == "oldSelf" && a.oldSelf != nil:
		return a.oldSelf, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

func (w *walker) run(prg cel.Program, act *activation) (ref.Val, error) {
	out, det, err := prg.ContextEval(w.ctx, act)
	if det != nil && det.ActualCost() != nil {
		w.budget.Remaining -= int64(min(*det.ActualCost(), uint64(RuntimeCELCostBudget)+1))
	}
	return out, err
}

func (w *walker) evaluate(r *compiledRule, s *apischema.Structural, p *field.Path, self, oldSelf ref.Val) {
	act := &activation{self: self}
	switch {
	case r.optionalOld && oldSelf == nil:
		act.oldSelf = types.OptionalNone
	case r.optionalOld:
		act.oldSelf = types.OptionalOf(oldSelf)
	case r.transition && oldSelf == nil:
		return
	case r.transition:
		act.oldSelf = oldSelf
	}
	typeName := s.Type
	out, err := w.run(r.program, act)
	if w.budget.Remaining < 0 {
		w.outOfBudget = true
		w.errs = append(w.errs, field.Invalid(p, typeName, "validation failed due to running out of cost budget, no further validation rules will be run"))
		return
	}
	if err != nil {
		if strings.Contains(err.Error(), "cost limit exceeded") {
			w.errs = append(w.errs, field.Invalid(p, typeName, "call cost exceeds limit for rule: "+ruleError(&r.rule)))
			return
		}
		w.errs = append(w.errs, field.Invalid(p, typeName, fmt.Sprintf("%s: %v", ruleError(&r.rule), err)))
		return
	}
	if b, ok := out.(types.Bool); ok && bool(b) {
		return
	}
	if _, ok := out.(types.Bool); !ok {
		w.errs = append(w.errs, field.Invalid(p, typeName, fmt.Sprintf("%s: rule did not evaluate to a bool", ruleError(&r.rule))))
		return
	}
	msg := ruleError(&r.rule)
	if r.message != nil {
		m, err := w.run(r.message, act)
		if w.budget.Remaining < 0 {
			w.outOfBudget = true
			w.errs = append(w.errs, field.Invalid(p, typeName, "validation failed due to running out of cost budget, no further validation rules will be run"))
			return
		}
		s, ok := m.(types.String)
		switch {
		case err != nil:
			klog.FromContext(w.ctx).V(2).Info("MessageExpression failed", "messageExpression", r.rule.MessageExpression, "err", err)
		case ok && strings.TrimSpace(string(s)) != "" && !strings.ContainsAny(string(s), "\r\n"):
			msg = string(s)
		}
	}
	fp := p
	for _, e := range r.fieldPath {
		if e.isIdx {
			fp = fp.Index(e.index)
		} else {
			fp = fp.Child(e.field)
		}
	}
	reason := apiextensionsv1.FieldValueInvalid
	if r.rule.Reason != nil {
		reason = *r.rule.Reason
	}
	switch reason {
	case apiextensionsv1.FieldValueForbidden:
		w.errs = append(w.errs, field.Forbidden(fp, msg))
	case apiextensionsv1.FieldValueRequired:
		w.errs = append(w.errs, field.Required(fp, msg))
	case apiextensionsv1.FieldValueDuplicate:
		w.errs = append(w.errs, &field.Error{Type: field.ErrorTypeDuplicate, Field: fp.String(), BadValue: typeName, Detail: msg})
	default:
		w.errs = append(w.errs, field.Invalid(fp, typeName, msg))
	}
}

// objectVal must be a map to CEL's field selection.
var _ traits.Mapper = objectVal{}
