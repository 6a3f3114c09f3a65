package cel

import (
	"math"
	"strings"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
)

// minSerializedSize is the smallest JSON encoding of a node's values:
// what bounds how many of them fit in one request.
func minSerializedSize(s *apischema.Structural) uint64 {
	if isDyn(s) {
		return 1
	}
	switch s.Type {
	case "string":
		return 2 // ""
	case "boolean":
		return 4 // true
	case "integer", "number":
		return 1
	}
	return 2 // {} or []
}

// maxCount is how many items (a list) or entries (a map) a node may
// hold: its maxItems or maxProperties, else what fits in one request.
func maxCount(s *apischema.Structural) uint64 {
	switch {
	case s.Type == "array":
		if s.MaxItems != nil {
			return uint64(max(*s.MaxItems, 0))
		}
		item := uint64(1)
		if s.Items != nil {
			item = minSerializedSize(s.Items)
		}
		// Each item and its comma, between the brackets.
		return (MaxRequestSizeBytes - 2) / (item + 1)
	case s.MaxProperties != nil:
		return uint64(max(*s.MaxProperties, 0))
	}
	value := uint64(1)
	if s.AdditionalProperties != nil {
		value = minSerializedSize(s.AdditionalProperties)
	}
	// "":value, for each entry, between the braces.
	return (MaxRequestSizeBytes - 2) / (value + 4)
}

// maxSize is the largest size() of a node's values, nil when size() does
// not apply.
func maxSize(s *apischema.Structural) *checker.SizeEstimate {
	if s == nil || isDyn(s) {
		return nil
	}
	switch s.Type {
	case "string":
		if s.MaxLength != nil {
			return &checker.SizeEstimate{Min: 0, Max: uint64(max(*s.MaxLength, 0))}
		}
		if s.Format == "byte" {
			return &checker.SizeEstimate{Min: 0, Max: (MaxRequestSizeBytes - 2) * 3 / 4}
		}
		return &checker.SizeEstimate{Min: 0, Max: MaxRequestSizeBytes - 2}
	case "array":
		return &checker.SizeEstimate{Min: 0, Max: maxCount(s)}
	case "object":
		if s.AdditionalProperties != nil && len(s.Properties) == 0 {
			return &checker.SizeEstimate{Min: 0, Max: maxCount(s)}
		}
	}
	return nil
}

// mapKeySchema stands for the keys of a map in estimates.
var mapKeySchema = &apischema.Structural{Type: "string", ValueValidation: apischema.ValueValidation{MaxLength: new(int64)}}

// estimator estimates sizes from a schema (maxLength, maxItems,
// maxProperties) and the cost of the libraries' functions.
type estimator struct {
	// roots are the schema nodes of the variables (self, oldSelf).
	roots map[string]*apischema.Structural
	// atRoot: the variables are the whole object, whose metadata and
	// apiVersion and kind rules see too.
	atRoot bool
}

var _ checker.CostEstimator = (*estimator)(nil)

// schemaAt follows a cost path (variable, fields, @items, @keys,
// @values) through the schema.
func (e *estimator) schemaAt(path []string) (*apischema.Structural, bool) {
	if len(path) == 0 {
		return nil, false
	}
	s, ok := e.roots[path[0]]
	if !ok || s == nil {
		return nil, false
	}
	for i, el := range path[1:] {
		switch el {
		case "@items":
			s = s.Items
		case "@values":
			s = s.AdditionalProperties
		case "@keys":
			// Kubernetes gives the keys of a map no length of their own:
			// their size is estimated as 0, only the entries count.
			if i == len(path)-2 {
				return mapKeySchema, true
			}
			return nil, false
		default:
			s = propertyByField(s, el, i == 0 && e.atRoot)
		}
		if s == nil {
			return nil, false
		}
	}
	return s, true
}

// propertyByField finds the property whose escaped name is field.
func propertyByField(s *apischema.Structural, field string, root bool) *apischema.Structural {
	for name, p := range objectProperties(s, root) {
		if esc, ok := EscapeName(name); ok && esc == field {
			return p
		}
	}
	return nil
}

// EstimateSize implements checker.CostEstimator.
func (e *estimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if s, ok := e.schemaAt(n.Path()); ok {
		return maxSize(s)
	}
	return nil
}

// traversal is the cost of reading a string of a size: one per ten
// characters, as CEL counts string traversal.
func traversal(size checker.SizeEstimate) checker.CostEstimate {
	return checker.CostEstimate{Min: 1 + size.Min/10, Max: 1 + size.Max/10}
}

func (e *estimator) argSize(n checker.AstNode) checker.SizeEstimate {
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	if s := e.EstimateSize(n); s != nil {
		return *s
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// EstimateCallCost implements checker.CostEstimator for the libraries'
// functions; the standard ones are CEL's own.
func (e *estimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if target != nil && strings.HasPrefix(overloadID, "string_") || stringFuncs[function] && target != nil {
		switch function {
		case "substring", "lowerAscii", "upperAscii", "trim", "replace", "reverse", "split":
			size := e.argSize(*target)
			return &checker.CallEstimate{CostEstimate: traversal(size), ResultSize: &size}
		case "charAt", "indexOf", "lastIndexOf":
			return &checker.CallEstimate{CostEstimate: traversal(e.argSize(*target))}
		}
	}
	switch function {
	case "string":
		// A conversion to string: numbers and the libraries' values are
		// short, a string or bytes keeps its size.
		if len(args) != 1 {
			return nil
		}
		size := checker.SizeEstimate{Min: 0, Max: 64}
		switch overloadID {
		case "string_to_string", "bytes_to_string", "url_to_string":
			size = e.argSize(args[0])
		}
		return &checker.CallEstimate{CostEstimate: traversal(size), ResultSize: &size}
	case "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf":
		if target == nil || !strings.HasPrefix(overloadID, "list_") {
			return nil
		}
		n := e.argSize(*target)
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: n.Max + 1}}
	case "find", "findAll":
		if target == nil || len(args) == 0 {
			return nil
		}
		str, re := e.argSize(*target), e.argSize(args[0])
		c := traversal(str)
		c.Max = mulSat(c.Max, max(re.Max, 1))
		est := &checker.CallEstimate{CostEstimate: c}
		if function == "findAll" {
			est.ResultSize = &checker.SizeEstimate{Min: 0, Max: str.Max}
		}
		return est
	case "url", "isURL", "quantity", "isQuantity", "ip", "isIP", "cidr", "isCIDR", "semver", "isSemver", "ip.isCanonical", "validate":
		if len(args) == 0 {
			return nil
		}
		return &checker.CallEstimate{CostEstimate: traversal(e.argSize(args[len(args)-1]))}
	}
	return nil
}

// stringFuncs are the strings extension's functions on a string target
// whose result is no larger than the target.
var stringFuncs = map[string]bool{
	"substring": true, "lowerAscii": true, "upperAscii": true, "trim": true,
	"replace": true, "reverse": true, "split": true, "charAt": true,
}

func mulSat(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// actualCost counts the runtime cost of the libraries' functions.
type actualCost struct{}

var _ interpreter.ActualCostEstimator = actualCost{}

func (actualCost) CallCost(function, overloadID string, args []ref.Val, _ ref.Val) *uint64 {
	strLen := func(v ref.Val) uint64 {
		if s, ok := v.(types.String); ok {
			return uint64(len(s))
		}
		return 0
	}
	var c uint64
	switch function {
	case "isSorted", "sum", "min", "max", "indexOf", "lastIndexOf":
		if len(args) == 0 || !strings.HasPrefix(overloadID, "list_") {
			return nil
		}
		if l, ok := args[0].(traits.Lister); ok {
			c = uint64(l.Size().(types.Int)) + 1
		}
	case "find", "findAll":
		if len(args) < 2 {
			return nil
		}
		c = mulSat(1+strLen(args[0])/10, max(strLen(args[1]), 1))
	case "url", "isURL", "quantity", "isQuantity", "ip", "isIP", "cidr", "isCIDR", "semver", "isSemver", "ip.isCanonical", "validate":
		if len(args) == 0 {
			return nil
		}
		c = 1 + strLen(args[len(args)-1])/10
	default:
		return nil
	}
	return &c
}
