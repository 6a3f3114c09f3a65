package replicaset

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/replicaset"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestPermanentFailureBacksOff gives a ReplicaSet a template that admission
// always refuses (a PriorityClass that does not exist): the controller
// reports it with a FailedCreate Event and a ReplicaFailure condition, and
// retries with a growing back-off rather than hot-looping.
func TestPermanentFailureBacksOff(t *testing.T) {
	ctx, client, _, ns := setup(t, true)
	ctx, cancel := context.WithCancel(ctx)
	factory := informers.NewSharedInformerFactory(client)
	broadcaster := record.NewBroadcaster(ctx, record.ClientSink(func(ns string) record.EventClient { return client.CoreV1().Events(ns) }), record.Options{})
	scheme, err := typed.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := replicaset.New(client, factory, replicaset.Options{Recorder: broadcaster.NewRecorder(scheme, corev1.EventSource{Component: "replicaset-controller"})})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.Run(ctx, 2); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait(); factory.Shutdown() })

	rs := newRS(ns, "doomed", 3)
	rs.Spec.Template.Spec.PriorityClassName = "no-such-class"
	if _, err := client.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cond *appsv1.ReplicaSetCondition
	framework.WaitFor(t, 20*time.Second, "the ReplicaFailure condition", func() (bool, error) {
		got, err := client.AppsV1().ReplicaSets(ns).Get(ctx, "doomed", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == appsv1.ReplicaSetReplicaFailure {
				cond = &got.Status.Conditions[i]
			}
		}
		return cond != nil, nil
	})
	if cond.Status != corev1.ConditionTrue || cond.Reason != "FailedCreate" || !strings.Contains(cond.Message, "no PriorityClass with name no-such-class was found") {
		t.Errorf("condition %+v, want True FailedCreate naming the missing class", cond)
	}
	framework.WaitFor(t, 20*time.Second, "a FailedCreate event", func() (bool, error) {
		list, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, ev := range list.Items {
			if ev.InvolvedObject.Name == "doomed" && ev.Reason == "FailedCreate" && ev.Type == corev1.EventTypeWarning &&
				strings.Contains(ev.Message, "no PriorityClass with name no-such-class was found") {
				return true, nil
			}
		}
		return false, nil
	})

	// Exponential back-off from 5 ms: about 11 retries in the first 8 s,
	// then one every several seconds. A hot loop would make thousands.
	time.Sleep(4 * time.Second)
	early := c.Runner().Errors()
	time.Sleep(4 * time.Second)
	late := c.Runner().Errors()
	t.Logf("failed syncs: %d in the first ~4s, %d in the next 4s", early, late-early)
	if early > 20 {
		t.Errorf("%d failed syncs in about 4s: not backing off", early)
	}
	if late-early > 3 {
		t.Errorf("%d failed syncs between 4s and 8s: the back-off does not grow", late-early)
	}
	if late == 0 {
		t.Error("no failed sync counted")
	}
	// Each sync stops at the first refused create (slow start).
	list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d pods exist, want none", len(list.Items))
	}
}
