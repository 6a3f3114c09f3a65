package set

import (
	"encoding/json"
	"testing"
)

func TestUpdateEnv(t *testing.T) {
	env := func(s string) []any {
		var v []any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name, env string
		set       []envVar
		remove    []string
		want      string
	}{
		{name: "append in order", env: `[]`, set: []envVar{{name: "B", value: "2"}, {name: "A", value: "1"}}, want: `[{"name":"B","value":"2"},{"name":"A","value":"1"}]`},
		{name: "replace in place", env: `[{"name":"A","value":"1"},{"name":"B","value":"2"}]`, set: []envVar{{name: "A", value: "3"}}, want: `[{"name":"A","value":"3"},{"name":"B","value":"2"}]`},
		{name: "replace a reference", env: `[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"x"}}}]`, set: []envVar{{name: "A", value: "v"}}, want: `[{"name":"A","value":"v"}]`},
		{name: "empty value", env: `[]`, set: []envVar{{name: "C", value: ""}}, want: `[{"name":"C"}]`},
		{name: "remove", env: `[{"name":"A","value":"1"},{"name":"B","value":"2"}]`, remove: []string{"A", "Z"}, want: `[{"name":"B","value":"2"}]`},
		{name: "reference from a key", env: `[{"name":"A","value":"1"}]`, set: []envVar{{name: "A", from: map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "a"}}}}, want: `[{"name":"A","valueFrom":{"secretKeyRef":{"key":"a","name":"s"}}}]`},
		{name: "remove wins over set", env: `[]`, set: []envVar{{name: "A", value: "1"}}, remove: []string{"A"}, want: `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(updateEnv(env(tc.env), tc.set, tc.remove))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for key, want := range map[string]string{"a.b": "A_B", "mid-key": "MID_KEY", "ABC": "ABC", "x_1": "X_1"} {
		if got := envName(key); got != want {
			t.Errorf("envName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestEnvComplete(t *testing.T) {
	o := &EnvOptions{EnvArgs: []string{"E=5"}}
	if err := o.Complete([]string{"deploy/web", "A=1", "B-", "pods", "x-y"}); err != nil {
		t.Fatal(err)
	}
	if len(o.resArgs) != 3 || o.resArgs[0] != "deploy/web" || o.resArgs[1] != "pods" || o.resArgs[2] != "x-y" {
		t.Errorf("resources %q", o.resArgs)
	}
	if len(o.setVars) != 2 || o.setVars[0].name != "E" || o.setVars[0].value != "5" || o.setVars[1].name != "A" || o.setVars[1].value != "1" {
		t.Errorf("set %q", o.setVars)
	}
	if len(o.removals) != 1 || o.removals[0] != "B" {
		t.Errorf("removals %q", o.removals)
	}
	if err := (&EnvOptions{}).Complete([]string{"=x"}); err == nil {
		t.Error("want an error for an empty name")
	}
}
