// Package selection names the operators of label and field selector
// requirements, spelled as they appear in selector strings.
package selection

// Operator relates a requirement's key to its values.
type Operator string

// The operators. The strings are those of Kubernetes' selection package;
// DoesNotExist and GreaterThan/LessThan print differently in a selector
// string ("!key", "key>1", "key<1").
const (
	DoesNotExist Operator = "!"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	In           Operator = "in"
	NotEquals    Operator = "!="
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)
