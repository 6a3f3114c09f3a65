package deployment

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// changeCauseAnnotation is the annotation kubectl reads for CHANGE-CAUSE.
const changeCauseAnnotation = "kubernetes.io/change-cause"

// lastAppliedAnnotation is kubectl apply's annotation, never copied to
// ReplicaSets.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// templateHash is the pod-template-hash of a template and collision count:
// an FNV-1a hash of the template's JSON, spelled in letters and digits
// that make no words.
func templateHash(t *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	b, _ := json.Marshal(t) // a template always encodes
	h.Write(b)
	if collisionCount != nil {
		h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	n := h.Sum32()
	var out []byte
	for {
		out = append(out, alphabet[n%uint32(len(alphabet))])
		n /= uint32(len(alphabet))
		if n == 0 {
			break
		}
	}
	return string(out)
}

// equalIgnoreHash reports whether two templates are the same but for the
// pod-template-hash label.
func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	strip := func(t *corev1.PodTemplateSpec) []byte {
		c := t.DeepCopy()
		delete(c.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		if len(c.Labels) == 0 {
			c.Labels = nil
		}
		out, _ := json.Marshal(c)
		return out
	}
	return bytes.Equal(strip(a), strip(b))
}

// revision is a ReplicaSet's (or Deployment's) revision annotation; 0 when
// missing or malformed.
func revision(obj metav1.Object) int64 {
	v, err := strconv.ParseInt(obj.GetAnnotations()[appsv1.RevisionAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		m = max(m, revision(rs))
	}
	return m
}

// resolveFenceposts turns maxSurge and maxUnavailable into numbers of pods
// for desired replicas: surge rounds up, unavailable down; both zero means
// one unavailable, so that a rollout can proceed.
func resolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (int32, int32, error) {
	zero := intstr.FromInt32(0)
	surge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, zero), int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, zero), int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int32(surge), int32(unavailable), nil
}

func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

func rollingParams(d *appsv1.Deployment) (surge, unavailable *intstr.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	def := intstr.FromString("25%")
	return &def, &def
}

// maxSurge is the number of pods a rolling update may run above the
// desired count; 0 for Recreate.
func maxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	surge, _, _ := resolveFenceposts(s, u, replicasOf(d.Spec.Replicas))
	return surge
}

// maxUnavailable is the number of desired pods that may be unavailable
// during a rolling update; 0 for Recreate or no replicas.
func maxUnavailable(d *appsv1.Deployment) int32 {
	replicas := replicasOf(d.Spec.Replicas)
	if !isRollingUpdate(d) || replicas == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, unavailable, _ := resolveFenceposts(s, u, replicas)
	return min(unavailable, replicas)
}

// Sums over ReplicaSets.
func sumReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += replicasOf(rs.Spec.Replicas)
		}
	}
	return n
}

// sumPods bounds the pods the ReplicaSets run: a ReplicaSet just scaled
// down may still run its old number of pods until its controller has seen
// them terminate and reported it in status.replicas.
func sumPods(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += max(replicasOf(rs.Spec.Replicas), rs.Status.Replicas)
		}
	}
	return n
}

func sumStatus(rss []*appsv1.ReplicaSet, f func(appsv1.ReplicaSetStatus) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(rs.Status)
		}
	}
	return n
}

func activeReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && replicasOf(rs.Spec.Replicas) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// byCreation sorts oldest first, by name on ties.
func byCreation(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool {
		a, b := rss[i], rss[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

// annotationInt reads an integer annotation of rs.
func annotationInt(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// setReplicasAnnotations records on rs the deployment size it was sized
// for; it reports whether anything changed.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	if rs.Annotations[appsv1.DesiredReplicasAnnotation] == d && rs.Annotations[appsv1.MaxReplicasAnnotation] == m {
		return false
	}
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[appsv1.DesiredReplicasAnnotation] = d
	rs.Annotations[appsv1.MaxReplicasAnnotation] = m
	return true
}

// skipCopy reports whether a Deployment annotation stays off its
// ReplicaSets.
func skipCopy(key string) bool {
	switch key {
	case lastAppliedAnnotation, appsv1.RevisionAnnotation, appsv1.RevisionHistoryAnnotation,
		appsv1.DesiredReplicasAnnotation, appsv1.MaxReplicasAnnotation, appsv1.DeprecatedRollbackTo:
		return true
	}
	return false
}

// setNewReplicaSetAnnotations copies d's annotations to rs and raises rs's
// revision to newRevision, keeping the old one in revision-history; it
// reports whether rs changed.
func setNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision int64, exists bool) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range d.Annotations {
		if skipCopy(k) {
			continue
		}
		if cur, ok := rs.Annotations[k]; !ok || cur != v {
			rs.Annotations[k] = v
			changed = true
		}
	}
	// A change-cause the Deployment no longer has goes from rs too, so that
	// a rollback without one does not show an old cause.
	if _, ok := d.Annotations[changeCauseAnnotation]; !ok {
		if _, had := rs.Annotations[changeCauseAnnotation]; had && exists {
			delete(rs.Annotations, changeCauseAnnotation)
			changed = true
		}
	}
	old := rs.Annotations[appsv1.RevisionAnnotation]
	if revision(rs) < newRevision {
		rs.Annotations[appsv1.RevisionAnnotation] = strconv.FormatInt(newRevision, 10)
		changed = true
		if old != "" {
			history := rs.Annotations[appsv1.RevisionHistoryAnnotation]
			if history == "" {
				history = old
			} else {
				history = strings.Join([]string{history, old}, ",")
			}
			rs.Annotations[appsv1.RevisionHistoryAnnotation] = history
		}
	}
	if !exists {
		replicas := replicasOf(d.Spec.Replicas)
		if setReplicasAnnotations(rs, replicas, replicas+maxSurge(d)) {
			changed = true
		}
	}
	return changed
}

// newRSReplicas is the size the new ReplicaSet may grow to now.
func newRSReplicas(d *appsv1.Deployment, all []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) int32 {
	replicas := replicasOf(d.Spec.Replicas)
	if !isRollingUpdate(d) {
		return replicas
	}
	current := replicasOf(newRS.Spec.Replicas)
	total := sumPods(all)
	maxTotal := replicas + maxSurge(d)
	if total >= maxTotal {
		return current
	}
	return current + min(maxTotal-total, replicas-current)
}

// findActiveOrLatest returns the only active ReplicaSet, or, with none
// active, the new one or the latest old one; nil with several active.
func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	active := activeReplicaSets(append(append([]*appsv1.ReplicaSet(nil), oldRSs...), newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		latest := append([]*appsv1.ReplicaSet(nil), oldRSs...)
		byCreation(latest)
		return latest[len(latest)-1]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated reports whether the new ReplicaSet runs every desired pod,
// all available.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := annotationInt(rs, appsv1.DesiredReplicasAnnotation)
	replicas := replicasOf(d.Spec.Replicas)
	return ok && desired == replicas && replicasOf(rs.Spec.Replicas) == replicas && rs.Status.AvailableReplicas == replicas
}

// proportion is how many replicas rs gets of toAdd (negative to remove),
// in proportion to its share of the size the deployment had, bounded by
// what is left to hand out.
func proportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rs == nil || toAdd == 0 {
		return 0
	}
	left := toAdd - added
	share := fraction(rs, d)
	if toAdd > 0 {
		return min(share, left)
	}
	return max(share, left)
}

func fraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	replicas := replicasOf(d.Spec.Replicas)
	if replicas == 0 {
		return -replicasOf(rs.Spec.Replicas)
	}
	target := replicas + maxSurge(d)
	was, ok := annotationInt(rs, appsv1.MaxReplicasAnnotation)
	if !ok || was == 0 {
		was = d.Status.Replicas
	}
	if was == 0 {
		return 0
	}
	size := float64(replicasOf(rs.Spec.Replicas)) * float64(target) / float64(was)
	return int32(math.Round(size)) - replicasOf(rs.Spec.Replicas)
}

// Conditions.

func newCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) appsv1.DeploymentCondition {
	ts := metav1.NewTime(now)
	return appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: ts, LastTransitionTime: ts, Reason: reason, Message: message}
}

func getCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition sets c, unless a condition of its type has the same status
// and reason; the transition time is kept while the status is the same.
func setCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := getCondition(st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

func removeCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	out := st.Conditions[:0:0]
	for _, c := range st.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = nil
	}
	st.Conditions = out
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// deploymentComplete reports whether every desired pod is updated and
// available and nothing older runs.
func deploymentComplete(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	r := replicasOf(d.Spec.Replicas)
	return st.UpdatedReplicas == r && st.Replicas == r && st.AvailableReplicas == r && st.ObservedGeneration >= d.Generation
}

// deploymentProgressing reports whether st shows progress over d.Status.
func deploymentProgressing(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut reports whether d made no progress for longer than
// its deadline.
func deploymentTimedOut(d *appsv1.Deployment, st *appsv1.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	c := getCondition(st, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == appsv1.NewRSAvailableReason {
		return false
	}
	if c.Reason == appsv1.TimedOutReason {
		return true
	}
	deadline := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(now)
}

// statusEqual compares statuses, conditions by type, status, reason and
// message.
func statusEqual(a, b *appsv1.DeploymentStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Replicas != b.Replicas || a.UpdatedReplicas != b.UpdatedReplicas ||
		a.ReadyReplicas != b.ReadyReplicas || a.AvailableReplicas != b.AvailableReplicas || a.UnavailableReplicas != b.UnavailableReplicas ||
		!ptrEqual(a.CollisionCount, b.CollisionCount) {
		return false
	}
	return slices.EqualFunc(a.Conditions, b.Conditions, func(x, y appsv1.DeploymentCondition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message
	})
}

func ptrEqual(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func cloneLabels(m map[string]string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	return out
}
