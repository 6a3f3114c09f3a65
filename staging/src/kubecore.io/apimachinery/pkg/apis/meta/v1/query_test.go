package v1

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// queryOptions is what every options type offers.
type queryOptions interface {
	ToQuery() url.Values
	FromQuery(url.Values) error
}

func TestQueryRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		in    queryOptions
		empty func() queryOptions
		query string // url.Values.Encode() of in, keys sorted
	}{
		{
			name:  "list zero",
			in:    &ListOptions{},
			empty: func() queryOptions { return &ListOptions{} },
			query: "",
		},
		{
			name: "list all",
			in: &ListOptions{
				LabelSelector: "app=web,tier!=db", FieldSelector: "metadata.name=x", Watch: true,
				AllowWatchBookmarks: true, ResourceVersion: "123", ResourceVersionMatch: ResourceVersionMatchExact,
				TimeoutSeconds: ptr[int64](300), Limit: 500, Continue: "abc", SendInitialEvents: ptr(false),
			},
			empty: func() queryOptions { return &ListOptions{} },
			query: "allowWatchBookmarks=true&continue=abc&fieldSelector=metadata.name%3Dx&labelSelector=app%3Dweb%2Ctier%21%3Ddb" +
				"&limit=500&resourceVersion=123&resourceVersionMatch=Exact&sendInitialEvents=false&timeoutSeconds=300&watch=true",
		},
		{
			name:  "get",
			in:    &GetOptions{ResourceVersion: "0"},
			empty: func() queryOptions { return &GetOptions{} },
			query: "resourceVersion=0",
		},
		{
			name: "delete",
			in: &DeleteOptions{
				GracePeriodSeconds: ptr[int64](0), OrphanDependents: ptr(false),
				PropagationPolicy: ptr(DeletePropagationBackground), DryRun: []string{DryRunAll},
				IgnoreStoreReadErrorWithClusterBreakingPotential: ptr(true),
			},
			empty: func() queryOptions { return &DeleteOptions{} },
			query: "dryRun=All&gracePeriodSeconds=0&ignoreStoreReadErrorWithClusterBreakingPotential=true&orphanDependents=false&propagationPolicy=Background",
		},
		{
			name:  "create",
			in:    &CreateOptions{DryRun: []string{DryRunAll}, FieldManager: "kubectl-create", FieldValidation: FieldValidationStrict},
			empty: func() queryOptions { return &CreateOptions{} },
			query: "dryRun=All&fieldManager=kubectl-create&fieldValidation=Strict",
		},
		{
			name:  "update",
			in:    &UpdateOptions{FieldManager: "kubectl-edit", FieldValidation: FieldValidationWarn},
			empty: func() queryOptions { return &UpdateOptions{} },
			query: "fieldManager=kubectl-edit&fieldValidation=Warn",
		},
		{
			name:  "patch",
			in:    &PatchOptions{Force: ptr(true), FieldManager: "kubectl", FieldValidation: FieldValidationIgnore},
			empty: func() queryOptions { return &PatchOptions{} },
			query: "fieldManager=kubectl&fieldValidation=Ignore&force=true",
		},
		{
			name:  "table",
			in:    &TableOptions{IncludeObject: IncludeObject},
			empty: func() queryOptions { return &TableOptions{} },
			query: "includeObject=Object",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.in.ToQuery()
			if got := q.Encode(); got != tt.query {
				t.Errorf("ToQuery().Encode() = %q, want %q", got, tt.query)
			}
			parsed, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			out := tt.empty()
			if err := out.FromQuery(parsed); err != nil {
				t.Fatalf("FromQuery: %v", err)
			}
			if !reflect.DeepEqual(out, tt.in) {
				t.Errorf("FromQuery(ToQuery(x)) = %+v, want %+v", out, tt.in)
			}
		})
	}
}

func TestQueryFromKubectl(t *testing.T) {
	tests := []struct {
		query string
		into  queryOptions
		want  queryOptions
	}{
		{
			query: "fieldManager=kubectl-client-side-apply&fieldValidation=Strict",
			into:  &PatchOptions{},
			want:  &PatchOptions{FieldManager: "kubectl-client-side-apply", FieldValidation: "Strict"},
		},
		{
			query: "fieldManager=kubectl-client-side-apply&fieldValidation=Strict",
			into:  &CreateOptions{},
			want:  &CreateOptions{FieldManager: "kubectl-client-side-apply", FieldValidation: "Strict"},
		},
		{query: "limit=500", into: &ListOptions{}, want: &ListOptions{Limit: 500}},
		{
			query: "watch=true&allowWatchBookmarks=true&resourceVersion=123&timeoutSeconds=300",
			into:  &ListOptions{},
			want:  &ListOptions{Watch: true, AllowWatchBookmarks: true, ResourceVersion: "123", TimeoutSeconds: ptr[int64](300)},
		},
		{query: "watch=1", into: &ListOptions{}, want: &ListOptions{Watch: true}},
		{query: "watch", into: &ListOptions{}, want: &ListOptions{Watch: true}},
		{query: "watch=yes", into: &ListOptions{}, want: &ListOptions{Watch: true}},
		{query: "watch=false", into: &ListOptions{}, want: &ListOptions{}},
		{query: "watch=FALSE", into: &ListOptions{}, want: &ListOptions{}},
		{query: "watch=0", into: &ListOptions{}, want: &ListOptions{}},
		{query: "watch=0&watch=1", into: &ListOptions{}, want: &ListOptions{}},
		{query: "limit=5&unknown=x", into: &ListOptions{}, want: &ListOptions{Limit: 5}},
		{query: "dryRun=All&dryRun=All", into: &CreateOptions{}, want: &CreateOptions{DryRun: []string{"All", "All"}}},
		{query: "force=false", into: &PatchOptions{}, want: &PatchOptions{Force: ptr(false)}},
		{query: "propagationPolicy=Orphan", into: &DeleteOptions{}, want: &DeleteOptions{PropagationPolicy: ptr(DeletePropagationOrphan)}},
		{
			// Fields absent from the query are reset, TypeMeta is kept.
			query: "",
			into:  &ListOptions{TypeMeta: TypeMeta{Kind: "ListOptions"}, Limit: 3, Watch: true},
			want:  &ListOptions{TypeMeta: TypeMeta{Kind: "ListOptions"}},
		},
		{
			query: "gracePeriodSeconds=5",
			into:  &DeleteOptions{Preconditions: NewUIDPreconditions("u")},
			want:  &DeleteOptions{GracePeriodSeconds: ptr[int64](5), Preconditions: NewUIDPreconditions("u")},
		},
		{
			query: "includeObject=None",
			into:  &TableOptions{NoHeaders: true},
			want:  &TableOptions{NoHeaders: true, IncludeObject: IncludeNone},
		},
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		if err := tt.into.FromQuery(q); err != nil {
			t.Errorf("%T.FromQuery(%q): %v", tt.into, tt.query, err)
			continue
		}
		if !reflect.DeepEqual(tt.into, tt.want) {
			t.Errorf("%T.FromQuery(%q) = %+v, want %+v", tt.into, tt.query, tt.into, tt.want)
		}
	}
}

func TestQueryBadValues(t *testing.T) {
	tests := []struct {
		query   string
		into    queryOptions
		wantErr string
	}{
		{"limit=abc", &ListOptions{}, `invalid query parameter limit="abc": invalid syntax`},
		{"limit=", &ListOptions{}, `invalid query parameter limit="": invalid syntax`},
		{"limit=99999999999999999999", &ListOptions{}, `invalid query parameter limit="99999999999999999999": value out of range`},
		{"timeoutSeconds=1.5", &ListOptions{}, `invalid query parameter timeoutSeconds="1.5": invalid syntax`},
		{"timeoutSeconds=x&limit=y", &ListOptions{}, "timeoutSeconds"},
		{"timeoutSeconds=x&limit=y", &ListOptions{}, "limit"},
		{"gracePeriodSeconds=", &DeleteOptions{}, `invalid query parameter gracePeriodSeconds="": invalid syntax`},
		{"gracePeriodSeconds=soon", &DeleteOptions{}, "gracePeriodSeconds"},
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		before := reflect.ValueOf(tt.into).Elem().Interface()
		err = tt.into.FromQuery(q)
		if err == nil {
			t.Errorf("%T.FromQuery(%q) succeeded", tt.into, tt.query)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%T.FromQuery(%q) error = %q, want it to contain %q", tt.into, tt.query, err, tt.wantErr)
		}
		if after := reflect.ValueOf(tt.into).Elem().Interface(); !reflect.DeepEqual(before, after) {
			t.Errorf("%T.FromQuery(%q) changed the options on error: %+v", tt.into, tt.query, after)
		}
	}
}

func TestToQueryNil(t *testing.T) {
	for _, o := range []queryOptions{(*ListOptions)(nil), (*GetOptions)(nil), (*DeleteOptions)(nil), (*CreateOptions)(nil),
		(*UpdateOptions)(nil), (*PatchOptions)(nil), (*TableOptions)(nil)} {
		if q := o.ToQuery(); len(q) != 0 {
			t.Errorf("%T(nil).ToQuery() = %v", o, q)
		}
	}
}

func TestApplyOptionsToPatchOptions(t *testing.T) {
	got := ApplyOptions{DryRun: []string{DryRunAll}, Force: true, FieldManager: "m"}.ToPatchOptions()
	want := PatchOptions{DryRun: []string{DryRunAll}, Force: ptr(true), FieldManager: "m"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToPatchOptions() = %+v, want %+v", got, want)
	}
}
