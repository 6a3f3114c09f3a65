package componentstatus

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
)

func TestStatusOfProbes(t *testing.T) {
	healthy := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer healthy.Close()
	sick := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not ready", http.StatusInternalServerError)
	}))
	defer sick.Close()
	r := NewREST([]Probe{
		{Name: "etcd-0", Check: func(context.Context) (string, error) { return "", errors.New("etcd down") }},
		HTTPProbe("scheduler", healthy.URL+"/healthz"),
		HTTPProbe("controller-manager", sick.URL+"/healthz"),
	}, nil)
	obj, err := r.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]corev1.ComponentCondition{}
	for _, cs := range obj.(*corev1.ComponentStatusList).Items {
		got[cs.Name] = cs.Conditions[0]
	}
	if c := got["scheduler"]; c.Status != corev1.ConditionTrue || c.Message != "ok" {
		t.Errorf("scheduler %+v, want healthy with ok", c)
	}
	if c := got["controller-manager"]; c.Status != corev1.ConditionFalse || !strings.Contains(c.Error, "unhealthy http status code: 500") {
		t.Errorf("controller-manager %+v, want unhealthy with the status code", c)
	}
	if c := got["etcd-0"]; c.Status != corev1.ConditionFalse || c.Error != "etcd down" {
		t.Errorf("etcd-0 %+v", c)
	}
	if _, err := r.Get(context.Background(), "nope", nil); !apierrors.IsNotFound(err) {
		t.Errorf("get of an unknown component: %v, want NotFound", err)
	}
}

func TestReplace(t *testing.T) {
	probe := func(name, msg string) Probe {
		return Probe{Name: name, Check: func(context.Context) (string, error) { return msg, nil }}
	}
	defaults := []Probe{probe("etcd-0", "etcd"), probe("scheduler", "http"), probe("controller-manager", "http")}
	got := Replace(defaults, probe("controller-manager", "local"), probe("extra", "new"))
	var names, msgs []string
	for _, p := range got {
		m, _ := p.Check(context.Background())
		names, msgs = append(names, p.Name), append(msgs, m)
	}
	if want := "etcd-0 scheduler controller-manager extra"; strings.Join(names, " ") != want {
		t.Errorf("names %v, want %s", names, want)
	}
	if want := "etcd http local new"; strings.Join(msgs, " ") != want {
		t.Errorf("messages %v, want %s", msgs, want)
	}
	if m, _ := defaults[2].Check(context.Background()); m != "http" {
		t.Error("Replace changed its input")
	}
}
