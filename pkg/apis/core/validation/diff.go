package validation

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// specDiff describes how a differs from b, one changed top-level JSON
// field a line ("-" old, "+" new); empty when they encode alike.
func specDiff(a, b any) string {
	ma, mb := jsonFields(a), jsonFields(b)
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	var changed []string
	for k := range keys {
		if string(ma[k]) != string(mb[k]) {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	var sb strings.Builder
	for _, k := range changed {
		fmt.Fprintf(&sb, "  %s:\n-\t%s\n+\t%s\n", k, orNone(mb[k]), orNone(ma[k]))
	}
	return sb.String()
}

func orNone(b json.RawMessage) string {
	if len(b) == 0 {
		return "<none>"
	}
	return string(b)
}

func jsonFields(v any) map[string]json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		return map[string]json.RawMessage{"<error>": json.RawMessage(fmt.Sprintf("%q", err.Error()))}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return map[string]json.RawMessage{"<error>": json.RawMessage(fmt.Sprintf("%q", err.Error()))}
	}
	return m
}
