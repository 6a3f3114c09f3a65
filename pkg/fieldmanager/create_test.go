package fieldmanager

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
	"sigs.k8s.io/yaml"
)

// sameCreate checks that the create fast path records exactly what the
// slow path (Compare with the empty object) records, and that both agree
// with createFields' set against the library's own Compare.
func sameCreate(t *testing.T, fast *FieldManager, obj func() runtime.Object, what string) {
	t.Helper()
	slow, err := New(fast.opts)
	if err != nil {
		t.Fatal(err)
	}
	slow.slowCreate = true
	b, errB := slow.Update(nil, obj(), "creator")
	var eb []byte
	if errB == nil {
		eb, _ = json.Marshal(managedFields(t, b))
	}
	// Twice on the fast manager: the second create of the same object is
	// answered from the shape cache when the object has a shape key.
	for round := range 2 {
		a, errA := fast.Update(nil, obj(), "creator")
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: fast error %v, slow error %v", what, errA, errB)
		}
		if errA != nil {
			return
		}
		ea, _ := json.Marshal(managedFields(t, a))
		if string(ea) != string(eb) {
			t.Fatalf("%s (round %d): fast path recorded\n%s\nslow path recorded\n%s", what, round, ea, eb)
		}
	}

	o := obj()
	tv, err := fast.toTyped(o, true)
	if err != nil {
		return
	}
	emptyTyped, err := fast.toTyped(fast.newObject(), true)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := emptyTyped.Compare(tv)
	set, ferr := createFields(fast.typ.Schema, fast.typ.TypeRef, fast.empty, tv.AsValue())
	if err != nil {
		if ferr == nil {
			t.Fatalf("%s: Compare failed (%v) where createFields did not", what, err)
		}
		return
	}
	if ferr != nil {
		t.Logf("%s: fast path declined: %v", what, ferr)
		return
	}
	want := cmp.Added.Union(cmp.Modified)
	if !set.Equals(want) {
		t.Fatalf("%s: createFields\n%v\nCompare\n%v", what, set, want)
	}
	sameEncoding(t, want, what)
	sameEncoding(t, cmp.Removed, what+" (removed)")
}

// sameEncoding checks encodeFieldsV1 against the library's ToJSON.
func sameEncoding(t *testing.T, set *fieldpath.Set, what string) {
	t.Helper()
	got, err := encodeFieldsV1(set)
	if err != nil {
		t.Fatalf("%s: encode: %v", what, err)
	}
	want, err := set.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s: encodeFieldsV1\n%s\nToJSON\n%s", what, got, want)
	}
}

// TestEncodeFieldsV1: sets with every kind of path element, members that
// are also parents, empty children and names JSON escapes.
func TestEncodeFieldsV1(t *testing.T) {
	s := fieldpath.NewSet(
		fieldpath.MakePathOrDie("spec", "containers", fieldpath.KeyByFields("name", "a", "port", 80), "image"),
		fieldpath.MakePathOrDie("spec", "containers", fieldpath.KeyByFields("name", "a", "port", 80)),
		fieldpath.MakePathOrDie("spec", "set", _V("x")),
		fieldpath.MakePathOrDie("spec", "set", _V(1.5)),
		fieldpath.MakePathOrDie("spec", "list", 3, "a"),
		fieldpath.MakePathOrDie("spec"),
		fieldpath.MakePathOrDie("metadata", "labels", "a"),
	)
	sameEncoding(t, s, "mixed")
	sameEncoding(t, fieldpath.NewSet(), "empty")
	sameEncoding(t, fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "annotations", "a<b>&\"c\"\u00e9")), "escaped, not ASCII")
	sameEncoding(t, fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "annotations", "a<b>&\"c\"\\d")), "escaped")
	sameEncoding(t, fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "set", _V("x<\"\\y"))), "escaped value")
	empty := &fieldpath.Set{}
	empty.Children.Descend(fieldpath.PathElement{FieldName: ptr("x")})
	empty.Members.Insert(fieldpath.PathElement{FieldName: ptr("x")})
	sameEncoding(t, empty, "empty child")
}

func _V(v any) value.Value { return value.NewValueInterface(v) }

// TestCreateFastPathTable: the objects whose shapes differ between a
// field set and a comparison (empty and null lists and maps, list maps,
// sets, atomic lists, maps and structs, duplicated keys, defaulted keys).
func TestCreateFastPathTable(t *testing.T) {
	pods := []string{
		`{"metadata":{"name":"p"}}`,
		`{"metadata":{"name":"p","labels":{}},"spec":{"containers":[]}}`,
		`{"metadata":{"name":"p","labels":{"a":"b"},"annotations":{}},"spec":{"containers":null,"volumes":[]}}`,
		`{"metadata":{"name":"p","finalizers":["a","b","a"]},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80},{"containerPort":80,"protocol":"UDP"}]}]}}`,
		`{"metadata":{"name":"p","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"u"}]},"spec":{"containers":[{"name":"c"},{"name":"c","image":"j"}],"nodeSelector":{}}}`,
		`{"spec":{"containers":[{"name":"c","args":[],"command":["a"],"env":[{"name":"E","value":""},{"name":"F","valueFrom":{"fieldRef":{"fieldPath":"x"}}}],"resources":{"limits":{"cpu":"1"}}}],"tolerations":[{}],"affinity":{},"securityContext":{}}}`,
		`{"spec":{"containers":[{"name":"c","ports":[{"containerPort":1,"protocol":"TCP"},{"containerPort":1}]}]},"status":{"conditions":[{"type":"Ready","status":"True"}],"phase":"Running"}}`,
		`{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":8080,"path":"/"}},"readinessProbe":{"tcpSocket":{"port":"http"}}}],"topologySpreadConstraints":[{"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule","maxSkew":1,"labelSelector":{"matchLabels":{}}}]}}`,
	}
	c := newClock()
	pf := podManagerFor(t, c)
	for i, text := range pods {
		sameCreate(t, pf, typedFrom(t, text, &corev1.Pod{}), fmt.Sprintf("pod %d", i))
	}
	deployments := []string{
		`{"spec":{"replicas":0,"selector":{"matchLabels":{}},"template":{"metadata":{},"spec":{"containers":[]}}}}`,
		`{"spec":{"selector":{"matchLabels":{"a":"b"},"matchExpressions":[]},"strategy":{"rollingUpdate":{"maxSurge":"25%"}},"template":{"spec":{"containers":[{"name":"a"}]}}}}`,
	}
	df := deploymentManager(t, c, "", fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	for i, text := range deployments {
		sameCreate(t, df, typedFrom(t, text, &appsv1.Deployment{}), fmt.Sprintf("deployment %d", i))
	}
	widgets := []string{
		`{}`,
		`{"items":[],"tags":[],"set":[],"selector":{},"labels":{},"config":{}}`,
		`{"items":null,"tags":null,"set":null,"selector":null,"labels":null,"config":null,"port":null}`,
		`{"items":[{"name":"a"},{"name":"a","value":"2"},{"name":"b","value":null}],"set":["x","x","y"],"tags":["a","a"]}`,
		`{"config":{"a":[],"b":{},"c":null,"d":{"e":[1,{"f":null}]}},"port":"http","template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t","labels":{}},"spec":{}}}`,
		`{"items":[{"value":"no key"}]}`,
		`{"set":[{"a":1}]}`,
		`{"replicas":null,"labels":{"a":null}}`,
	}
	wf := widgetManager(t, c)
	for i, text := range widgets {
		sameCreate(t, wf, unstructuredFrom(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":`+text+`}`), fmt.Sprintf("widget %d", i))
	}
}

// TestCreateFastPathRandom: random pods and widgets built from pieces that
// are present, absent, null or empty record the same on both paths.
func TestCreateFastPathRandom(t *testing.T) {
	c := newClock()
	pf, wf := podManagerFor(t, c), widgetManager(t, c)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 600 {
		pod := randomPod(r)
		data, _ := json.Marshal(pod)
		sameCreate(t, pf, typedFrom(t, string(data), &corev1.Pod{}), "pod "+string(data))
		w := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": fmt.Sprint("w", i)}, "spec": randomWidgetSpec(r)}
		if r.IntN(4) == 0 {
			w["status"] = pick(r, nil, map[string]any{}, map[string]any{"phase": "x"})
		}
		data, _ = json.Marshal(w)
		sameCreate(t, wf, unstructuredFrom(t, string(data)), "widget "+string(data))
	}
}

// pick returns one of choices; the absent marker drops a key.
func pick(r *rand.Rand, choices ...any) any { return choices[r.IntN(len(choices))] }

type absentValue struct{}

var absent = absentValue{}

func put(m map[string]any, key string, v any) {
	if _, ok := v.(absentValue); !ok {
		m[key] = v
	}
}

func randomContainer(r *rand.Rand) map[string]any {
	c := map[string]any{}
	put(c, "name", pick(r, "a", "b", "c", absent))
	put(c, "image", pick(r, "i", "", absent, nil))
	put(c, "args", pick(r, []any{}, []any{"x", "x"}, nil, absent))
	put(c, "env", pick(r, []any{}, []any{map[string]any{"name": "E"}, map[string]any{"name": "E", "value": "v"}}, []any{map[string]any{"name": "F", "value": ""}}, absent))
	put(c, "ports", pick(r, []any{}, []any{map[string]any{"containerPort": 80}, map[string]any{"containerPort": 80, "protocol": "TCP"}}, []any{map[string]any{"containerPort": 81, "name": "h"}}, absent))
	put(c, "resources", pick(r, map[string]any{}, map[string]any{"limits": map[string]any{}}, map[string]any{"requests": map[string]any{"cpu": "1"}}, absent))
	put(c, "securityContext", pick(r, map[string]any{}, nil, map[string]any{"capabilities": map[string]any{"add": []any{}}}, absent))
	return c
}

func randomPod(r *rand.Rand) map[string]any {
	meta := map[string]any{}
	put(meta, "name", pick(r, "p", absent))
	put(meta, "labels", pick(r, map[string]any{}, map[string]any{"a": "b", "c": ""}, nil, absent))
	put(meta, "annotations", pick(r, map[string]any{}, map[string]any{"x": "y"}, absent))
	put(meta, "finalizers", pick(r, []any{}, []any{"f", "f"}, []any{"f", "g"}, absent))
	put(meta, "ownerReferences", pick(r, []any{}, []any{map[string]any{"uid": "u", "name": "n", "kind": "K", "apiVersion": "v1"}}, absent))
	spec := map[string]any{}
	var cs []any
	for range r.IntN(4) {
		cs = append(cs, randomContainer(r))
	}
	put(spec, "containers", pick(r, cs, []any{}, nil, absent))
	put(spec, "initContainers", pick(r, []any{}, []any{randomContainer(r)}, absent))
	put(spec, "volumes", pick(r, []any{}, []any{map[string]any{"name": "v", "emptyDir": map[string]any{}}}, []any{map[string]any{"name": "v"}, map[string]any{"name": "v", "hostPath": map[string]any{"path": "/"}}}, absent))
	put(spec, "nodeSelector", pick(r, map[string]any{}, map[string]any{"k": "v"}, nil, absent))
	put(spec, "tolerations", pick(r, []any{}, []any{map[string]any{}}, absent))
	put(spec, "affinity", pick(r, map[string]any{}, map[string]any{"nodeAffinity": map[string]any{}}, absent))
	put(spec, "securityContext", pick(r, map[string]any{}, nil, absent))
	put(spec, "hostname", pick(r, "", "h", absent))
	put(spec, "priority", pick(r, 0, 5, absent))
	pod := map[string]any{}
	put(pod, "metadata", pick(r, meta, map[string]any{}, absent))
	put(pod, "spec", pick(r, spec, map[string]any{}, absent))
	put(pod, "status", pick(r, map[string]any{}, map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "Ready"}, map[string]any{"type": "Ready", "status": "True"}}}, absent))
	return pod
}

func randomWidgetSpec(r *rand.Rand) any {
	spec := map[string]any{}
	put(spec, "replicas", pick(r, 0, 3, nil, absent))
	put(spec, "items", pick(r, []any{}, nil, []any{map[string]any{"name": "a"}, map[string]any{"name": "b", "value": nil}}, []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}, absent))
	put(spec, "tags", pick(r, []any{}, nil, []any{"x", "x"}, absent))
	put(spec, "set", pick(r, []any{}, nil, []any{"p", "q", "p"}, absent))
	put(spec, "selector", pick(r, map[string]any{}, nil, map[string]any{"a": "b"}, absent))
	put(spec, "labels", pick(r, map[string]any{}, nil, map[string]any{"a": "b", "c": nil}, absent))
	put(spec, "config", pick(r, map[string]any{}, nil, map[string]any{"x": []any{}, "y": map[string]any{}, "z": map[string]any{"n": nil, "l": []any{1, map[string]any{}}}}, absent))
	put(spec, "port", pick(r, 1, "p", nil, absent))
	put(spec, "template", pick(r, map[string]any{}, map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"labels": map[string]any{}}, "spec": map[string]any{"x": []any{}}}, absent))
	return pick(r, spec, spec, spec, map[string]any{}, nil)
}

func podManagerFor(t *testing.T, c *clock) *FieldManager {
	t.Helper()
	f, err := New(Options{
		Kind: podKind, TypeConverter: builtin(t), Now: c.Now,
		New:         func() runtime.Object { return &corev1.Pod{} },
		ResetFields: fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// typedFrom decodes JSON into a fresh copy of proto on every call.
func typedFrom(t *testing.T, text string, proto runtime.Object) func() runtime.Object {
	t.Helper()
	return func() runtime.Object {
		obj := proto.DeepCopyObject()
		if err := json.Unmarshal([]byte(text), obj); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return obj
	}
}

// unstructuredFrom decodes JSON (or YAML) into a fresh unstructured
// object on every call.
func unstructuredFrom(t *testing.T, text string) func() runtime.Object {
	t.Helper()
	return func() runtime.Object {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return &unstructured.Unstructured{Object: m}
	}
}

// BenchmarkCreatePaths compares the create fast path with the Compare it
// replaces on the full bench pod.
func BenchmarkCreatePaths(b *testing.B) {
	for _, slow := range []bool{false, true} {
		name := "fast"
		if slow {
			name = "compare"
		}
		b.Run(name, func(b *testing.B) {
			f := podManager(b)
			f.slowCreate = slow
			pod := benchObject(b, benchPod, &corev1.Pod{})
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				pod.ManagedFields = nil
				if _, err := f.Update(nil, pod, "kube-controller-manager"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perOp(b, start, 1), "cpu-µs/op")
		})
	}
}
