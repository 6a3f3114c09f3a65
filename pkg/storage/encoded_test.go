package storage

import (
	"errors"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
)

func TestItemJSON(t *testing.T) {
	tests := []struct {
		json, want string
		ok         bool
	}{
		{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},"spec":{}}`, `{"metadata":{"name":"p"},"spec":{}}`, true},
		{`{"kind":"Deployment","apiVersion":"apps/v1"}`, `{}`, true},
		{`{"apiVersion":"v1","kind":"Pod","metadata":{}}`, "", false},
		{`{"metadata":{}}`, "", false},
		{`{"kind":"Pod","apiVersion":"v1"`, "", false},
	}
	for _, tt := range tests {
		e := NewEncodedObject(nil, func(runtime.Object) ([]byte, error) { return []byte(tt.json), nil })
		got, ok, err := e.ItemJSON()
		if err != nil || ok != tt.ok || ok && string(got) != tt.want {
			t.Errorf("%s: got %s %v %v, want %s %v", tt.json, got, ok, err, tt.want, tt.ok)
		}
	}
	failing := NewEncodedObject(nil, func(runtime.Object) ([]byte, error) { return nil, errors.New("boom") })
	if _, _, err := failing.ItemJSON(); err == nil {
		t.Error("an encoding error was swallowed")
	}
}
