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

// TestShapeCacheRandom: random pods and Deployments whose values come
// from tiny sets, so that many share a shape while their values differ,
// are created through one FieldManager with its cache and each records
// exactly what the Compare path records.
func TestShapeCacheRandom(t *testing.T) {
	c := newClock()
	pf := podManagerFor(t, c)
	df := deploymentManager(t, c, "", fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	r := rand.New(rand.NewPCG(3, 4))
	const n = 600
	for range n {
		pod := map[string]any{"metadata": randomMeta(r), "spec": randomPodSpec(r)}
		put(pod, "status", pick(r, absent, map[string]any{}, map[string]any{"phase": pick(r, "Running", "Pending"), "podIP": pick(r, "1.1.1.1", "")}))
		data, _ := json.Marshal(pod)
		sameCreate(t, pf, typedFrom(t, string(data), &corev1.Pod{}), "pod "+string(data))

		d := map[string]any{"metadata": randomMeta(r), "spec": map[string]any{
			"replicas": pick(r, 1, 3),
			"selector": map[string]any{"matchLabels": map[string]any{"app": pick(r, "a", "b")}},
			"strategy": pick(r, map[string]any{}, map[string]any{"rollingUpdate": map[string]any{"maxSurge": pick(r, 1, "25%")}}),
			"template": map[string]any{"metadata": randomMeta(r), "spec": randomPodSpec(r)},
		}}
		data, _ = json.Marshal(d)
		sameCreate(t, df, typedFrom(t, string(data), &appsv1.Deployment{}), "deployment "+string(data))
	}
	if np, nd := pf.shapes.len(), df.shapes.len(); np >= n || nd >= n {
		t.Fatalf("%d pod and %d deployment shapes for %d objects each: the cache was not exercised", np, nd, n)
	} else {
		t.Logf("%d pod and %d deployment shapes for %d objects each", np, nd, n)
	}
}

func randomMeta(r *rand.Rand) map[string]any {
	m := map[string]any{}
	put(m, "name", pick(r, "a", "b", absent))
	put(m, "labels", pick(r, absent, map[string]any{"app": pick(r, "x", "y")}, map[string]any{"app": "x", "tier": pick(r, "", "w")}))
	put(m, "annotations", pick(r, absent, map[string]any{"n": pick(r, "1", "2")}))
	put(m, "creationTimestamp", pick(r, absent, nil, "2026-11-27T10:00:00Z", "2026-11-27T10:00:01Z"))
	put(m, "finalizers", pick(r, absent, []any{pick(r, "f", "g")}, []any{"f", pick(r, "f", "g")}))
	return m
}

func randomPodSpec(r *rand.Rand) map[string]any {
	spec := map[string]any{}
	var cs []any
	for range 1 + r.IntN(2) {
		c := map[string]any{"name": pick(r, "a", "b")}
		put(c, "image", pick(r, absent, "i", "j"))
		port := map[string]any{"containerPort": pick(r, 80, 81)}
		put(port, "protocol", pick(r, "TCP", "UDP", absent))
		put(c, "ports", pick(r, absent, []any{port}))
		put(c, "env", pick(r, absent, []any{map[string]any{"name": pick(r, "E", "F"), "value": pick(r, "1", "")}}))
		put(c, "resources", pick(r, absent, map[string]any{"requests": map[string]any{pick(r, "cpu", "memory").(string): pick(r, "1", "100m")}}))
		probe := map[string]any{"httpGet": map[string]any{"port": pick(r, 80, "http")}}
		put(probe, "periodSeconds", pick(r, 5, 0, absent))
		put(c, "readinessProbe", pick(r, absent, probe))
		cs = append(cs, c)
	}
	spec["containers"] = cs
	put(spec, "nodeName", pick(r, absent, "n1", "n2", ""))
	put(spec, "priority", pick(r, absent, 0, 5))
	put(spec, "hostNetwork", pick(r, absent, true, false))
	put(spec, "terminationGracePeriodSeconds", pick(r, absent, 0, 30))
	put(spec, "nodeSelector", pick(r, absent, map[string]any{}, map[string]any{"k": pick(r, "v", "w")}))
	put(spec, "tolerations", pick(r, absent, []any{map[string]any{"key": pick(r, "a", "b"), "operator": "Exists"}}))
	return spec
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
