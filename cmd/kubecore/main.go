// Command kubecore is a small Kubernetes control plane in one binary: each
// component is a subcommand, and all-in-one runs them together.
package main

import (
	"os"

	"kubecore.io/kubecore/cmd/kubecore/app"
)

func main() {
	os.Exit(app.Run(os.Args))
}
