package flowcontrol

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/apis/flowcontrol/bootstrap"
)

func ptr[T any](v T) *T { return &v }

// queuedLevel is a Limited level that queues.
func queuedLevel(name string, shares, lendable, queues, hand, length int32) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(shares), LendablePercent: ptr(lendable),
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
				Queuing: &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: hand, QueueLengthLimit: length}}},
	}}
}

func rejectLevel(name string, shares int32) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(shares), LendablePercent: ptr(int32(0)),
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}},
	}}
}

func exemptLevel() *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "exempt"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementExempt, Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0))},
	}}
}

// userSchema sends the requests of users (all when none) to level,
// distinguished by user.
func userSchema(name, level string, precedence int32, users ...string) *flowcontrolv1.FlowSchema {
	subjects := []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: flowcontrolv1.NameAll}}}
	if len(users) > 0 {
		subjects = nil
		for _, u := range users {
			subjects = append(subjects, flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: u}})
		}
	}
	return &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}, Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
		MatchingPrecedence:         precedence,
		DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
		Rules: []flowcontrolv1.PolicyRulesWithSubjects{{Subjects: subjects, ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true, Namespaces: []string{"*"}}}}},
	}}
}

var podCreate = &apirequest.RequestInfo{IsResourceRequest: true, Verb: "create", Resource: "pods", Namespace: "default"}

func classify(t *testing.T, c *Controller, user string) *Classification {
	t.Helper()
	cl := c.Classify(&apirequest.UserInfo{Name: user, Groups: []string{"system:authenticated"}}, podCreate)
	if cl == nil {
		t.Fatalf("request of %s not classified", user)
	}
	return cl
}

// waitFor polls cond; there is no timing assertion, only a bound that
// fails a stuck test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func stats(t *testing.T, c *Controller, level string) Stats {
	t.Helper()
	s, ok := c.LevelStats(level)
	if !ok {
		t.Fatalf("no level %s", level)
	}
	return s
}

// admitted is one request admitted (or rejected) in the background.
type admitted struct {
	user     string
	release  func()
	rejected *Rejected
}

func admitAsync(c *Controller, cl *Classification, ctx context.Context, user string, out chan<- admitted) {
	go func() {
		release, rej := c.Admit(ctx, cl)
		out <- admitted{user: user, release: release, rejected: rej}
	}()
}

func TestSeatsFollowShares(t *testing.T) {
	c := New(Options{Seats: 600, QueueWait: time.Minute})
	levels := append(bootstrap.MandatoryPriorityLevelConfigurations(), bootstrap.SuggestedPriorityLevelConfigurations()...)
	c.Configure(nil, levels)
	// Σ shares = 0 + 5 + 30 + 40 + 10 + 40 + 100 + 20 = 245.
	for _, tc := range []struct {
		level             string
		nominal, lendable int
	}{
		{"catch-all", 13, 0},       // ceil(600*5/245)
		{"system", 74, 24},         // ceil(600*30/245), 33%
		{"node-high", 98, 25},      // ceil(600*40/245), 25%
		{"leader-election", 25, 0}, // ceil(600*10/245)
		{"workload-high", 98, 49},
		{"workload-low", 245, 221}, // 90%
		{"global-default", 49, 25},
	} {
		s := stats(t, c, tc.level)
		if s.Nominal != tc.nominal || s.Lendable != tc.lendable || s.Own != tc.nominal-tc.lendable {
			t.Errorf("%s: nominal %d lendable %d own %d, want %d %d %d", tc.level, s.Nominal, s.Lendable, s.Own, tc.nominal, tc.lendable, tc.nominal-tc.lendable)
		}
	}
}

func TestClassifyByPrecedenceSkippingDangling(t *testing.T) {
	c := New(Options{Seats: 10, QueueWait: time.Minute})
	c.Configure([]*flowcontrolv1.FlowSchema{
		userSchema("all", "low", 500),
		userSchema("dangling", "missing", 10, "alice"),
		userSchema("alice", "high", 100, "alice"),
	}, []*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("low", 1, 0, 4, 2, 10), queuedLevel("high", 1, 0, 4, 2, 10)})
	if cl := classify(t, c, "alice"); cl.FlowSchema.Name != "alice" || cl.PriorityLevel.Name != "high" || cl.Flow != "alice" {
		t.Errorf("alice: %s/%s flow %q, want alice/high flow alice", cl.FlowSchema.Name, cl.PriorityLevel.Name, cl.Flow)
	}
	if cl := classify(t, c, "bob"); cl.FlowSchema.Name != "all" || cl.PriorityLevel.Name != "low" {
		t.Errorf("bob: %s/%s, want all/low", cl.FlowSchema.Name, cl.PriorityLevel.Name)
	}
	if New(Options{Seats: 1}).Classify(&apirequest.UserInfo{Name: "x"}, podCreate) != nil {
		t.Error("an unconfigured controller classified a request")
	}
}

// twoFlows returns a controller with one seat and one queueing level of
// queues queues with a hand of 1, and two users whose flows land on
// different queues.
func twoFlows(t *testing.T, queues, length int32, wait time.Duration) (*Controller, string, string) {
	t.Helper()
	c := New(Options{Seats: 1, QueueWait: wait})
	c.Configure([]*flowcontrolv1.FlowSchema{userSchema("all", "only", 100)},
		[]*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("only", 1, 0, queues, 1, length)})
	a := "flooder"
	for i := range 100 {
		b := fmt.Sprintf("user-%d", i)
		if flowHash("all", a)%uint64(queues) != flowHash("all", b)%uint64(queues) {
			return c, a, b
		}
	}
	t.Fatal("no second user on another queue")
	return nil, "", ""
}

// TestFairnessBetweenFlows: with one seat, a flow that queued ten
// requests and one that queued three afterwards are served in turns, not
// in arrival order.
func TestFairnessBetweenFlows(t *testing.T) {
	c, a, b := twoFlows(t, 16, 50, time.Hour)
	ctx := context.Background()
	hold, rej := c.Admit(ctx, classify(t, c, a))
	if rej != nil {
		t.Fatalf("first request rejected: %v", rej)
	}
	out := make(chan admitted, 20)
	for i := range 10 {
		admitAsync(c, classify(t, c, a), ctx, a, out)
		waitFor(t, "queued", func() bool { return stats(t, c, "only").Waiting == i+1 })
	}
	for i := range 3 {
		admitAsync(c, classify(t, c, b), ctx, b, out)
		waitFor(t, "queued", func() bool { return stats(t, c, "only").Waiting == 11+i })
	}
	hold()
	var order []string
	for range 13 {
		r := <-out
		if r.rejected != nil {
			t.Fatalf("rejected: %v", r.rejected)
		}
		order = append(order, r.user)
		if s := stats(t, c, "only"); s.Executing != 1 {
			t.Fatalf("%d executing with one seat", s.Executing)
		}
		r.release()
	}
	// Round robin over the two queues: the three of b are among the
	// first six served.
	served := 0
	for _, u := range order[:6] {
		if u == b {
			served++
		}
	}
	if served != 3 {
		t.Errorf("order %v: %d of %s's requests among the first six, want 3", order, served, b)
	}
}

// TestShedding: a full queue rejects at once (queue-full); a request that
// waits past the queue wait limit is rejected (time-out); one whose
// client leaves is rejected (cancelled); all are counted.
func TestShedding(t *testing.T) {
	c, a, b := twoFlows(t, 16, 2, time.Hour)
	ctx := context.Background()
	hold, _ := c.Admit(ctx, classify(t, c, a))
	out := make(chan admitted, 10)
	for i := range 2 {
		admitAsync(c, classify(t, c, a), ctx, a, out)
		waitFor(t, "queued", func() bool { return stats(t, c, "only").Waiting == i+1 })
	}
	if _, rej := c.Admit(ctx, classify(t, c, a)); rej == nil || rej.Reason != ReasonQueueFull {
		t.Errorf("third queued request of a full queue: %v, want %s", rej, ReasonQueueFull)
	}
	cctx, cancel := context.WithCancel(ctx)
	admitAsync(c, classify(t, c, b), cctx, b, out)
	waitFor(t, "queued", func() bool { return stats(t, c, "only").Waiting == 3 })
	cancel()
	if r := <-out; r.rejected == nil || r.rejected.Reason != ReasonCancelled {
		t.Errorf("cancelled request: %+v, want %s", r, ReasonCancelled)
	}
	hold()
	for range 2 {
		r := <-out
		if r.rejected != nil {
			t.Fatalf("queued request rejected: %v", r.rejected)
		}
		r.release()
	}
	if s := stats(t, c, "only"); s.Executing != 0 || s.Waiting != 0 {
		t.Errorf("left %+v", s)
	}

	// The queue wait limit: the seat never frees.
	c2, a2, _ := twoFlows(t, 16, 10, 20*time.Millisecond)
	hold2, _ := c2.Admit(ctx, classify(t, c2, a2))
	defer hold2()
	if _, rej := c2.Admit(ctx, classify(t, c2, a2)); rej == nil || rej.Reason != ReasonTimeout {
		t.Errorf("request past the queue wait limit: %v, want %s", rej, ReasonTimeout)
	}
	if s := stats(t, c2, "only"); s.Waiting != 0 {
		t.Errorf("timed-out request still queued: %+v", s)
	}
}

// TestRejectAndExempt: a Reject level answers at once when full; the
// exempt level is never limited.
func TestRejectAndExempt(t *testing.T) {
	c := New(Options{Seats: 2, QueueWait: time.Hour})
	c.Configure([]*flowcontrolv1.FlowSchema{userSchema("admin", "exempt", 1, "admin"), userSchema("all", "catch-all", 100)},
		[]*flowcontrolv1.PriorityLevelConfiguration{exemptLevel(), rejectLevel("catch-all", 1)})
	ctx := context.Background()
	var releases []func()
	for range 2 {
		r, rej := c.Admit(ctx, classify(t, c, "bob"))
		if rej != nil {
			t.Fatalf("within the limit: %v", rej)
		}
		releases = append(releases, r)
	}
	if _, rej := c.Admit(ctx, classify(t, c, "bob")); rej == nil || rej.Reason != ReasonConcurrencyLimit {
		t.Errorf("beyond a Reject level's seats: %v, want %s", rej, ReasonConcurrencyLimit)
	}
	for range 100 {
		r, rej := c.Admit(ctx, classify(t, c, "admin"))
		if rej != nil {
			t.Fatalf("exempt request rejected: %v", rej)
		}
		releases = append(releases, r)
	}
	for _, r := range releases {
		r()
	}
}

// TestLendingKeepsUnlendableSeats: a level that lends everything it can
// floods the pool; a level that lends nothing still has all its seats.
func TestLendingKeepsUnlendableSeats(t *testing.T) {
	c := New(Options{Seats: 20, QueueWait: time.Hour})
	c.Configure([]*flowcontrolv1.FlowSchema{userSchema("leases", "leader-election", 10, "scheduler"), userSchema("all", "workload-low", 100)},
		[]*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("leader-election", 5, 0, 4, 2, 10), queuedLevel("workload-low", 5, 50, 64, 6, 50), queuedLevel("idle", 10, 100, 4, 2, 10)})
	// Nominal: 5, 5, 10; pool: 0 + 3 (round(2.5)) + 10.
	ctx := context.Background()
	var releases []func()
	for range 15 {
		r, rej := c.Admit(ctx, classify(t, c, "flooder"))
		if rej != nil {
			t.Fatalf("workload-low request rejected: %v", rej)
		}
		releases = append(releases, r)
	}
	if s := stats(t, c, "workload-low"); s.Executing != 15 || s.Borrowed != 13 {
		t.Errorf("workload-low: %+v, want 15 executing, 13 of them borrowed", s)
	}
	out := make(chan admitted, 1)
	admitAsync(c, classify(t, c, "flooder"), ctx, "flooder", out)
	waitFor(t, "queued", func() bool { return stats(t, c, "workload-low").Waiting == 1 })
	for range 5 {
		r, rej := c.Admit(ctx, classify(t, c, "scheduler"))
		if rej != nil {
			t.Fatalf("leader-election request rejected: %v", rej)
		}
		releases = append(releases, r)
	}
	releases[0]()
	r := <-out
	if r.rejected != nil {
		t.Fatal(r.rejected)
	}
	releases[0] = r.release
	for _, r := range releases {
		r()
	}
	for _, l := range []string{"workload-low", "leader-election"} {
		if s := stats(t, c, l); s.Executing != 0 || s.Borrowed != 0 || s.Waiting != 0 {
			t.Errorf("%s left %+v", l, s)
		}
	}
}

// TestReconfigure: new shares take effect at once and let queued
// requests go; a removed level keeps its requests until they end.
func TestReconfigure(t *testing.T) {
	c := New(Options{Seats: 4, QueueWait: time.Hour})
	schemas := []*flowcontrolv1.FlowSchema{userSchema("all", "a", 100)}
	c.Configure(schemas, []*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("a", 1, 0, 8, 2, 50), queuedLevel("b", 3, 0, 8, 2, 50)})
	ctx := context.Background()
	hold, _ := c.Admit(ctx, classify(t, c, "u"))
	out := make(chan admitted, 3)
	for i := range 3 {
		admitAsync(c, classify(t, c, "u"), ctx, "u", out)
		waitFor(t, "queued", func() bool { return stats(t, c, "a").Waiting == i+1 })
	}
	// b is gone: a has every seat.
	c.Configure(schemas, []*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("a", 1, 0, 4, 2, 50)})
	releases := []func(){hold}
	for range 3 {
		r := <-out
		if r.rejected != nil {
			t.Fatal(r.rejected)
		}
		releases = append(releases, r.release)
	}
	if s := stats(t, c, "a"); s.Nominal != 4 || s.Executing != 4 {
		t.Errorf("after the change: %+v, want 4 nominal, 4 executing", s)
	}
	// Now the schema moves to c and a is removed while busy.
	c.Configure([]*flowcontrolv1.FlowSchema{userSchema("all", "c", 100)}, []*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("c", 1, 0, 4, 2, 50)})
	if _, ok := c.LevelStats("a"); !ok {
		t.Fatal("a busy level was forgotten")
	}
	if cl := classify(t, c, "u"); cl.PriorityLevel.Name != "c" {
		t.Errorf("classified to %s, want c", cl.PriorityLevel.Name)
	}
	for _, r := range releases {
		r()
	}
	if _, ok := c.LevelStats("a"); ok {
		t.Error("a removed level outlived its requests")
	}
}

// TestConcurrentAdmitsNeverExceedSeats: many flows at once; the seats are
// never exceeded and every request is served or rejected.
func TestConcurrentAdmitsNeverExceedSeats(t *testing.T) {
	c := New(Options{Seats: 3, QueueWait: time.Hour})
	c.Configure([]*flowcontrolv1.FlowSchema{userSchema("all", "only", 100)},
		[]*flowcontrolv1.PriorityLevelConfiguration{queuedLevel("only", 1, 0, 8, 3, 1000)})
	var (
		mu       sync.Mutex
		running  int
		maxSeen  int
		wg       sync.WaitGroup
		served   int
		rejected int
	)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, rej := c.Admit(context.Background(), classify(t, c, fmt.Sprintf("u%d", i%7)))
			mu.Lock()
			if rej != nil {
				rejected++
				mu.Unlock()
				return
			}
			running++
			served++
			maxSeen = max(maxSeen, running)
			mu.Unlock()
			mu.Lock()
			running--
			mu.Unlock()
			release()
		}()
	}
	wg.Wait()
	if maxSeen > 3 || served+rejected != 200 || rejected != 0 {
		t.Errorf("max %d running of 3 seats, %d served, %d rejected", maxSeen, served, rejected)
	}
}

func TestShuffleShardingDealsDistinctQueues(t *testing.T) {
	l := &level{}
	l.configure(queuedLevel("x", 1, 0, 8, 8, 10), 1)
	seen := map[*queue]bool{}
	for range 8 {
		q := l.choose(12345)
		if seen[q] {
			t.Fatal("a hand of 8 of 8 queues dealt a queue twice")
		}
		seen[q] = true
		// Fill it so that the next deal picks another.
		q.waiters = append(q.waiters, &waiter{})
	}
}

// TestStoragePriority: the exempt and leader-election levels' writes go
// first, node-high's next, the others' last.
func TestStoragePriority(t *testing.T) {
	c := New(Options{Seats: 10})
	c.Configure([]*flowcontrolv1.FlowSchema{
		userSchema("admin", "exempt", 1, "admin"),
		userSchema("leaders", "leader-election", 2, "system:kube-scheduler"),
		userSchema("nodes", "node-high", 3, "system:node:n1"),
		userSchema("all", "workload-low", 100),
	}, []*flowcontrolv1.PriorityLevelConfiguration{exemptLevel(), rejectLevel("leader-election", 1),
		rejectLevel("node-high", 1), rejectLevel("workload-low", 1)})
	for user, want := range map[string]apirequest.Priority{"admin": apirequest.PriorityLeader,
		"system:kube-scheduler": apirequest.PriorityLeader, "system:node:n1": apirequest.PriorityNode, "bob": apirequest.PriorityNormal} {
		if got := classify(t, c, user).StoragePriority(); got != want {
			t.Errorf("%s: StoragePriority() = %v, want %v", user, got, want)
		}
	}
}
