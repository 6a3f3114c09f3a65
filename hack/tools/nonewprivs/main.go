// Command nonewprivs stands in for the program of the e2e test image
// registry.k8s.io/e2e-test-images/nonewprivs under the process runtime:
// installed setuid root, it prints the effective uid it runs with, so that
// a non-root container shows whether executing it raised its privileges
// (it does not under no_new_privs, allowPrivilegeEscalation: false).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Printf("Effective uid: %d\n", os.Geteuid())
}
