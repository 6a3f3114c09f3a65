package protobuf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/controlplane"
)

// The inputs: the shared fixtures, and objects of this package that use
// what the fixtures do not (MicroTime with series, RawExtension, Scale).
// testdata/kubernetes/<name>.pb is what Kubernetes' own protobuf
// serializer (k8s.io/api v0.37.2) writes for <name>.yaml.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	shared, err := filepath.Glob("../../fixtures/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	own, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := append(shared, own...)
	if len(shared) == 0 || len(own) == 0 {
		t.Fatalf("fixtures missing: %v", files)
	}
	return files
}

type serializers struct {
	json  *runtime.Serializer
	proto *protobuf.Serializer
}

func newSerializers(t testing.TB) serializers {
	t.Helper()
	s, err := controlplane.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return serializers{json: runtime.NewSerializer(s, runtime.SerializerOptions{}), proto: protobuf.NewSerializer(s)}
}

// TestFixturesRoundTrip decodes every fixture from YAML, encodes it in
// protobuf and decodes that again: the object must come back equal (but for
// what protobuf does not carry: the kind of nested objects) and encode to
// the same bytes; and those bytes must be the ones Kubernetes writes.
func TestFixturesRoundTrip(t *testing.T) {
	ss := newSerializers(t)
	for _, file := range fixtureFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			y, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			in, err := runtime.Decode(ss.json, y)
			if err != nil {
				t.Fatal(err)
			}
			data, err := runtime.Encode(ss.proto, in)
			if err != nil {
				t.Fatal(err)
			}
			out, err := runtime.Decode(ss.proto, data)
			if err != nil {
				t.Fatal(err)
			}
			if out.GetObjectKind().GroupVersionKind() != in.GetObjectKind().GroupVersionKind() {
				t.Fatalf("kind %v came back as %v", in.GetObjectKind().GroupVersionKind(), out.GetObjectKind().GroupVersionKind())
			}
			if want, got := semantic(t, in), semantic(t, out); !reflect.DeepEqual(want, got) {
				t.Fatalf("the object changed\nwant %v\ngot  %v", want, got)
			}
			again, err := runtime.Encode(ss.proto, out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, again) {
				t.Fatal("the decoded object encodes differently")
			}

			golden, err := os.ReadFile(filepath.Join("testdata", "kubernetes", name+".pb"))
			if os.IsNotExist(err) {
				t.Logf("no Kubernetes encoding of %s to compare with", name)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(golden, data) {
				t.Fatalf("Kubernetes encodes %s differently\nkubernetes: %x\nkubecore:   %x", name, golden, data)
			}
			fromK8s, err := runtime.Decode(ss.proto, golden)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := semantic(t, in), semantic(t, fromK8s); !reflect.DeepEqual(want, got) {
				t.Fatalf("Kubernetes' encoding decodes differently\nwant %v\ngot  %v", want, got)
			}
		})
	}
}

// semantic is obj's JSON as generic values, without what protobuf
// legitimately drops or normalizes: the kind and apiVersion of nested
// objects (volumeClaimTemplates), nulls, and empty lists and maps.
func semantic(t *testing.T, obj runtime.Object) any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return prune(v, true)
}

func prune(v any, root bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if !root && (k == "kind" || k == "apiVersion") {
				continue
			}
			if x = prune(x, false); x != nil {
				out[k] = x
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = prune(x, false)
		}
		return out
	}
	return v
}

// kubernetesField is one line of testdata/kubernetes/fields.txt, taken
// from k8s.io/api v0.37.2's generated.proto files: a message field's
// number, label and wire type.
type kubernetesField struct {
	number int
	label  string // optional or repeated
	wire   string // varint, bytes, fixed32 or fixed64
}

func kubernetesFields(t *testing.T) map[string]kubernetesField {
	t.Helper()
	f, err := os.Open("testdata/kubernetes/fields.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]kubernetesField{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// core/v1 Pod metadata 1 optional bytes
		p := strings.Fields(sc.Text())
		if len(p) != 6 {
			t.Fatalf("malformed line %q", sc.Text())
		}
		n, err := strconv.Atoi(p[3])
		if err != nil {
			t.Fatal(err)
		}
		out[p[0]+" "+p[1]+" "+p[2]] = kubernetesField{number: n, label: p[4], wire: p[5]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// messageName is "core/v1 Pod" for kubecore.io/api/core/v1.Pod, and
// "meta/v1 Status" for kubecore.io/apimachinery/pkg/apis/meta/v1.Status.
func messageName(t reflect.Type) (string, bool) {
	for _, prefix := range []string{"kubecore.io/api/", "kubecore.io/apimachinery/pkg/apis/"} {
		if pkg, ok := strings.CutPrefix(t.PkgPath(), prefix); ok {
			return pkg + " " + t.Name(), true
		}
	}
	return "", false
}

// TestTagsMatchKubernetes walks every type reachable from the registered
// kinds and the meta/v1 messages, and checks each field's protobuf tag
// against Kubernetes' field number, label and wire type; a field that
// Kubernetes has (by JSON name) must carry a tag.
func TestTagsMatchKubernetes(t *testing.T) {
	want := kubernetesFields(t)
	s, err := controlplane.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	var roots []reflect.Type
	for _, typ := range s.AllKnownTypes() {
		roots = append(roots, typ)
	}
	for _, v := range []any{
		metav1.Status{}, metav1.DeleteOptions{}, metav1.ListOptions{}, metav1.GetOptions{},
		metav1.CreateOptions{}, metav1.UpdateOptions{}, metav1.PatchOptions{}, metav1.WatchEvent{},
		metav1.APIResourceList{}, metav1.APIGroupList{}, metav1.APIVersions{}, metav1.Condition{},
		metav1.PartialObjectMetadataList{}, metav1.TableOptions{}, metav1.Duration{}, metav1.ApplyOptions{}, metav1.RootPaths{},
	} {
		roots = append(roots, reflect.TypeOf(v))
	}
	special := map[reflect.Type]bool{
		reflect.TypeFor[metav1.Time](): true, reflect.TypeFor[metav1.MicroTime](): true,
		reflect.TypeFor[resource.Quantity](): true, reflect.TypeFor[intstr.IntOrString](): true,
		reflect.TypeFor[runtime.RawExtension](): true,
	}
	seen := map[reflect.Type]bool{}
	checked, types := 0, 0
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || special[typ] {
			return
		}
		seen[typ] = true
		msg, ok := messageName(typ)
		if !ok {
			return
		}
		types++
		for i := range typ.NumField() {
			sf := typ.Field(i)
			if !sf.IsExported() {
				continue
			}
			walk(sf.Type)
			tag, tagged := sf.Tag.Lookup("protobuf")
			jsonName, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if !tagged || tag == "-" {
				if k, ok := want[msg+" "+jsonName]; ok && jsonName != "" && !(typ.Name() == "Duration" || typ.Name() == "Time") {
					t.Errorf("%s.%s has no protobuf tag; Kubernetes numbers it %d", msg, sf.Name, k.number)
				}
				continue
			}
			checked++
			p := strings.Split(tag, ",")
			name := ""
			for _, kv := range p[min(3, len(p)):] {
				if v, ok := strings.CutPrefix(kv, "name="); ok {
					name = v
				}
			}
			k, ok := want[msg+" "+name]
			if !ok {
				t.Errorf("%s.%s: Kubernetes has no field %q", msg, sf.Name, name)
				continue
			}
			label := map[string]string{"opt": "optional", "rep": "repeated"}[p[2]]
			if got := fmt.Sprintf("%s %s %s", p[1], label, p[0]); got != fmt.Sprintf("%d %s %s", k.number, k.label, k.wire) {
				t.Errorf("%s.%s: tag says %s, Kubernetes %d %s %s", msg, sf.Name, got, k.number, k.label, k.wire)
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	if checked < 900 {
		t.Errorf("only %d tagged fields checked in %d types; the walk missed types", checked, types)
	}
	if t.Failed() {
		return
	}
	t.Logf("figure: %d tagged fields in %d types match Kubernetes' field numbers (target: all)", checked, types)

	// Every registered kind has a protobuf encoding, but CustomResource-
	// Definitions: their schemas are JSON documents, and every client of
	// them (kubectl, client-go's apiextensions clientset) speaks JSON, which
	// the server answers protobuf requests for them with.
	ps := protobuf.NewSerializer(s)
	for gvk, typ := range s.AllKnownTypes() {
		if gvk.Group == "apiextensions.k8s.io" {
			continue
		}
		if err := ps.Codec().Supports(typ); err != nil {
			t.Errorf("%v: %v", gvk, err)
		}
	}
}
