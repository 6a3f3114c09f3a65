package validation

import "encoding/json"

// apiEqual compares two API values by their JSON form, as clients see them.
func apiEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
