package admission

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// plugin records its calls; it handles the resource it names.
type plugin struct {
	name, resource string
	calls          *[]string
	err            error
}

func (p plugin) Handles(a *rest.Attributes) bool { return a.Resource.Resource == p.resource }

type mutating struct{ plugin }

func (m mutating) Admit(_ context.Context, _ *rest.Attributes) error {
	*m.calls = append(*m.calls, "admit "+m.name)
	return m.err
}

type validating struct{ plugin }

func (v validating) Validate(_ context.Context, _ *rest.Attributes) error {
	*v.calls = append(*v.calls, "validate "+v.name)
	return v.err
}

func TestChainRunsEachPhaseInOrder(t *testing.T) {
	var calls []string
	c := Chain{
		mutating{plugin{"a", "pods", &calls, nil}},
		validating{plugin{"b", "pods", &calls, nil}},
		mutating{plugin{"c", "nodes", &calls, nil}},
		mutating{plugin{"d", "pods", &calls, nil}},
	}
	a := &rest.Attributes{}
	a.Resource.Resource = "pods"
	if err := c.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(calls, ","); got != "admit a,admit d,validate b" {
		t.Errorf("calls %s", got)
	}
	calls = nil
	denied := errors.New("denied")
	c = Chain{validating{plugin{"x", "pods", &calls, denied}}, validating{plugin{"y", "pods", &calls, nil}}}
	if err := c.Validate(context.Background(), a); !errors.Is(err, denied) || len(calls) != 1 {
		t.Errorf("err %v after %v, want the first plugin's error only", err, calls)
	}
}
