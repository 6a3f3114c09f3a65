package runtime

import "fmt"

// SchemeBuilder collects the functions that register an API group version,
// so that a package can offer them as one AddToScheme:
//
//	var (
//		SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
//		AddToScheme   = SchemeBuilder.AddToScheme
//	)
type SchemeBuilder []func(*Scheme) error

// NewSchemeBuilder returns a builder running funcs in order.
func NewSchemeBuilder(funcs ...func(*Scheme) error) SchemeBuilder {
	var sb SchemeBuilder
	sb.Register(funcs...)
	return sb
}

// Register adds funcs to the builder.
func (sb *SchemeBuilder) Register(funcs ...func(*Scheme) error) {
	*sb = append(*sb, funcs...)
}

// AddToScheme runs every registered function on s, stopping at the first
// error.
func (sb SchemeBuilder) AddToScheme(s *Scheme) error {
	for i, fn := range sb {
		if err := fn(s); err != nil {
			return fmt.Errorf("add to scheme %q (function %d of %d): %w", s.Name(), i+1, len(sb), err)
		}
	}
	return nil
}
