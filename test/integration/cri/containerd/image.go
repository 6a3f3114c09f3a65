package containerd

import (
	"archive/tar"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// ImageFile is one file of an image's only layer: content, or a symlink
// to Link.
type ImageFile struct {
	Path    string
	Mode    int64
	Content []byte
	Link    string
}

// Image is a one-layer image built with the standard library.
type Image struct {
	// Name is what containerd and the CRI know it by.
	Name       string
	Entrypoint []string
	Cmd        []string
	// Env is added to PATH=/bin; WorkingDir is / when empty.
	Env        []string
	WorkingDir string
	Files      []ImageFile
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// layerTar is the image's filesystem as an uncompressed tar.
func (img Image) layerTar() ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	mtime := time.Unix(0, 0)
	for _, f := range img.Files {
		for d := filepath.Dir(f.Path); d != "." && d != "/" && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	// Parents sort before their children.
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: 0o755, ModTime: mtime}); err != nil {
			return nil, err
		}
	}
	for _, f := range img.Files {
		name := strings.TrimPrefix(f.Path, "/")
		if f.Link != "" {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: f.Link, Mode: 0o777, ModTime: mtime}); err != nil {
				return nil, err
			}
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: f.Mode, Size: int64(len(f.Content)), ModTime: mtime}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Content); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteOCIArchive writes the image as an OCI image layout in a tar, which
// `ctr images import` and the kubelet's --image-layout read.
func (img Image) WriteOCIArchive(path string) error {
	layer, err := img.layerTar()
	if err != nil {
		return fmt.Errorf("image %s layer: %w", img.Name, err)
	}
	config, err := json.Marshal(map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config": map[string]any{"Entrypoint": img.Entrypoint, "Cmd": img.Cmd,
			"Env": append([]string{"PATH=/bin"}, img.Env...), "WorkingDir": cmp.Or(img.WorkingDir, "/")},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{digestOf(layer)}},
	})
	if err != nil {
		return err
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        descriptor{MediaType: "application/vnd.oci.image.config.v1+json", Digest: digestOf(config), Size: int64(len(config))},
		"layers":        []descriptor{{MediaType: "application/vnd.oci.image.layer.v1.tar", Digest: digestOf(layer), Size: int64(len(layer))}},
	})
	if err != nil {
		return err
	}
	_, tag, _ := strings.Cut(img.Name[strings.LastIndex(img.Name, "/")+1:], ":")
	index, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"manifests": []descriptor{{
			MediaType: "application/vnd.oci.image.manifest.v1+json", Digest: digestOf(manifest), Size: int64(len(manifest)),
			Annotations: map[string]string{"io.containerd.image.name": img.Name, "org.opencontainers.image.ref.name": tag},
		}},
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	for _, e := range []struct {
		name string
		b    []byte
	}{
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", index},
		{"blobs/sha256/" + strings.TrimPrefix(digestOf(config), "sha256:"), config},
		{"blobs/sha256/" + strings.TrimPrefix(digestOf(manifest), "sha256:"), manifest},
		{"blobs/sha256/" + strings.TrimPrefix(digestOf(layer), "sha256:"), layer},
	} {
		if err := add(e.name, e.b); err != nil {
			return fmt.Errorf("image %s archive: %w", img.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// PauseImageOf builds test/images/pause statically into an image.
func PauseImageOf(name, repoRoot, workDir string) (Image, error) {
	bin := filepath.Join(workDir, "pause")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./test/images/pause")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Image{}, fmt.Errorf("build the pause binary: %w: %s", err, out)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return Image{}, err
	}
	return Image{Name: name, Entrypoint: []string{"/pause"}, Files: []ImageFile{{Path: "/pause", Mode: 0o755, Content: b}}}, nil
}

// busyboxPath is Debian's busybox-static, which hack/install-containerd.sh
// installs.
const busyboxPath = "/bin/busybox"

// BusyboxImageOf is Debian's static busybox with a link per applet, as the
// shell and tools of test containers.
func BusyboxImageOf(name string) (Image, error) {
	b, err := os.ReadFile(busyboxPath)
	if err != nil {
		return Image{}, fmt.Errorf("busybox-static is needed (run hack/install-containerd.sh): %w", err)
	}
	out, err := exec.Command(busyboxPath, "--list").Output()
	if err != nil {
		return Image{}, fmt.Errorf("busybox --list: %w", err)
	}
	files := []ImageFile{{Path: "/bin/busybox", Mode: 0o755, Content: b}}
	for _, applet := range strings.Fields(string(out)) {
		if applet != "busybox" {
			files = append(files, ImageFile{Path: "/bin/" + applet, Link: "busybox"})
		}
	}
	files = append(files, ImageFile{Path: "/tmp/.keep", Mode: 0o644})
	return Image{Name: name, Entrypoint: []string{"/bin/sh"}, Files: files}, nil
}

// HTTPDImageOf is busybox serving /www (an index.html saying "ok") on
// port 80 with its httpd, as its entrypoint: the stand-in for the nginx
// of `helm create`'s chart.
func HTTPDImageOf(name string) (Image, error) {
	img, err := BusyboxImageOf(name)
	if err != nil {
		return Image{}, err
	}
	img.Files = append(img.Files, ImageFile{Path: "/www/index.html", Mode: 0o644, Content: []byte("ok\n")})
	img.Entrypoint = []string{"/bin/httpd", "-f", "-v", "-p", "80", "-h", "/www"}
	return img, nil
}

// TestImages are the images the CRI tests import: the sandbox's pause
// image (built from test/images/pause under repoRoot, in workDir),
// busybox and httpd.
func TestImages(repoRoot, workDir string) ([]Image, error) {
	pause, err := PauseImageOf(PauseImage, repoRoot, workDir)
	if err != nil {
		return nil, err
	}
	busybox, err := BusyboxImageOf(BusyboxImage)
	if err != nil {
		return nil, err
	}
	httpd, err := HTTPDImageOf(HTTPDImage)
	if err != nil {
		return nil, err
	}
	return []Image{pause, busybox, httpd}, nil
}
