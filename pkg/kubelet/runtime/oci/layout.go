// Package oci reads the configuration of images (entrypoint, cmd, env,
// working dir, user) from OCI image layouts, as directories or as OCI
// archives (a tar of one), without pulling or unpacking any layer.
package oci

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"runtime"
	"strings"
)

// Media types of the documents a layout's index leads to: OCI's, and
// Docker's that OCI archives made by docker and skopeo still carry.
const (
	MediaTypeIndex          = "application/vnd.oci.image.index.v1+json"
	MediaTypeManifest       = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeConfig         = "application/vnd.oci.image.config.v1+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
)

// Annotations of an index's descriptors that name an image.
const (
	AnnotationRefName        = "org.opencontainers.image.ref.name"
	AnnotationContainerdName = "io.containerd.image.name"
)

// maxDocumentSize bounds the index, manifests and configs read into
// memory; real ones are a few KiB.
const maxDocumentSize = 4 << 20

// Config is what an image's configuration says a container runs.
type Config struct {
	Entrypoint []string `json:"Entrypoint,omitempty"`
	Cmd        []string `json:"Cmd,omitempty"`
	Env        []string `json:"Env,omitempty"`
	WorkingDir string   `json:"WorkingDir,omitempty"`
	User       string   `json:"User,omitempty"`
}

// Descriptor points at a blob of the layout.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    *Platform         `json:"platform,omitempty"`
}

// Platform is the os and architecture an index entry runs on.
type Platform struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Variant      string `json:"variant,omitempty"`
}

// Index is an image index: index.json, or a multi-platform image.
type Index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType,omitempty"`
	Manifests     []Descriptor `json:"manifests"`
}

// Manifest is one platform's image.
type Manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType,omitempty"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// imageConfig is the configuration blob, of which only the container
// config and the platform matter here.
type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       Config `json:"config"`
}

// layoutFile is the oci-layout file.
type layoutFile struct {
	Version string `json:"imageLayoutVersion"`
}

// store reads the files of a layout by their path in it.
type store interface {
	// read returns the file, or an error wrapping fs.ErrNotExist.
	read(name string, max int64) ([]byte, error)
	close() error
}

// Layout is an OCI image layout on disk. Each lookup reads its index
// again, so that images added to a layout directory are found without a
// restart.
type Layout struct {
	path string
	// repo, when set, is the repository the layout's images belong to,
	// whose tags are the index's ref names (as skopeo writes oci:DIR:TAG).
	repo string
	// Platform is the platform picked from multi-platform images
	// (linux and this machine's architecture by default).
	Platform Platform
}

// Open checks the layout at path (a directory, or an OCI archive: a tar
// file of one) and returns it. A spec "NAME=PATH" says that the layout
// holds the repository NAME, whose tags are the ref names of its index
// ("latest" for an image without a tag); otherwise images are found by the
// full references of the index's ref names or containerd's image names.
func Open(spec string) (*Layout, error) {
	l := &Layout{path: spec, Platform: Platform{OS: "linux", Architecture: runtime.GOARCH}}
	if name, p, ok := strings.Cut(spec, "="); ok && !exists(spec) {
		repo, tag, digest := parseReference(name)
		if name == "" || p == "" || tag != "latest" || digest != "" || strings.HasSuffix(name, ":latest") {
			return nil, fmt.Errorf("image layout %q: want DIR, ARCHIVE.tar, NAME=DIR or NAME=ARCHIVE.tar with NAME a repository without tag or digest", spec)
		}
		l.repo, l.path = repo, p
	}
	s, err := l.open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.close() }()
	if _, err := l.index(s); err != nil {
		return nil, err
	}
	return l, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// String is the layout's path.
func (l *Layout) String() string { return l.path }

func (l *Layout) open() (store, error) {
	st, err := os.Stat(l.path)
	if err != nil {
		return nil, fmt.Errorf("image layout: %w", err)
	}
	var s store
	if st.IsDir() {
		s = dirStore(l.path)
	} else if s, err = openTar(l.path); err != nil {
		return nil, fmt.Errorf("image layout %s: %w", l.path, err)
	}
	b, err := s.read("oci-layout", maxDocumentSize)
	if err != nil {
		_ = s.close()
		return nil, fmt.Errorf("image layout %s: not an OCI image layout: %w", l.path, err)
	}
	var lf layoutFile
	if err := json.Unmarshal(b, &lf); err != nil || lf.Version == "" {
		_ = s.close()
		return nil, fmt.Errorf("image layout %s: oci-layout has no imageLayoutVersion: %q", l.path, b)
	}
	if !strings.HasPrefix(lf.Version, "1.") {
		_ = s.close()
		return nil, fmt.Errorf("image layout %s: imageLayoutVersion %q is not supported (want 1.x)", l.path, lf.Version)
	}
	return s, nil
}

func (l *Layout) index(s store) (*Index, error) {
	b, err := s.read("index.json", maxDocumentSize)
	if err != nil {
		return nil, fmt.Errorf("image layout %s: %w", l.path, err)
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("image layout %s: index.json: %w", l.path, err)
	}
	if idx.SchemaVersion != 2 {
		return nil, fmt.Errorf("image layout %s: index.json: schemaVersion %d, want 2", l.path, idx.SchemaVersion)
	}
	for i, d := range idx.Manifests {
		if err := validDigest(d.Digest); err != nil {
			return nil, fmt.Errorf("image layout %s: index.json manifests[%d]: %w", l.path, i, err)
		}
	}
	return &idx, nil
}

// Images are the names of the layout's images, as a pod would give them.
func (l *Layout) Images() ([]string, error) {
	s, err := l.open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.close() }()
	idx, err := l.index(s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range idx.Manifests {
		if n := d.Annotations[AnnotationContainerdName]; n != "" {
			out = append(out, n)
		} else if r := d.Annotations[AnnotationRefName]; r != "" && l.repo != "" {
			out = append(out, l.repo+":"+r)
		} else if r != "" {
			out = append(out, r)
		}
	}
	return out, nil
}

// ImageConfig returns the configuration of image (a reference such as
// busybox, docker.io/library/busybox:1.36 or name@sha256:...) if the
// layout holds it; ok is false if it does not. A layout that holds it
// but cannot be read (a missing blob, a digest that does not match) is
// an error.
func (l *Layout) ImageConfig(_ context.Context, image string) (Config, bool, error) {
	s, err := l.open()
	if err != nil {
		return Config{}, false, err
	}
	defer func() { _ = s.close() }()
	idx, err := l.index(s)
	if err != nil {
		return Config{}, false, err
	}
	matches := l.match(idx, image)
	if len(matches) == 0 {
		return Config{}, false, nil
	}
	d, err := l.pickPlatform(matches, image)
	if err != nil {
		return Config{}, true, err
	}
	c, err := l.resolve(s, d, image, 0)
	return c, true, err
}

// match returns the index's descriptors of image.
func (l *Layout) match(idx *Index, image string) []Descriptor {
	repo, tag, digest := parseReference(image)
	var out, tagless []Descriptor
	for _, d := range idx.Manifests {
		if digest != "" {
			if d.Digest == digest {
				out = append(out, d)
			}
			continue
		}
		if n := d.Annotations[AnnotationContainerdName]; n != "" {
			if r, t, _ := parseReference(n); r == repo && t == tag {
				out = append(out, d)
			}
			continue
		}
		ref, ok := d.Annotations[AnnotationRefName]
		switch {
		case l.repo != "" && repo == l.repo && ok && ref == tag:
			out = append(out, d)
		case l.repo != "" && repo == l.repo && !ok:
			tagless = append(tagless, d)
		case l.repo == "" && ok && strings.ContainsAny(ref, "/:"):
			// A ref name that is a full reference names the image itself.
			if r, t, _ := parseReference(ref); r == repo && t == tag {
				out = append(out, d)
			}
		}
	}
	// A NAME= layout whose index names nothing is NAME itself.
	if len(out) == 0 && len(tagless) == len(idx.Manifests) {
		out = tagless
	}
	return out
}

// pickPlatform picks, among an image's descriptors, the one of the
// layout's platform, or the only one there is.
func (l *Layout) pickPlatform(ds []Descriptor, image string) (Descriptor, error) {
	if len(ds) == 1 {
		return ds[0], nil
	}
	for _, d := range ds {
		if d.Platform != nil && d.Platform.OS == l.Platform.OS && d.Platform.Architecture == l.Platform.Architecture {
			return d, nil
		}
	}
	return Descriptor{}, fmt.Errorf("image layout %s: image %q has %d manifests and none for %s/%s",
		l.path, image, len(ds), l.Platform.OS, l.Platform.Architecture)
}

// resolve follows d (an index or a manifest) to the image's config.
func (l *Layout) resolve(s store, d Descriptor, image string, depth int) (Config, error) {
	if depth > 4 {
		return Config{}, fmt.Errorf("image layout %s: image %q: indexes nested too deep", l.path, image)
	}
	b, err := readBlob(s, d)
	if err != nil {
		return Config{}, fmt.Errorf("image layout %s: image %q: %w", l.path, image, err)
	}
	switch d.MediaType {
	case MediaTypeIndex, mediaTypeDockerList:
		var idx Index
		if err := json.Unmarshal(b, &idx); err != nil {
			return Config{}, fmt.Errorf("image layout %s: image %q: index %s: %w", l.path, image, d.Digest, err)
		}
		if len(idx.Manifests) == 0 {
			return Config{}, fmt.Errorf("image layout %s: image %q: index %s lists no manifest", l.path, image, d.Digest)
		}
		var ds []Descriptor
		for _, m := range idx.Manifests {
			if m.Platform != nil || len(idx.Manifests) == 1 {
				ds = append(ds, m)
			}
		}
		m, err := l.pickPlatform(ds, image)
		if err != nil {
			return Config{}, err
		}
		return l.resolve(s, m, image, depth+1)
	case MediaTypeManifest, mediaTypeDockerManifest:
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return Config{}, fmt.Errorf("image layout %s: image %q: manifest %s: %w", l.path, image, d.Digest, err)
		}
		cb, err := readBlob(s, m.Config)
		if err != nil {
			return Config{}, fmt.Errorf("image layout %s: image %q: config: %w", l.path, image, err)
		}
		var ic imageConfig
		if err := json.Unmarshal(cb, &ic); err != nil {
			return Config{}, fmt.Errorf("image layout %s: image %q: config %s: %w", l.path, image, m.Config.Digest, err)
		}
		if ic.OS != "" && ic.OS != l.Platform.OS || ic.Architecture != "" && ic.Architecture != l.Platform.Architecture {
			return Config{}, fmt.Errorf("image layout %s: image %q is for %s/%s, not %s/%s",
				l.path, image, ic.OS, ic.Architecture, l.Platform.OS, l.Platform.Architecture)
		}
		return ic.Config, nil
	default:
		return Config{}, fmt.Errorf("image layout %s: image %q: %s has media type %q, neither an image index nor a manifest",
			l.path, image, d.Digest, d.MediaType)
	}
}

var digestRE = regexp.MustCompile(`^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$`)

func validDigest(d string) error {
	if !digestRE.MatchString(d) {
		return fmt.Errorf("digest %q is not a sha256 or sha512 digest", d)
	}
	return nil
}

// readBlob reads the blob d points at and checks its size and digest.
func readBlob(s store, d Descriptor) ([]byte, error) {
	if err := validDigest(d.Digest); err != nil {
		return nil, err
	}
	if d.Size < 0 || d.Size > maxDocumentSize {
		return nil, fmt.Errorf("blob %s: size %d is out of range for a manifest or config", d.Digest, d.Size)
	}
	alg, hexSum, _ := strings.Cut(d.Digest, ":")
	b, err := s.read(path.Join("blobs", alg, hexSum), d.Size+1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s is missing from the layout", d.Digest)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	if int64(len(b)) != d.Size {
		return nil, fmt.Errorf("blob %s: %d bytes, its descriptor says %d", d.Digest, len(b), d.Size)
	}
	var h hash.Hash = sha256.New()
	if alg == "sha512" {
		h = sha512.New()
	}
	h.Write(b)
	if got := alg + ":" + hex.EncodeToString(h.Sum(nil)); got != d.Digest {
		return nil, fmt.Errorf("blob %s: digest mismatch: its content is %s", d.Digest, got)
	}
	return b, nil
}

// parseReference splits an image reference into its repository
// (normalized as Docker does: docker.io/library/ dropped), tag ("latest"
// when none) and digest.
func parseReference(ref string) (repo, tag, digest string) {
	name, digest, _ := strings.Cut(ref, "@")
	slash := strings.LastIndex(name, "/")
	if colon := strings.LastIndex(name, ":"); colon > slash {
		name, tag = name[:colon], name[colon+1:]
	}
	if tag == "" {
		tag = "latest"
	}
	return normalizeRepo(name), tag, digest
}

func normalizeRepo(name string) string {
	for _, p := range []string{"index.docker.io/", "docker.io/", "library/"} {
		name = strings.TrimPrefix(name, p)
	}
	return name
}

// dirStore is a layout directory.
type dirStore string

func (d dirStore) read(name string, max int64) ([]byte, error) {
	f, err := os.Open(path.Join(string(d), name))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return io.ReadAll(io.LimitReader(f, max))
}

func (dirStore) close() error { return nil }

// tarStore is an OCI archive: the files of a layout in an uncompressed
// tar, read in place.
type tarStore struct {
	f     *os.File
	files map[string]*io.SectionReader
}

func openTar(p string) (*tarStore, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	t := &tarStore{f: f, files: map[string]*io.SectionReader{}}
	// tar.Reader skips file contents by seeking, and reads headers
	// exactly, so after Next the file's offset is where the content
	// starts.
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("not an OCI archive (an uncompressed tar of an image layout): %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		off, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		t.files[path.Clean(strings.TrimPrefix(h.Name, "./"))] = io.NewSectionReader(f, off, h.Size)
	}
	return t, nil
}

func (t *tarStore) read(name string, max int64) ([]byte, error) {
	r, ok := t.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return io.ReadAll(io.LimitReader(io.NewSectionReader(r, 0, r.Size()), max))
}

func (t *tarStore) close() error { return t.f.Close() }
