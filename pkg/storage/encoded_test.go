package storage

import (
	"errors"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
)

func TestItemBody(t *testing.T) {
	tests := []struct {
		json, want string
		ok         bool
	}{
		{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},"spec":{}}`, `"metadata":{"name":"p"},"spec":{}}`, true},
		{`{"kind":"Deployment","apiVersion":"apps/v1"}`, `}`, true},
		// Not in Kubernetes' order, or no type members: kept as they are.
		{`{"apiVersion":"v1","kind":"Pod","metadata":{}}`, `"apiVersion":"v1","kind":"Pod","metadata":{}}`, true},
		{`{"metadata":{}}`, `"metadata":{}}`, true},
		{`{"kind":"Pod","apiVersion":"v1"`, `"kind":"Pod","apiVersion":"v1"`, true},
		{`[]`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		e := NewEncodedObject(nil, func(runtime.Object) ([]byte, error) { return []byte(tt.json), nil })
		got, err := e.ItemBody()
		if (err == nil) != tt.ok || string(got) != tt.want {
			t.Errorf("%s: got %s, %v; want %s (ok %v)", tt.json, got, err, tt.want, tt.ok)
		}
	}
	failing := NewEncodedObject(nil, func(runtime.Object) ([]byte, error) { return nil, errors.New("boom") })
	if _, err := failing.ItemBody(); err == nil {
		t.Error("an encoding error was swallowed")
	}
}
