// Command ociarchive writes the CRI tests' images (pause, busybox from
// Debian's busybox-static, httpd) as OCI archives, one per image, for
// `ctr images import` (hack/load-test-images.sh) or the kubelet's
// --image-layout, so that tests run real images without a registry.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"kubecore.io/kubecore/test/integration/cri/containerd"
)

func main() {
	out := flag.String("out", ".", "directory the archives are written to")
	root := flag.String("repo-root", ".", "the kubecore repository, whose test/images/pause is built")
	flag.Parse()
	if err := run(*out, *root); err != nil {
		fmt.Fprintln(os.Stderr, "ociarchive:", err)
		os.Exit(1)
	}
}

func run(out, root string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	images, err := containerd.TestImages(root, out)
	if err != nil {
		return err
	}
	for _, img := range images {
		name := strings.NewReplacer("/", "_", ":", "_").Replace(img.Name) + ".tar"
		p := filepath.Join(out, name)
		if err := img.WriteOCIArchive(p); err != nil {
			return fmt.Errorf("image %s: %w", img.Name, err)
		}
		fmt.Println(p)
	}
	return os.Remove(filepath.Join(out, "pause")) // the binary, now in its image
}
