package metaedit

import (
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		kind    Kind
		args    []string
		want    Change
		wantErr string
	}{
		{name: "set and remove", kind: Labels(), args: []string{"a=1", "b-", "c="},
			want: Change{Set: map[string]string{"a": "1", "c": ""}, Remove: []string{"b"}}},
		{name: "prefixed key", kind: Labels(), args: []string{"example.com/tier=web"},
			want: Change{Set: map[string]string{"example.com/tier": "web"}}},
		{name: "bad label value", kind: Labels(), args: []string{"a=b c"},
			wantErr: `invalid label value: "a=b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{name: "annotation value is free", kind: Annotations(), args: []string{"note=any text: here"},
			want: Change{Set: map[string]string{"note": "any text: here"}}},
		{name: "both set and removed", kind: Labels(), args: []string{"a=1", "a-"},
			wantErr: "can not both modify and remove the following label(s) in the same command: a"},
		{name: "no operator", kind: Labels(), args: []string{"a"}, wantErr: "invalid label format: a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.kind.ParseArgs(tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
