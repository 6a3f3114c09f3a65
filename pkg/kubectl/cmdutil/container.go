package cmdutil

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"kubecore.io/client/dynamic"
)

// DefaultContainerAnnotation names the container logs and exec pick when
// none is given.
const DefaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// DefaultContainer returns the container of pod that logs and exec use
// when -c is not given: the one the annotation names, else the first; in
// the second case a pod of several containers gets kubectl's note on
// errOut (nil for none).
func DefaultContainer(pod *dynamic.Unstructured, errOut io.Writer) string {
	names := containerNames(pod, "containers")
	if want := pod.GetAnnotations()[DefaultContainerAnnotation]; want != "" && slices.Contains(names, want) {
		return want
	}
	if len(names) == 0 {
		return ""
	}
	all := names
	for _, kind := range []string{"ephemeralContainers", "initContainers"} {
		label := map[string]string{"ephemeralContainers": "ephem", "initContainers": "init"}[kind]
		for _, n := range containerNames(pod, kind) {
			all = append(all, fmt.Sprintf("%s (%s)", n, label))
		}
	}
	if len(all) > 1 && errOut != nil {
		fmt.Fprintf(errOut, "Defaulted container %q out of: %s\n", names[0], strings.Join(all, ", "))
	}
	return names[0]
}

// containerNames lists the names of the pod's spec.<field>.
func containerNames(pod *dynamic.Unstructured, field string) []string {
	list, _ := dynamic.NestedField(pod.Object, "spec", field).([]any)
	var names []string
	for _, c := range list {
		m, _ := c.(map[string]any)
		names = append(names, dynamic.NestedString(m, "name"))
	}
	return names
}
