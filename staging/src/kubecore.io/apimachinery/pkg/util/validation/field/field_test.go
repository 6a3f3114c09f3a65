package field

import (
	"errors"
	"fmt"
	"testing"
)

func TestPathString(t *testing.T) {
	spec := NewPath("spec")
	tests := []struct {
		path *Path
		want string
	}{
		{NewPath("metadata", "labels").Key("app"), "metadata.labels[app]"},
		{spec.Child("containers").Index(1).Child("ports").Index(0).Child("containerPort"), "spec.containers[1].ports[0].containerPort"},
		{spec.Child("containers").Index(0).Child("env").Key("FOO"), "spec.containers[0].env[FOO]"},
		{NewPath("metadata").Child("annotations").Key(""), "metadata.annotations[]"},
		{NewPath("items").Index(-1), "items[-1]"},
		{spec.Child("template", "spec"), "spec.template.spec"},
		{NewPath(""), ""},
		{nil, "<nil>"},
	}
	for _, tc := range tests {
		if got := tc.path.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestPathSharing(t *testing.T) {
	base := NewPath("spec", "containers")
	a, b := base.Index(0), base.Index(1)
	if a.String() != "spec.containers[0]" || b.String() != "spec.containers[1]" {
		t.Fatalf("siblings interfere: %q %q", a, b)
	}
	if got := a.Child("name").Root().String(); got != "spec" {
		t.Errorf("Root() = %q, want spec", got)
	}
}

type stringer struct{ Ch chan int } // a channel makes json.Marshal fail

func (stringer) String() string { return "custom" }

func TestErrorText(t *testing.T) {
	p := NewPath("spec")
	tests := []struct {
		err  *Error
		want string
	}{
		{Invalid(p.Child("replicas"), int64(-1), "must be greater than or equal to 0"), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{Invalid(p.Child("replicas"), -1, "must be greater than or equal to 0"), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{Required(NewPath("metadata", "name"), "name or generateName is required"), "metadata.name: Required value: name or generateName is required"},
		{NotSupported(p.Child("restartPolicy"), "Sometimes", []string{"Always", "Never", "OnFailure"}), `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`},
		{NotSupported[string](p.Child("x"), "y", nil), `spec.x: Unsupported value: "y"`},
		{Invalid(NewPath("metadata", "name"), "Bad", "a lowercase name"), `metadata.name: Invalid value: "Bad": a lowercase name`},
		{Forbidden(p.Child("nodeName"), "may not be set"), "spec.nodeName: Forbidden: may not be set"},
		{TooLong(NewPath("metadata", "annotations"), "", 262144), "metadata.annotations: Too long: may not be more than 262144 bytes"},
		{TooLong(p, "", 1), "spec: Too long: may not be more than 1 byte"},
		{TooLong(p, "", -1), "spec: Too long: value is too long"},
		{TooMany(p.Child("items"), 5, 3), "spec.items: Too many: 5: must have at most 3 items"},
		{TooMany(p.Child("items"), -1, 1), "spec.items: Too many: must have at most 1 item"},
		{TooFew(p.Child("items"), 0, 1), "spec.items: Too few: 0: must have at least 1 item"},
		{TooShort(p.Child("s"), "a", 2), "spec.s: Too short: must be at least 2 characters"},
		{Duplicate(p.Child("ports").Index(1), "http"), `spec.ports[1]: Duplicate value: "http"`},
		{NotFound(p.Child("volume"), "data"), `spec.volume: Not found: "data"`},
		{InternalError(p, errors.New("boom")), "spec: Internal error: boom"},
		{TypeInvalid(p.Child("n"), "x", "expected integer"), `spec.n: Invalid value: "x": expected integer`},
		{Invalid(p.Child("list"), []string{"a", "b"}, "bad"), `spec.list: Invalid value: ["a","b"]: bad`},
		{Invalid(p.Child("ptr"), (*int)(nil), "bad"), "spec.ptr: Invalid value: null: bad"},
		{Invalid(p.Child("flag"), true, ""), "spec.flag: Invalid value: true"},
		{Invalid(p.Child("s"), stringer{}, "x"), "spec.s: Invalid value: custom: x"},
		{&Error{Type: "Odd", Field: "f"}, "f: Internal error: unhandled error code: Odd: please report this"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestErrorTypeString(t *testing.T) {
	tests := map[ErrorType]string{
		ErrorTypeNotFound: "Not found", ErrorTypeRequired: "Required value", ErrorTypeDuplicate: "Duplicate value",
		ErrorTypeInvalid: "Invalid value", ErrorTypeNotSupported: "Unsupported value", ErrorTypeForbidden: "Forbidden",
		ErrorTypeTooLong: "Too long", ErrorTypeTooMany: "Too many", ErrorTypeInternal: "Internal error",
		ErrorTypeTypeInvalid: "Invalid value", "Nope": `<unknown error "Nope">`,
	}
	for typ, want := range tests {
		if got := typ.String(); got != want {
			t.Errorf("%s.String() = %q, want %q", string(typ), got, want)
		}
	}
	if ErrorTypeInvalid != "FieldValueInvalid" || ErrorTypeInternal != "InternalError" {
		t.Error("cause strings changed")
	}
}

func TestToAggregate(t *testing.T) {
	if ErrorList(nil).ToAggregate() != nil {
		t.Fatal("empty list must give nil")
	}
	p := NewPath("spec")
	one := ErrorList{Required(p, "")}
	if got := one.ToAggregate().Error(); got != "spec: Required value" {
		t.Errorf("one: %q", got)
	}
	dup := Invalid(p.Child("a"), 1, "x")
	list := ErrorList{dup, Required(p.Child("b"), ""), Invalid(p.Child("a"), 1, "x")}
	agg := list.ToAggregate()
	want := "[spec.a: Invalid value: 1: x, spec.b: Required value]"
	if agg.Error() != want {
		t.Errorf("got %q want %q", agg.Error(), want)
	}
	var fe *Error
	if !errors.As(agg, &fe) || fe != dup {
		t.Errorf("errors.As did not find the first field error")
	}
	wrapped := fmt.Errorf("validate: %w", agg)
	if !errors.Is(wrapped, dup) {
		t.Errorf("errors.Is through wrapping failed")
	}
}

func TestFilter(t *testing.T) {
	p := NewPath("spec")
	list := ErrorList{Required(p.Child("a"), ""), Invalid(p.Child("b"), 1, ""), Forbidden(p.Child("c"), "")}
	got := list.Filter(NewErrorTypeMatcher(ErrorTypeRequired), NewErrorTypeMatcher(ErrorTypeForbidden))
	if len(got) != 1 || got[0].Field != "spec.b" {
		t.Errorf("Filter = %v", got)
	}
	if got := list.Filter(); len(got) != 3 {
		t.Errorf("Filter() without matchers dropped errors: %v", got)
	}
}
