package v1

import (
	"fmt"
	"maps"

	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/selection"
)

// LabelSelectorAsSelector converts the API form of a label selector into a
// labels.Selector: nil selects nothing, an empty selector everything.
func LabelSelectorAsSelector(ps *LabelSelector) (labels.Selector, error) {
	if ps == nil {
		return labels.Nothing(), nil
	}
	if len(ps.MatchLabels)+len(ps.MatchExpressions) == 0 {
		return labels.Everything(), nil
	}
	reqs := make([]labels.Requirement, 0, len(ps.MatchLabels)+len(ps.MatchExpressions))
	for k, v := range ps.MatchLabels {
		r, err := labels.NewRequirement(k, selection.Equals, []string{v})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, *r)
	}
	for _, expr := range ps.MatchExpressions {
		var op selection.Operator
		switch expr.Operator {
		case LabelSelectorOpIn:
			op = selection.In
		case LabelSelectorOpNotIn:
			op = selection.NotIn
		case LabelSelectorOpExists:
			op = selection.Exists
		case LabelSelectorOpDoesNotExist:
			op = selection.DoesNotExist
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", expr.Operator)
		}
		r, err := labels.NewRequirement(expr.Key, op, append([]string(nil), expr.Values...))
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, *r)
	}
	return labels.NewSelector().Add(reqs...), nil
}

// LabelSelectorAsMap converts a selector that only requires exact values
// (matchLabels, and In with one value) into a map; other operators are an
// error. A nil selector gives a nil map.
func LabelSelectorAsMap(ps *LabelSelector) (map[string]string, error) {
	if ps == nil {
		return nil, nil
	}
	out := maps.Clone(ps.MatchLabels)
	if out == nil {
		out = map[string]string{}
	}
	for _, expr := range ps.MatchExpressions {
		switch expr.Operator {
		case LabelSelectorOpIn:
			if len(expr.Values) != 1 {
				return out, fmt.Errorf("operator %q without a single value cannot be converted into the old label selector format", expr.Operator)
			}
			out[expr.Key] = expr.Values[0]
		case LabelSelectorOpNotIn, LabelSelectorOpExists, LabelSelectorOpDoesNotExist:
			return out, fmt.Errorf("operator %q cannot be converted into the old label selector format", expr.Operator)
		default:
			return out, fmt.Errorf("%q is not a valid selector operator", expr.Operator)
		}
	}
	return out, nil
}

// SetAsLabelSelector returns a selector whose matchLabels are a copy of ls;
// nil for a nil set.
func SetAsLabelSelector(ls labels.Set) *LabelSelector {
	if ls == nil {
		return nil
	}
	return &LabelSelector{MatchLabels: maps.Clone(map[string]string(ls))}
}

// FormatLabelSelector prints a selector as kubectl shows it: the canonical
// selector string, "<none>" when it selects everything (or is nil), and
// "<error>" when it is invalid.
func FormatLabelSelector(ps *LabelSelector) string {
	sel, err := LabelSelectorAsSelector(ps)
	if err != nil {
		return "<error>"
	}
	if s := sel.String(); s != "" {
		return s
	}
	return "<none>"
}

// ParseToLabelSelector parses selector syntax into the API form: equality
// terms become matchLabels, set terms matchExpressions. != and the numeric
// comparisons have no API form and are an error.
func ParseToLabelSelector(selector string) (*LabelSelector, error) {
	reqs, err := labels.ParseToRequirements(selector)
	if err != nil {
		return nil, fmt.Errorf("couldn't parse the selector string \"%s\": %w", selector, err)
	}
	ps := &LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []LabelSelectorRequirement{}}
	for _, r := range reqs {
		var op LabelSelectorOperator
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals:
			vals := r.Values()
			if len(vals) != 1 {
				return nil, fmt.Errorf("equals operator must have exactly one value")
			}
			ps.MatchLabels[r.Key()] = vals[0]
			continue
		case selection.In:
			op = LabelSelectorOpIn
		case selection.NotIn:
			op = LabelSelectorOpNotIn
		case selection.Exists:
			op = LabelSelectorOpExists
		case selection.DoesNotExist:
			op = LabelSelectorOpDoesNotExist
		case selection.GreaterThan, selection.LessThan:
			return nil, fmt.Errorf("%q isn't supported in label selectors", r.Operator())
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", r.Operator())
		}
		ps.MatchExpressions = append(ps.MatchExpressions, LabelSelectorRequirement{
			Key:      r.Key(),
			Operator: op,
			Values:   r.Values(),
		})
	}
	return ps, nil
}
