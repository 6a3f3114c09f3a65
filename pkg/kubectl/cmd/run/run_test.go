package run

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestOverrides(t *testing.T) {
	for _, tc := range []struct {
		name, typ, overrides string
		want                 []string // substrings of the resulting pod's JSON
		wantErr              string
	}{
		{"merge", "merge", `{"spec":{"nodeName":"n1"}}`, []string{`"nodeName":"n1"`, `"image":"busybox"`}, ""},
		{"merge replaces lists", "merge", `{"spec":{"containers":[{"name":"other","image":"x"}]}}`, []string{`"name":"other"`}, ""},
		{"json", "json", `[{"op":"add","path":"/spec/hostNetwork","value":true}]`, []string{`"hostNetwork":true`}, ""},
		{"strategic merges containers by name", "strategic", `{"spec":{"containers":[{"name":"p","stdin":true}]}}`, []string{`"stdin":true`, `"image":"busybox"`}, ""},
		{"bad type", "yaml", `{}`, nil, "invalid override type: yaml"},
		{"bad json", "merge", `{nope`, nil, "error applying overrides"},
	} {
		o := &Options{Image: "busybox", Restart: "Always", Overrides: tc.overrides, OverrideType: tc.typ}
		pod, err := o.pod("p", []string{"sh"})
		if err != nil {
			t.Fatal(err)
		}
		err = o.override(pod.obj)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		b, _ := json.Marshal(pod.obj.Object)
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: %s lacks %s", tc.name, b, w)
			}
		}
	}
}
