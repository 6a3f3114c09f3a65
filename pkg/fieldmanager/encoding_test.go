package fieldmanager

import (
	"bytes"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestUpdateCreateFieldsV1 checks the exact FieldsV1 encoding of a create:
// "f:" fields, "k:" keyed list items, "." for a map that is itself owned,
// and no entry for status or server-set metadata. A struct that encodes as
// {} (resources) is owned as a field, as in Kubernetes.
func TestUpdateCreateFieldsV1(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	d := deployment(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, uid: u1, resourceVersion: "5", labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        ports: [{containerPort: 80, protocol: TCP}]
        env: [{name: A, value: "1"}]
`)
	out, err := f.Update(nil, d, "kubectl-create")
	if err != nil {
		t.Fatal(err)
	}
	mf := managedFields(t, out)
	if len(mf) != 1 {
		t.Fatalf("managedFields = %+v", mf)
	}
	e := mf[0]
	if e.Manager != "kubectl-create" || e.Operation != "Update" || e.APIVersion != "apps/v1" || e.FieldsType != "FieldsV1" || e.Subresource != "" {
		t.Errorf("entry = %+v", e)
	}
	if e.Time == nil || !e.Time.Time.Equal(c.now) {
		t.Errorf("time = %v, want %v", e.Time, c.now)
	}
	want := `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{}}}}}}}`
	if got := string(e.FieldsV1.Raw); got != want {
		t.Errorf("fieldsV1:\n got %s\nwant %s", got, want)
	}
}

// TestEncodeOrder: Apply entries first, then by time (seconds), manager,
// apiVersion and subresource.
func TestEncodeOrder(t *testing.T) {
	at := func(s int64) *metav1.Time { v := metav1.Unix(s, 0); return &v }
	set := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "replicas"))
	m := newManaged()
	add := func(name, op, version, sub string, t *metav1.Time) {
		key := identity{Manager: name, Operation: op, APIVersion: version, Subresource: sub}.key()
		m.Fields[key] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(version), op == OperationApply)
		m.Times[key] = t
	}
	add("zeta", OperationUpdate, "apps/v1", "", at(100))
	add("alpha", OperationUpdate, "apps/v1", "status", at(100))
	add("alpha", OperationUpdate, "apps/v1", "", at(100))
	add("old", OperationUpdate, "apps/v1", "", at(50))
	add("late", OperationApply, "apps/v1", "", at(200))
	add("early", OperationApply, "apps/v1", "", at(10))
	got, err := EncodeManagedFields(m)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range got {
		order = append(order, e.Manager+"/"+e.Operation+"/"+e.Subresource)
	}
	want := "early/Apply/ late/Apply/ old/Update/ alpha/Update/ alpha/Update/status zeta/Update/"
	if strings.Join(order, " ") != want {
		t.Errorf("order:\n got %s\nwant %s", strings.Join(order, " "), want)
	}
	// And back: the same managers, sets and times.
	back, err := DecodeManagedFields(got)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Fields.Equals(m.Fields) {
		t.Errorf("round trip:\n got %v\nwant %v", back.Fields, m.Fields)
	}
	for k, tm := range m.Times {
		if !back.Times[k].Equal(tm) {
			t.Errorf("time of %s = %v, want %v", k, back.Times[k], tm)
		}
	}
}

func TestDecodeRejectsMalformed(t *testing.T) {
	ok := metav1.ManagedFieldsEntry{Manager: "m", Operation: "Update", APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}
	cases := map[string]func(e *metav1.ManagedFieldsEntry){
		"operation":  func(e *metav1.ManagedFieldsEntry) { e.Operation = "Patch" },
		"apiVersion": func(e *metav1.ManagedFieldsEntry) { e.APIVersion = "" },
		"no type":    func(e *metav1.ManagedFieldsEntry) { e.FieldsType = "" },
		"bad type":   func(e *metav1.ManagedFieldsEntry) { e.FieldsType = "FieldsV2" },
		"bad key":    func(e *metav1.ManagedFieldsEntry) { e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"k:{name":{}}`)} },
		"not json":   func(e *metav1.ManagedFieldsEntry) { e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{`)} },
	}
	if _, err := DecodeManagedFields([]metav1.ManagedFieldsEntry{ok}); err != nil {
		t.Fatalf("valid entry: %v", err)
	}
	for name, mutate := range cases {
		e := ok
		mutate(&e)
		if _, err := DecodeManagedFields([]metav1.ManagedFieldsEntry{e}); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

// FuzzFieldsV1RoundTrip: whatever FieldsV1 decodes re-encodes canonically,
// and the canonical form decodes to the same set.
func FuzzFieldsV1RoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`,
		`{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{}}}}}`,
		`{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{}}}}}`,
		`{"f:metadata":{"f:finalizers":{".":{},"v:\"a\"":{}}}}`,
		`{"f:spec":{"f:args":{"i:0":{}}}}`,
		`{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fieldpath.NewSet()
		if err := s.FromJSON(bytes.NewReader(data)); err != nil {
			return
		}
		enc, err := s.ToJSON()
		if err != nil {
			t.Fatalf("encode %s: %v", data, err)
		}
		back := fieldpath.NewSet()
		if err := back.FromJSON(bytes.NewReader(enc)); err != nil {
			t.Fatalf("decode own encoding %s: %v", enc, err)
		}
		if !back.Equals(s) {
			t.Fatalf("round trip of %s changed the set: %s", data, enc)
		}
		again, err := back.ToJSON()
		if err != nil || !bytes.Equal(again, enc) {
			t.Fatalf("encoding not canonical: %s then %s (%v)", enc, again, err)
		}
	})
}

// TestManagedFieldsJSON: the entry marshals with Kubernetes' field names.
func TestManagedFieldsJSON(t *testing.T) {
	c := newClock()
	f := deploymentManager(t, c, "", nil)
	d := &appsv1.Deployment{}
	d.Name, d.Namespace = "x", "default"
	d.Labels = map[string]string{"a": "b"}
	out, err := f.Update(nil, d, "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := jsonMarshal(managedFields(t, out))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"manager":"unknown","operation":"Update","apiVersion":"apps/v1","time":"` + c.now.Format(time.RFC3339) + `","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:a":{}}}}}]`
	if string(data) != want {
		t.Errorf("json:\n got %s\nwant %s", data, want)
	}
}
