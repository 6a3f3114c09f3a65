package oci

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testLayout builds a layout directory blob by blob.
type testLayout struct {
	t     *testing.T
	dir   string
	index Index
}

func newTestLayout(t *testing.T) *testLayout {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &testLayout{t: t, dir: dir, index: Index{SchemaVersion: 2}}
	l.writeIndex()
	return l
}

// blob writes v (JSON) as a blob and returns its descriptor.
func (l *testLayout) blob(mediaType string, v any) Descriptor {
	l.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		l.t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	d := Descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))}
	if err := os.MkdirAll(filepath.Join(l.dir, "blobs", "sha256"), 0o755); err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(l.blobPath(d), b, 0o644); err != nil {
		l.t.Fatal(err)
	}
	return d
}

func (l *testLayout) blobPath(d Descriptor) string {
	return filepath.Join(l.dir, "blobs", "sha256", strings.TrimPrefix(d.Digest, "sha256:"))
}

// image writes a config and its manifest and returns the manifest's
// descriptor.
func (l *testLayout) image(arch string, c Config) Descriptor {
	cfg := l.blob(MediaTypeConfig, imageConfig{OS: "linux", Architecture: arch, Config: c})
	return l.blob(MediaTypeManifest, Manifest{SchemaVersion: 2, MediaType: MediaTypeManifest, Config: cfg, Layers: []Descriptor{}})
}

func (l *testLayout) add(d Descriptor, annotations map[string]string) {
	d.Annotations = annotations
	l.index.Manifests = append(l.index.Manifests, d)
	l.writeIndex()
}

func (l *testLayout) writeIndex() {
	b, err := json.Marshal(l.index)
	if err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.dir, "index.json"), b, 0o644); err != nil {
		l.t.Fatal(err)
	}
}

// archive writes the layout as an OCI archive.
func (l *testLayout) archive() string {
	l.t.Helper()
	p := filepath.Join(l.t.TempDir(), "image.tar")
	f, err := os.Create(p)
	if err != nil {
		l.t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	err = filepath.Walk(l.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == l.dir {
			return err
		}
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(l.dir, p)
		h.Name = "./" + rel
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if fi.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		l.t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		l.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		l.t.Fatal(err)
	}
	return p
}

var greeter = Config{
	Entrypoint: []string{"/bin/greet"}, Cmd: []string{"--loud"},
	Env: []string{"PATH=/bin", "GREETING=hi"}, WorkingDir: "/srv", User: "1000:1000",
}

func TestGoodLayout(t *testing.T) {
	l := newTestLayout(t)
	m := l.image("amd64", greeter)
	l.add(m, map[string]string{AnnotationRefName: "example.com/team/greeter:1.0"})
	l.add(l.image("amd64", Config{Cmd: []string{"sh"}}), map[string]string{AnnotationContainerdName: "docker.io/library/busybox:latest"})

	for _, spec := range []string{l.dir, l.archive()} {
		layout, err := Open(spec)
		if err != nil {
			t.Fatalf("Open(%s): %v", spec, err)
		}
		layout.Platform.Architecture = "amd64"
		for _, tc := range []struct {
			image string
			want  Config
			ok    bool
		}{
			{"example.com/team/greeter:1.0", greeter, true},
			{"example.com/team/greeter@" + m.Digest, greeter, true},
			{"busybox", Config{Cmd: []string{"sh"}}, true},
			{"docker.io/busybox:latest", Config{Cmd: []string{"sh"}}, true},
			{"example.com/team/greeter:2.0", Config{}, false},
			{"busybox:1.36", Config{}, false},
		} {
			got, ok, err := layout.ImageConfig(context.Background(), tc.image)
			if err != nil || ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: ImageConfig(%q) = %+v, %v, %v; want %+v, %v", spec, tc.image, got, ok, err, tc.want, tc.ok)
			}
		}
		images, err := layout.Images()
		if err != nil || !reflect.DeepEqual(images, []string{"example.com/team/greeter:1.0", "docker.io/library/busybox:latest"}) {
			t.Errorf("%s: Images() = %q, %v", spec, images, err)
		}
	}
}

// TestNamedLayout: NAME=DIR, whose ref names are tags, as skopeo's
// oci:DIR:TAG writes them.
func TestNamedLayout(t *testing.T) {
	l := newTestLayout(t)
	l.add(l.image("amd64", greeter), map[string]string{AnnotationRefName: "1.0"})
	l.add(l.image("amd64", Config{Cmd: []string{"old"}}), map[string]string{AnnotationRefName: "latest"})
	layout, err := Open("example.com/team/greeter=" + l.dir)
	if err != nil {
		t.Fatal(err)
	}
	layout.Platform.Architecture = "amd64"
	for image, want := range map[string][]string{
		"example.com/team/greeter:1.0": greeter.Cmd,
		"example.com/team/greeter":     {"old"},
		"example.com/team/greeter:2":   nil,
		"other:1.0":                    nil,
	} {
		got, ok, err := layout.ImageConfig(context.Background(), image)
		if err != nil || ok != (want != nil) || !reflect.DeepEqual(got.Cmd, want) {
			t.Errorf("ImageConfig(%q) = %+v, %v, %v; want cmd %q", image, got, ok, err, want)
		}
	}
	for _, bad := range []string{"=" + l.dir, "greeter:1.0=" + l.dir, "greeter@sha256:00=" + l.dir, "greeter="} {
		if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "want DIR") {
			t.Errorf("Open(%q): %v; want a usage error", bad, err)
		}
	}
	// A path with "=" in it is a path.
	odd := filepath.Join(t.TempDir(), "a=b")
	if err := os.Rename(l.dir, odd); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(odd); err != nil {
		t.Errorf("Open(%s): %v", odd, err)
	}
}

func TestMultiArchIndexPicksThePlatform(t *testing.T) {
	l := newTestLayout(t)
	arm := l.image("arm64", Config{Cmd: []string{"arm"}})
	arm.Platform = &Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}
	amd := l.image("amd64", Config{Cmd: []string{"amd"}})
	amd.Platform = &Platform{OS: "linux", Architecture: "amd64"}
	win := l.image("amd64", Config{Cmd: []string{"win"}})
	win.Platform = &Platform{OS: "windows", Architecture: "amd64"}
	idx := l.blob(MediaTypeIndex, Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: []Descriptor{arm, win, amd}})
	l.add(idx, map[string]string{AnnotationRefName: "example.com/multi:1"})

	layout, err := Open(l.dir)
	if err != nil {
		t.Fatal(err)
	}
	for arch, want := range map[string]string{"amd64": "amd", "arm64": "arm"} {
		layout.Platform = Platform{OS: "linux", Architecture: arch}
		got, ok, err := layout.ImageConfig(context.Background(), "example.com/multi:1")
		if err != nil || !ok || !reflect.DeepEqual(got.Cmd, []string{want}) {
			t.Errorf("linux/%s: ImageConfig = %+v, %v, %v; want cmd %q", arch, got, ok, err, want)
		}
	}
	layout.Platform = Platform{OS: "linux", Architecture: "s390x"}
	if _, ok, err := layout.ImageConfig(context.Background(), "example.com/multi:1"); !ok || err == nil || !strings.Contains(err.Error(), "none for linux/s390x") {
		t.Errorf("linux/s390x: %v, %v; want an error saying no manifest is for it", ok, err)
	}
}

func TestBadLayouts(t *testing.T) {
	t.Run("missing blob", func(t *testing.T) {
		l := newTestLayout(t)
		m := l.image("amd64", greeter)
		l.add(m, map[string]string{AnnotationRefName: "example.com/a:1"})
		var mf Manifest
		b, _ := os.ReadFile(l.blobPath(m))
		_ = json.Unmarshal(b, &mf)
		if err := os.Remove(l.blobPath(mf.Config)); err != nil {
			t.Fatal(err)
		}
		layout, err := Open(l.dir)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := layout.ImageConfig(context.Background(), "example.com/a:1")
		if !ok || err == nil || !strings.Contains(err.Error(), "blob "+mf.Config.Digest+" is missing") {
			t.Errorf("ImageConfig = %v, %v; want the missing config blob named", ok, err)
		}
	})
	t.Run("digest mismatch", func(t *testing.T) {
		l := newTestLayout(t)
		m := l.image("amd64", greeter)
		l.add(m, map[string]string{AnnotationRefName: "example.com/a:1"})
		b, _ := os.ReadFile(l.blobPath(m))
		b[len(b)-2] = ' ' // same size, other content
		if err := os.WriteFile(l.blobPath(m), b, 0o644); err != nil {
			t.Fatal(err)
		}
		layout, err := Open(l.archive())
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := layout.ImageConfig(context.Background(), "example.com/a:1")
		if !ok || err == nil || !strings.Contains(err.Error(), "digest mismatch") {
			t.Errorf("ImageConfig = %v, %v; want a digest mismatch", ok, err)
		}
	})
	t.Run("size mismatch", func(t *testing.T) {
		l := newTestLayout(t)
		m := l.image("amd64", greeter)
		m.Size--
		l.add(m, map[string]string{AnnotationRefName: "example.com/a:1"})
		layout, _ := Open(l.dir)
		if _, _, err := layout.ImageConfig(context.Background(), "example.com/a:1"); err == nil || !strings.Contains(err.Error(), "descriptor says") {
			t.Errorf("ImageConfig: %v; want a size mismatch", err)
		}
	})
	for name, tc := range map[string]struct {
		file, content, want string
	}{
		"no oci-layout":    {"oci-layout", "", "not an OCI image layout"},
		"layout version":   {"oci-layout", `{"imageLayoutVersion":"2.0.0"}`, `imageLayoutVersion "2.0.0" is not supported`},
		"no index":         {"index.json", "", "index.json"},
		"index not JSON":   {"index.json", "{", "index.json"},
		"index schema":     {"index.json", `{"schemaVersion":1,"manifests":[]}`, "schemaVersion 1"},
		"index bad digest": {"index.json", `{"schemaVersion":2,"manifests":[{"mediaType":"` + MediaTypeManifest + `","digest":"md5:00","size":1}]}`, `manifests[0]: digest "md5:00"`},
	} {
		t.Run(name, func(t *testing.T) {
			l := newTestLayout(t)
			p := filepath.Join(l.dir, tc.file)
			if tc.content == "" {
				_ = os.Remove(p)
			} else if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(l.dir); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), l.dir) {
				t.Errorf("Open: %v; want an error naming the layout and containing %q", err, tc.want)
			}
		})
	}
	t.Run("not a tar", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "image.tar")
		if err := os.WriteFile(p, []byte("not a tar file at all, clearly"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "not an OCI") {
			t.Errorf("Open: %v; want not an OCI archive", err)
		}
	})
	t.Run("no such path", func(t *testing.T) {
		if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Error("Open of a missing path succeeded")
		}
	})
}
