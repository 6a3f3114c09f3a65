package fieldmanager

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// shapeOf is obj's shape key for f.
func shapeOf(t *testing.T, f *FieldManager, obj runtime.Object) string {
	t.Helper()
	w := &shapeWriter{}
	if !w.shapeKey(obj, f.emptyShape) {
		t.Fatalf("no shape key for %#v", obj)
	}
	return string(w.buf)
}

// TestShapeCacheTemplatePods: pods of one template that differ only in
// values no field set records (names, uid, times, label and annotation
// values, node) share one cached shape, and every create records what the
// Compare path records.
func TestShapeCacheTemplatePods(t *testing.T) {
	c := newClock()
	f := podManagerFor(t, c)
	for i := range 40 {
		text := fmt.Sprintf(`{"metadata":{"name":"web-%d","generateName":"web-","namespace":"ns%d","uid":"u-%d",
			"resourceVersion":"%d","creationTimestamp":"2026-11-27T10:00:%02dZ",
			"labels":{"app":"web","hash":"h%d"},"annotations":{"seen":"%d"},
			"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"rs-1","controller":true}]},
			"spec":{"nodeName":"node-%d","hostname":"h%d","priority":%d,"terminationGracePeriodSeconds":%d,
			"containers":[{"name":"app","image":"nginx","ports":[{"containerPort":80}],
			"resources":{"requests":{"cpu":"100m"}},"readinessProbe":{"httpGet":{"port":8080}}}]},
			"status":{"phase":"Pending","podIP":"10.0.0.%d"}}`, i, i%3, i, i, i%60, i%2, i, i, i, 1+i, 10+i, i)
		sameCreate(t, f, typedFrom(t, text, &corev1.Pod{}), fmt.Sprintf("pod %d", i))
	}
	if n := f.shapes.len(); n != 1 {
		t.Fatalf("%d shapes cached for pods of one template, want 1", n)
	}
}

// TestShapeKeyDistinguishes: objects whose field sets may differ have
// different shape keys: list keys and set members, presence, null against
// empty, the kind of a scalar, a value where the empty object has one.
func TestShapeKeyDistinguishes(t *testing.T) {
	c := newClock()
	f := podManagerFor(t, c)
	pairs := [][2]string{
		{`{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"name":"b"}]}}`},
		{`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}}`, `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":81}]}]}}`},
		{`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}`, `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"UDP"}]}]}}`},
		{`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`, `{"spec":{"containers":[{"name":"a"},{"name":"a"}]}}`},
		{`{"metadata":{"finalizers":["x","y"]}}`, `{"metadata":{"finalizers":["x","x"]}}`},
		{`{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"b":"1"}}}`},
		{`{"spec":{"containers":null}}`, `{"spec":{"containers":[]}}`},
		{`{"spec":{"containers":[]}}`, `{"spec":{}}`},
		{`{"spec":{"containers":[{"name":"a","args":["x"]}]}}`, `{"spec":{"containers":[{"name":"a","args":["y"]}]}}`},
		{`{"spec":{"containers":[{"name":"a","readinessProbe":{"httpGet":{"port":8080}}}]}}`, `{"spec":{"containers":[{"name":"a","readinessProbe":{"httpGet":{"port":"http"}}}]}}`},
		{`{"spec":{"securityContext":{}}}`, `{"spec":{}}`},
		{`{"spec":{"hostNetwork":true}}`, `{"spec":{}}`},
		{`{"metadata":{"creationTimestamp":"2026-11-27T10:00:00Z"}}`, `{"metadata":{}}`},
		{`{"metadata":{"ownerReferences":[{"uid":"1","name":"n","kind":"K","apiVersion":"v1"}]}}`, `{"metadata":{"ownerReferences":[{"uid":"2","name":"n","kind":"K","apiVersion":"v1"}]}}`},
	}
	for i, p := range pairs {
		a := shapeOf(t, f, typedFrom(t, p[0], &corev1.Pod{})())
		b := shapeOf(t, f, typedFrom(t, p[1], &corev1.Pod{})())
		if a == b {
			t.Errorf("pair %d: %s and %s share a shape key", i, p[0], p[1])
		}
	}
	same := [][2]string{
		{`{"metadata":{"name":"a","labels":{"x":"1","y":"2"}}}`, `{"metadata":{"name":"b","labels":{"y":"3","x":"4"}}}`},
		{`{"spec":{"nodeName":"a","priority":1}}`, `{"spec":{"nodeName":"b","priority":2}}`},
		{`{"metadata":{"creationTimestamp":"2026-11-27T10:00:00Z"}}`, `{"metadata":{"creationTimestamp":"2026-11-28T11:00:00Z"}}`},
	}
	for i, p := range same {
		a := shapeOf(t, f, typedFrom(t, p[0], &corev1.Pod{})())
		b := shapeOf(t, f, typedFrom(t, p[1], &corev1.Pod{})())
		if a != b {
			t.Errorf("same %d: %s and %s have different shape keys", i, p[0], p[1])
		}
	}
}

// TestShapeCacheRandom: random pods and Deployments whose structure comes
// from small sets while their values outside lists (names, label and
// annotation values, times, numbers, booleans) vary widely, so that most
// creates are cache hits on objects with other values, are created
// through one FieldManager with its cache and each records exactly what
// the Compare path records.
func TestShapeCacheRandom(t *testing.T) {
	c := newClock()
	pf := podManagerFor(t, c)
	df := deploymentManager(t, c, "", fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	r := rand.New(rand.NewPCG(3, 4))
	const n = 300
	podShapes, deploymentShapes := map[string]bool{}, map[string]bool{}
	for range n {
		pod := map[string]any{"metadata": randomMeta(r), "spec": randomPodSpec(r)}
		put(pod, "status", pick(r, absent, map[string]any{}, map[string]any{"phase": word(r), "podIP": word(r)}))
		data, _ := json.Marshal(pod)
		obj := typedFrom(t, string(data), &corev1.Pod{})
		sameCreate(t, pf, obj, "pod "+string(data))
		podShapes[shapeOf(t, pf, obj())] = true

		spec := map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": word(r)}},
			"template": map[string]any{"metadata": randomMeta(r), "spec": randomPodSpec(r)},
		}
		spec["replicas"] = r.IntN(100)
		put(spec, "strategy", pick(r, absent, map[string]any{"rollingUpdate": map[string]any{"maxSurge": pick(r, r.IntN(9), word(r))}}))
		d := map[string]any{"metadata": randomMeta(r), "spec": spec}
		data, _ = json.Marshal(d)
		obj = typedFrom(t, string(data), &appsv1.Deployment{})
		sameCreate(t, df, obj, "deployment "+string(data))
		deploymentShapes[shapeOf(t, df, obj())] = true
	}
	np, nd := len(podShapes), len(deploymentShapes)
	if np > n/4 || nd > n/4 {
		t.Fatalf("%d pod and %d deployment shapes for %d objects each: too few cache hits to prove anything", np, nd, n)
	}
	t.Logf("%d pod and %d deployment shapes for %d objects each", np, nd, n)
}

// word is a random value from a large set.
func word(r *rand.Rand) string { return fmt.Sprintf("w%d", r.IntN(1000)) }

func randomMeta(r *rand.Rand) map[string]any {
	m := map[string]any{
		"name":              word(r),
		"annotations":       map[string]any{"n": word(r)},
		"creationTimestamp": fmt.Sprintf("2026-11-27T10:%02d:%02dZ", r.IntN(60), r.IntN(60)),
	}
	put(m, "labels", pick(r, absent, map[string]any{"app": word(r)}))
	return m
}

// containerSets are the few container lists pods are made of: their
// values are the list items' keys and are recorded in the shape.
var containerSets = []string{
	`[{"name":"a","image":"i"}]`,
	`[{"name":"a","image":"i","ports":[{"containerPort":80}],"readinessProbe":{"httpGet":{"port":"http"},"periodSeconds":5},"resources":{"requests":{"cpu":"100m"}}}]`,
	`[{"name":"a","env":[{"name":"E","value":"1"}]},{"name":"b","ports":[{"containerPort":81,"protocol":"UDP"}]}]`,
}

func randomPodSpec(r *rand.Rand) map[string]any {
	var cs any
	if err := json.Unmarshal([]byte(containerSets[r.IntN(len(containerSets))]), &cs); err != nil {
		panic(err)
	}
	return map[string]any{
		"containers":                    cs,
		"nodeName":                      word(r),
		"priority":                      1 + r.IntN(1000),
		"hostNetwork":                   true,
		"terminationGracePeriodSeconds": r.IntN(100),
		"nodeSelector":                  map[string]any{"k": word(r)},
	}
}

// TestShapeCacheBounded: a cache that is full starts over.
func TestShapeCacheBounded(t *testing.T) {
	c := newShapeCache()
	for i := range maxShapes + 10 {
		c.put(fmt.Appendf(nil, "k%d", i), []byte("{}"))
	}
	if n := c.len(); n > maxShapes || n == 0 {
		t.Fatalf("%d shapes cached, want 1..%d", n, maxShapes)
	}
	if raw, ok := c.get(fmt.Appendf(nil, "k%d", maxShapes+9)); !ok || string(raw) != "{}" {
		t.Fatalf("the last shape is not cached: %q %v", raw, ok)
	}
}
