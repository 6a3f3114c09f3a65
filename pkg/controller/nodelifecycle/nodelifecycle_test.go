package nodelifecycle

import (
	"fmt"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/record"
)

func node(ready corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Taints: taints}}
	if ready != "" {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady"}}
	}
	return n
}

func taintNames(ts []corev1.Taint) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ToString())
	}
	return fmt.Sprint(out)
}

func TestDesiredTaints(t *testing.T) {
	now := time.Unix(1000, 0)
	old := metav1.NewTime(time.Unix(500, 0))
	custom := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}
	oldUnreachable := unreachableNoExecute
	oldUnreachable.TimeAdded = &old
	tests := []struct {
		name string
		node *corev1.Node
		mode noExecuteMode
		want string
	}{
		{"ready keeps others only", node(corev1.ConditionTrue, custom, notReadyNoSched, oldUnreachable), noExecuteAdd, "[dedicated=db:NoSchedule]"},
		{"not ready", node(corev1.ConditionFalse, custom), noExecuteAdd, "[dedicated=db:NoSchedule node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/not-ready:NoExecute]"},
		{"unknown", node(corev1.ConditionUnknown), noExecuteAdd, "[node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute]"},
		{"never reported", node(""), noExecuteAdd, "[node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute]"},
		{"rate limited adds no NoExecute", node(corev1.ConditionUnknown), noExecuteKeep, "[node.kubernetes.io/unreachable:NoSchedule]"},
		{"rate limited keeps an existing one", node(corev1.ConditionUnknown, oldUnreachable), noExecuteKeep, "[node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute]"},
		{"full disruption removes it", node(corev1.ConditionUnknown, oldUnreachable), noExecuteNone, "[node.kubernetes.io/unreachable:NoSchedule]"},
		{"not ready replaces unreachable", node(corev1.ConditionFalse, oldUnreachable), noExecuteAdd, "[node.kubernetes.io/not-ready:NoSchedule node.kubernetes.io/not-ready:NoExecute]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := desiredTaints(tt.node, tt.mode, now)
			if taintNames(got) != tt.want {
				t.Errorf("taints %s, want %s", taintNames(got), tt.want)
			}
			for _, ta := range got {
				if ta.Effect != corev1.TaintEffectNoExecute {
					continue
				}
				wantAdded := now
				if ta.MatchTaint(&oldUnreachable) && len(tt.node.Spec.Taints) > 0 {
					wantAdded = old.Time
				}
				if ta.TimeAdded == nil || !ta.TimeAdded.Time.Equal(wantAdded) {
					t.Errorf("%s timeAdded %v, want %v", ta.ToString(), ta.TimeAdded, wantAdded)
				}
			}
		})
	}
}

func TestMarkUnknown(t *testing.T) {
	now := time.Unix(1000, 0)
	n := node(corev1.ConditionTrue)
	if !markUnknown(n, now) {
		t.Fatal("no change reported")
	}
	rc := readyCondition(n)
	if rc.Status != corev1.ConditionUnknown || rc.Reason != "NodeStatusUnknown" || rc.Message != "Kubelet stopped posting node status." || !rc.LastTransitionTime.Time.Equal(now) {
		t.Errorf("ready condition %+v", rc)
	}
	if len(n.Status.Conditions) != 4 {
		t.Errorf("%d conditions, want Ready and the three pressures", len(n.Status.Conditions))
	}
	for _, c := range n.Status.Conditions[1:] {
		if c.Reason != "NodeStatusNeverUpdated" || c.Message != "Kubelet never posted node status." {
			t.Errorf("condition %+v", c)
		}
	}
	if markUnknown(n, now.Add(time.Second)) {
		t.Error("marking twice reported a change")
	}
}

func TestEvictionDelay(t *testing.T) {
	now := time.Unix(1000, 0)
	added := metav1.NewTime(now.Add(-3 * time.Second))
	taint := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}
	noSched := corev1.Taint{Key: "x", Effect: corev1.TaintEffectNoSchedule}
	tol := func(seconds *int64) corev1.Toleration {
		return corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	s := func(n int64) *int64 { return &n }
	tests := []struct {
		name   string
		taints []corev1.Taint
		tols   []corev1.Toleration
		delay  time.Duration
		evict  bool
	}{
		{"no NoExecute taint", []corev1.Taint{noSched}, nil, 0, false},
		{"not tolerated", []corev1.Taint{taint}, nil, 0, true},
		{"tolerated forever", []corev1.Taint{taint}, []corev1.Toleration{tol(nil)}, 0, false},
		{"tolerated 10s, 3s gone", []corev1.Taint{taint}, []corev1.Toleration{tol(s(10))}, 7 * time.Second, true},
		{"tolerated 2s, 3s gone", []corev1.Taint{taint}, []corev1.Toleration{tol(s(2))}, 0, true},
		{"shortest finite wins", []corev1.Taint{taint}, []corev1.Toleration{tol(nil), tol(s(20)), tol(s(10))}, 7 * time.Second, true},
		{"negative counts as zero", []corev1.Taint{taint}, []corev1.Toleration{tol(s(-5))}, 0, true},
	}
	for _, tt := range tests {
		p := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.tols}}
		delay, evict := evictionDelay(p, tt.taints, now)
		if delay != tt.delay || evict != tt.evict {
			t.Errorf("%s: evictionDelay = %v, %v; want %v, %v", tt.name, delay, evict, tt.delay, tt.evict)
		}
	}
}

func TestDisruptionAndRate(t *testing.T) {
	many := func(ready, notReady int) []*corev1.Node {
		var out []*corev1.Node
		for range ready {
			out = append(out, node(corev1.ConditionTrue))
		}
		for range notReady {
			out = append(out, node(corev1.ConditionUnknown))
		}
		return out
	}
	c := &Controller{recorder: record.OrDiscard(nil), opts: Options{EvictionRate: 0.1, SecondaryEvictionRate: 0.01}}
	tests := []struct {
		ready, notReady int
		want            disruption
		rate            float64
	}{
		{0, 0, disruptionNone, 0.1},
		{5, 1, disruptionNone, 0.1},
		{1, 2, disruptionNone, 0.1}, // fewer than three down
		{2, 3, disruptionPartial, 0},
		{40, 60, disruptionPartial, 0.01},
		{0, 2, disruptionFull, 0},
	}
	for _, tt := range tests {
		nodes := many(tt.ready, tt.notReady)
		d := disruptionOf(nodes)
		if d != tt.want || c.evictionRate(d, len(nodes)) != tt.rate {
			t.Errorf("%d ready, %d not: disruption %v rate %v, want %v %v", tt.ready, tt.notReady, d, c.evictionRate(d, len(nodes)), tt.want, tt.rate)
		}
	}
}

func TestLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := &limiter{qps: 2}
	if ok, _ := l.allow(now); !ok {
		t.Fatal("first action refused")
	}
	if ok, wait := l.allow(now.Add(100 * time.Millisecond)); ok || wait != 400*time.Millisecond {
		t.Errorf("second action at once: ok %v wait %v, want a 400ms wait", ok, wait)
	}
	if ok, _ := l.allow(now.Add(500 * time.Millisecond)); !ok {
		t.Error("action after 1/qps refused")
	}
	l.setQPS(0)
	if ok, _ := l.allow(now.Add(time.Hour)); ok {
		t.Error("qps 0 let an action through")
	}
}
