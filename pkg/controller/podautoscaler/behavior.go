package podautoscaler

import (
	"math"
	"time"

	autoscalingv2 "kubecore.io/api/autoscaling/v2"
)

// The default behavior of autoscaling/v2: scale up at once, by the larger
// of 4 pods or 100% per 15 s; scale down after a 300 s window, by up to
// 100% per 15 s.
const (
	DefaultScaleDownStabilization = 300 * time.Second
	defaultPolicyPeriod           = 15
)

func defaultScaleUp() autoscalingv2.HPAScalingRules {
	zero, sel := int32(0), autoscalingv2.MaxChangePolicySelect
	return autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &zero, SelectPolicy: &sel, Policies: []autoscalingv2.HPAScalingPolicy{
		{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: defaultPolicyPeriod},
		{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: defaultPolicyPeriod},
	}}
}

func defaultScaleDown(window time.Duration) autoscalingv2.HPAScalingRules {
	w, sel := int32(window/time.Second), autoscalingv2.MaxChangePolicySelect
	return autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &w, SelectPolicy: &sel, Policies: []autoscalingv2.HPAScalingPolicy{
		{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: defaultPolicyPeriod},
	}}
}

// rules fills the unset parts of the HPA's rules of one direction from
// the defaults.
func rules(set *autoscalingv2.HPAScalingRules, def autoscalingv2.HPAScalingRules) autoscalingv2.HPAScalingRules {
	if set == nil {
		return def
	}
	out := *set
	if out.StabilizationWindowSeconds == nil {
		out.StabilizationWindowSeconds = def.StabilizationWindowSeconds
	}
	if out.SelectPolicy == nil {
		out.SelectPolicy = def.SelectPolicy
	}
	if len(out.Policies) == 0 {
		out.Policies = def.Policies
	}
	return out
}

// recommendation is a past desired replica count.
type recommendation struct {
	at       time.Time
	replicas int32
}

// scaleEvent is a past change of the target's replicas.
type scaleEvent struct {
	at     time.Time
	change int32 // positive up, negative down
}

// stabilize returns the replicas after the stabilization windows: the
// lowest recommendation of the up window and the highest of the down
// window bound the change from current, so that a scale down waits for
// every recommendation of its window to agree. The stabilized reason is
// "" when the desired count passed unchanged.
func stabilize(now time.Time, current, desired int32, history []recommendation, upWindow, downWindow time.Duration) (int32, string) {
	up, down := desired, desired
	for _, r := range history {
		if r.at.After(now.Add(-upWindow)) {
			up = min(up, r.replicas)
		}
		if r.at.After(now.Add(-downWindow)) {
			down = max(down, r.replicas)
		}
	}
	out := max(current, up)
	out = min(out, down)
	switch {
	case out == desired:
		return out, ""
	case desired < current:
		return out, "ScaleDownStabilized"
	default:
		return out, "ScaleUpStabilized"
	}
}

// limitChange bounds the change from current by the direction's
// policies: each allows a change relative to the replicas at the start of
// its period (current minus the changes made since); selectPolicy Max
// takes the policy allowing the most change, Min the least, Disabled
// none.
func limitChange(now time.Time, current, desired int32, r autoscalingv2.HPAScalingRules, events []scaleEvent) int32 {
	sel := autoscalingv2.MaxChangePolicySelect
	if r.SelectPolicy != nil {
		sel = *r.SelectPolicy
	}
	if sel == autoscalingv2.DisabledPolicySelect {
		return current
	}
	up := desired > current
	var limit int32
	first := true
	for _, p := range r.Policies {
		var changed int32
		for _, e := range events {
			if e.at.After(now.Add(-time.Duration(p.PeriodSeconds) * time.Second)) {
				if up && e.change > 0 {
					changed += e.change
				} else if !up && e.change < 0 {
					changed -= e.change
				}
			}
		}
		var l int32
		if up {
			start := current - changed
			switch p.Type {
			case autoscalingv2.PodsScalingPolicy:
				l = start + p.Value
			default:
				l = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
			}
		} else {
			start := current + changed
			switch p.Type {
			case autoscalingv2.PodsScalingPolicy:
				l = start - p.Value
			default:
				l = int32(math.Ceil(float64(start) * (1 - float64(p.Value)/100)))
			}
		}
		// Max change: the highest limit up, the lowest down.
		mostChange := (up && sel == autoscalingv2.MaxChangePolicySelect) || (!up && sel == autoscalingv2.MinChangePolicySelect)
		switch {
		case first:
			limit, first = l, false
		case mostChange:
			limit = max(limit, l)
		default:
			limit = min(limit, l)
		}
	}
	if first {
		return desired
	}
	if up {
		return max(min(desired, limit), current)
	}
	return min(max(desired, limit), current)
}
