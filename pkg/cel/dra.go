package cel

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"

	"kubecore.io/apimachinery/pkg/util/validation/field"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
)

// The bounds of a DRA device selector, as resource.k8s.io has them.
const (
	// DeviceSelectorMaxCost is the largest estimated (and runtime) cost
	// of one selector expression.
	DeviceSelectorMaxCost = 1000000
	// deviceMaxEntries bounds the attributes and capacities of a device.
	deviceMaxEntries = 32
	// deviceAttributeMaxLength bounds a string attribute.
	deviceAttributeMaxLength = 64
	// deviceDriverMaxLength bounds a driver name.
	deviceDriverMaxLength = 63
)

// deviceVar is the variable a selector sees the device as.
const deviceVar = "device"

// DeviceSelectors compiles the CEL selectors of dynamic resource
// allocation (DeviceClass and ResourceClaim selectors) in the environment
// Kubernetes gives them: the variable device with its driver, its
// attributes and capacity by domain and name, and
// allowMultipleAllocations; the bindings extension; a cost limit of
// DeviceSelectorMaxCost. The zero value is ready; the environment is
// built on first use.
type DeviceSelectors struct {
	once   sync.Once
	env    *cel.Env
	schema *apischema.Structural
	err    error
}

// deviceSchema describes the device variable, with the bounds the
// estimates use.
func deviceSchema() (root, quantity *apischema.Structural) {
	bound := func(n int64) *int64 { return &n }
	byDomain := func(value *apischema.Structural) *apischema.Structural {
		inner := &apischema.Structural{Type: "object", AdditionalProperties: value}
		inner.MaxProperties = bound(deviceMaxEntries)
		outer := &apischema.Structural{Type: "object", AdditionalProperties: inner}
		outer.MaxProperties = bound(deviceMaxEntries)
		return outer
	}
	driver := &apischema.Structural{Type: "string"}
	driver.MaxLength = bound(deviceDriverMaxLength)
	// An attribute is a bool, int, string or semver: dyn.
	attribute := &apischema.Structural{}
	quantity = &apischema.Structural{Type: "string"}
	quantity.MaxLength = bound(deviceAttributeMaxLength)
	root = &apischema.Structural{Type: "object", Properties: map[string]*apischema.Structural{
		"driver":                   driver,
		"attributes":               byDomain(attribute),
		"capacity":                 byDomain(quantity),
		"allowMultipleAllocations": {Type: "boolean"},
	}}
	return root, quantity
}

func (d *DeviceSelectors) build() {
	root, quantity := deviceSchema()
	base, err := NewEnv(ext.Bindings(ext.BindingsVersion(0)))
	if err != nil {
		d.err = fmt.Errorf("build the DRA CEL environment: %w", err)
		return
	}
	p := &Provider{base: base.CELTypeProvider(), objects: map[string]*objectType{}, nodeTypes: map[*apischema.Structural]*types.Type{},
		overrides: map[*apischema.Structural]*types.Type{quantity: QuantityType}}
	t := p.typeOf(root, "kubernetes.DRADevice", false)
	env, err := base.Extend(cel.CustomTypeProvider(p), cel.Variable(deviceVar, t))
	if err != nil {
		d.err = fmt.Errorf("build the DRA CEL environment: %w", err)
		return
	}
	d.env, d.schema = env, root
}

// deviceEstimator sizes what a selector reads of a device: the schema's
// bounds, and the length of an attribute, which the schema leaves
// free-form.
type deviceEstimator struct{ *estimator }

// EstimateSize implements checker.CostEstimator.
func (e deviceEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if p := n.Path(); len(p) == 4 && p[0] == deviceVar && p[1] == "attributes" {
		return &checker.SizeEstimate{Min: 0, Max: deviceAttributeMaxLength}
	}
	return e.estimator.EstimateSize(n)
}

// Check compiles a selector expression and estimates its cost; it
// returns the error Kubernetes gives at p (the expression's field) for
// an expression that does not compile, is not a bool, or may cost more
// than DeviceSelectorMaxCost, and nil for a good one.
func (d *DeviceSelectors) Check(expression string, p *field.Path) *field.Error {
	d.once.Do(d.build)
	if d.err != nil {
		return field.InternalError(p, d.err)
	}
	ast, iss := d.env.Compile(expression)
	if iss.Err() != nil {
		return field.Invalid(p, expression, "compilation failed: "+iss.Err().Error())
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
		return field.Invalid(p, expression, fmt.Sprintf("must evaluate to %s or the unknown type, not %s", cel.BoolType, out))
	}
	est := deviceEstimator{&estimator{roots: map[string]*apischema.Structural{deviceVar: d.schema}}}
	cost, err := d.env.EstimateCost(ast, est)
	if err != nil {
		return field.InternalError(p, fmt.Errorf("cost estimation failed: %w", err))
	}
	if cost.Max > DeviceSelectorMaxCost {
		return field.Forbidden(p, "too complex, exceeds cost limit")
	}
	return nil
}
