package validation

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

const (
	subdomainMsg = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	labelMsg     = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	namePartMsg  = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	valueMsg     = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
)

func messages(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func checkErrors(t *testing.T, what string, got field.ErrorList, want []string) {
	t.Helper()
	if msgs := messages(got); !slices.Equal(msgs, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, msgs, want)
	}
}

func ptr[T any](v T) *T { return &v }

func TestValidateObjectMeta(t *testing.T) {
	meta := field.NewPath("metadata")
	tests := []struct {
		name       string
		meta       metav1.ObjectMeta
		namespaced bool
		want       []string
	}{
		{name: "valid", meta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}}, namespaced: true},
		{name: "valid cluster scoped", meta: metav1.ObjectMeta{Name: "node-1.example.com"}},
		{name: "no name", meta: metav1.ObjectMeta{Namespace: "default"}, namespaced: true,
			want: []string{"metadata.name: Required value: name or generateName is required"}},
		{name: "bad name", meta: metav1.ObjectMeta{Name: "Web_1", Namespace: "default"}, namespaced: true,
			want: []string{`metadata.name: Invalid value: "Web_1": ` + subdomainMsg}},
		{name: "generateName with dash", meta: metav1.ObjectMeta{GenerateName: "web-", Name: "web-x7k2p", Namespace: "ns"}, namespaced: true},
		{name: "bad generateName", meta: metav1.ObjectMeta{GenerateName: "Web-", Name: "web-x7k2p", Namespace: "ns"}, namespaced: true,
			want: []string{`metadata.generateName: Invalid value: "Web-": ` + subdomainMsg}},
		{name: "namespace required", meta: metav1.ObjectMeta{Name: "web"}, namespaced: true,
			want: []string{"metadata.namespace: Required value"}},
		{name: "namespace not a label", meta: metav1.ObjectMeta{Name: "web", Namespace: "a.b"}, namespaced: true,
			want: []string{`metadata.namespace: Invalid value: "a.b": must not contain dots`}},
		{name: "namespace forbidden", meta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			want: []string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{name: "negative generation", meta: metav1.ObjectMeta{Name: "web", Generation: -1},
			want: []string{"metadata.generation: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "labels", meta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"-bad": "ok", "good": "-bad"}},
			want: []string{
				`metadata.labels: Invalid value: "-bad": ` + namePartMsg,
				`metadata.labels: Invalid value: "-bad": ` + valueMsg,
			}},
		{name: "annotation keys ignore case", meta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"Example.COM/Note": "x", "a b": ""}},
			want: []string{`metadata.annotations: Invalid value: "a b": ` + namePartMsg}},
		{name: "annotations too large", meta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"big": strings.Repeat("x", 256*1024)}},
			want: []string{"metadata.annotations: Too long: may not be more than 262144 bytes"}},
		{name: "owner references", meta: metav1.ObjectMeta{Name: "web", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/", Kind: "", Name: "", UID: ""},
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs1", UID: "u1", Controller: ptr(true)},
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs2", UID: "u2", Controller: ptr(true)},
		}}, want: []string{
			`metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty`,
			`metadata.ownerReferences.kind: Invalid value: "": must not be empty`,
			`metadata.ownerReferences.name: Invalid value: "": must not be empty`,
			`metadata.ownerReferences.uid: Invalid value: "": must not be empty`,
			`metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/","kind":"","name":"","uid":""},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs1","uid":"u1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs2","uid":"u2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs1 and ReplicaSet/rs2`,
		}},
		{name: "event owner", meta: metav1.ObjectMeta{Name: "web", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Event", Name: "e", UID: "u"}}},
			want: []string{`metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner`}},
		{name: "finalizers", meta: metav1.ObjectMeta{Name: "web", Finalizers: []string{"kubernetes.io/pvc-protection", "bad finalizer", "orphan", "foregroundDeletion"}},
			want: []string{
				`metadata.finalizers: Invalid value: "bad finalizer": ` + namePartMsg,
				`metadata.finalizers: Invalid value: ["kubernetes.io/pvc-protection","bad finalizer","orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`,
			}},
		{name: "managed fields", meta: metav1.ObjectMeta{Name: "web", ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: "Update", FieldsType: "FieldsV1"},
			{Manager: "a\x00", Operation: "Patch", FieldsType: "FieldsV2"},
		}}, want: []string{
			"metadata.managedFields[1].operation: Invalid value: \"Patch\": must be `Apply` or `Update`",
			"metadata.managedFields[1].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`",
			`metadata.managedFields[1].manager: Invalid value: "a\x00": invalid character U+0000 (at position 1)`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErrors(t, tc.name, ValidateObjectMeta(&tc.meta, tc.namespaced, NameIsDNSSubdomain, meta), tc.want)
		})
	}
}

func TestValidateObjectMetaUpdate(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	old := metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1", ResourceVersion: "10", Generation: 3, CreationTimestamp: created}
	meta := field.NewPath("metadata")

	same := old
	same.CreationTimestamp = metav1.NewTime(created.In(time.FixedZone("X", 3600))) // same instant, other zone
	same.Labels = map[string]string{"added": "ok"}
	checkErrors(t, "unchanged identity", ValidateObjectMetaUpdate(&same, &old, meta), nil)

	changed := old
	changed.Name, changed.Namespace, changed.UID = "web2", "other", "u2"
	changed.CreationTimestamp = metav1.NewTime(created.Add(time.Second))
	changed.ResourceVersion = ""
	changed.Generation = 2
	checkErrors(t, "changed identity", ValidateObjectMetaUpdate(&changed, &old, meta), []string{
		`metadata.resourceVersion: Invalid value: "": must be specified for an update`,
		"metadata.generation: Invalid value: 2: must not be decremented",
		`metadata.name: Invalid value: "web2": field is immutable`,
		`metadata.namespace: Invalid value: "other": field is immutable`,
		`metadata.uid: Invalid value: "u2": field is immutable`,
		`metadata.creationTimestamp: Invalid value: "2024-01-02T03:04:06Z": field is immutable`,
	})

	deleting := old
	deleting.DeletionTimestamp = &created
	deleting.DeletionGracePeriodSeconds = ptr(int64(30))
	deleting.Finalizers = []string{"a.io/x"}
	update := deleting
	update.Finalizers = []string{"a.io/x", "b.io/y", "b.io/y"}
	update.DeletionGracePeriodSeconds = ptr(int64(0))
	checkErrors(t, "deleting", ValidateObjectMetaUpdate(&update, &deleting, meta), []string{
		`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}`,
		"metadata.deletionGracePeriodSeconds: Invalid value: 0: field is immutable",
	})
}

func TestNameFuncs(t *testing.T) {
	tests := []struct {
		fn     ValidateNameFunc
		name   string
		prefix bool
		want   []string
	}{
		{NameIsDNSSubdomain, "a.b-c", false, nil},
		{NameIsDNSSubdomain, "web-", true, nil},
		{NameIsDNSSubdomain, "web-", false, []string{subdomainMsg}},
		{NameIsDNSSubdomain, "-", true, []string{subdomainMsg}},
		{NameIsDNSLabel, "a-b", false, nil},
		{NameIsDNSLabel, "a.b", false, []string{"must not contain dots"}},
		{ValidateNamespaceName, "kube-system", false, nil},
		{ValidateNamespaceName, "Kube", false, []string{labelMsg}},
		{NameIsDNS1035Label, "svc-", true, nil},
		{NameIsDNS1035Label, "1svc", false, []string{`a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
	}
	for _, tc := range tests {
		if got := tc.fn(tc.name, tc.prefix); !slices.Equal(got, tc.want) {
			t.Errorf("name %q prefix %v: got %q want %q", tc.name, tc.prefix, got, tc.want)
		}
	}
}

func TestValidateLabelSelector(t *testing.T) {
	p := field.NewPath("spec", "selector")
	checkErrors(t, "nil", ValidateLabelSelector(nil, p), nil)
	checkErrors(t, "valid", ValidateLabelSelector(&metav1.LabelSelector{
		MatchLabels:      map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}},
	}, p), nil)
	checkErrors(t, "invalid", ValidateLabelSelector(&metav1.LabelSelector{
		MatchLabels: map[string]string{"app": "-web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn},
			{Key: "zone", Operator: metav1.LabelSelectorOpExists, Values: []string{"a"}},
			{Key: "-k", Operator: "Like", Values: []string{"-v"}},
		},
	}, p), []string{
		`spec.selector.matchLabels: Invalid value: "-web": ` + valueMsg,
		"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
		"spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
		`spec.selector.matchExpressions[2].operator: Invalid value: "Like": not a valid selector operator`,
		`spec.selector.matchExpressions[2].key: Invalid value: "-k": ` + namePartMsg,
		`spec.selector.matchExpressions[2].values[0]: Invalid value: "-v": ` + valueMsg,
	})
}

func TestGenericHelpers(t *testing.T) {
	p := field.NewPath("spec", "replicas")
	checkErrors(t, "nonnegative", ValidateNonnegativeField(-1, p), []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"})
	checkErrors(t, "zero", ValidateNonnegativeField(0, p), nil)
	checkErrors(t, "immutable", ValidateImmutableField([]string{"a"}, []string{"b"}, field.NewPath("spec", "x")),
		[]string{`spec.x: Invalid value: ["a"]: field is immutable`})
	checkErrors(t, "immutable equal", ValidateImmutableField(map[string]int{"a": 1}, map[string]int{"a": 1}, p), nil)
	var nilTime *metav1.Time
	now := metav1.Now()
	checkErrors(t, "nil time", ValidateImmutableField(nilTime, (*metav1.Time)(nil), p), nil)
	if ValidateImmutableField(&now, nilTime, p) == nil {
		t.Error("setting a nil timestamp was not reported")
	}
}
