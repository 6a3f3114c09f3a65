package process

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/oci"
)

// ImageConfig is what the process runtime knows of an image without
// pulling it: the ENTRYPOINT and CMD of its configuration, and, from an
// image's own configuration (an OCI layout, containerd's store), its ENV
// and WORKDIR.
type ImageConfig struct {
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
	Env        []string `json:"-"`
	WorkingDir string   `json:"-"`
	// User is the image's USER; the process runtime runs every
	// container as the kubelet's user and refuses an image that asks for
	// another (see checkUser).
	User string `json:"-"`
	// Wrapper marks an entrypoint script of the image that prepares the
	// container and then runs its arguments (docker-entrypoint.sh). It
	// does not exist on the host, so the arguments run directly; when they
	// begin with a flag the script would have put Program before them.
	Wrapper bool   `json:"wrapper,omitempty"`
	Program string `json:"program,omitempty"`
	// Multicall names the multi-call binary (busybox) whose applets are
	// the image's programs: a command naming one of them runs it through
	// the host's copy of the binary (see multicallPrograms).
	Multicall string `json:"multicall,omitempty"`
}

// imageEntrypointsFile is the format of --image-entrypoints.
type imageEntrypointsFile struct {
	Images map[string]ImageConfig `json:"images"`
}

// wellKnownImages are the configurations of the images tutorials use, as
// their published image configurations give them.
var wellKnownImages = map[string]ImageConfig{
	"busybox":  {Cmd: []string{"sh"}, Multicall: "busybox"},
	"alpine":   {Cmd: []string{"/bin/sh"}},
	"debian":   {Cmd: []string{"bash"}},
	"ubuntu":   {Cmd: []string{"/bin/bash"}},
	"golang":   {Cmd: []string{"bash"}},
	"python":   {Cmd: []string{"python3"}},
	"node":     {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"node"}, Wrapper: true, Program: "node"},
	"nginx":    {Entrypoint: []string{"/docker-entrypoint.sh"}, Cmd: []string{"nginx", "-g", "daemon off;"}, Wrapper: true},
	"httpd":    {Cmd: []string{"httpd-foreground"}},
	"redis":    {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"redis-server"}, Wrapper: true, Program: "redis-server"},
	"postgres": {Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"postgres"}, Wrapper: true, Program: "postgres"},

	"registry.k8s.io/pause":                   {Entrypoint: []string{"/pause"}},
	"k8s.gcr.io/pause":                        {Entrypoint: []string{"/pause"}},
	"registry.k8s.io/e2e-test-images/agnhost": {Entrypoint: []string{"/agnhost"}, Cmd: []string{"pause"}},
	"registry.k8s.io/e2e-test-images/busybox": {Cmd: []string{"sh"}, Multicall: "busybox"},
}

// ImageConfigSource holds the configurations of images: an OCI image
// layout (*oci.Layout) or containerd's image store. ok is false for an
// image it does not hold.
type ImageConfigSource interface {
	ImageConfig(ctx context.Context, image string) (c oci.Config, ok bool, err error)
}

var _ ImageConfigSource = (*oci.Layout)(nil)

// Entrypoints finds the configuration of images: the user's file first,
// then the image sources in order (--image-layout, containerd), then the
// well-known images.
type Entrypoints struct {
	user    map[string]ImageConfig
	sources []ImageConfigSource
}

// LoadEntrypoints reads an --image-entrypoints file ("" for none):
//
//	images:
//	  example.com/team/server:   # any tag; "server:1.2" names one tag
//	    entrypoint: ["/usr/local/bin/server"]
//	    cmd: ["--port=8080"]
//
// sources are asked, in order, for the images the file does not name.
func LoadEntrypoints(path string, sources ...ImageConfigSource) (*Entrypoints, error) {
	e := &Entrypoints{user: map[string]ImageConfig{}, sources: sources}
	if path == "" {
		return e, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("image entrypoints: %w", err)
	}
	var f imageEntrypointsFile
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		return nil, fmt.Errorf("image entrypoints %s: %w", path, err)
	}
	for name, c := range f.Images {
		if len(c.Entrypoint) == 0 && len(c.Cmd) == 0 {
			return nil, fmt.Errorf("image entrypoints %s: image %q has neither entrypoint nor cmd", path, name)
		}
		e.user[normalizeImage(name, true)] = c
	}
	return e, nil
}

// lookup returns the configuration of image, if known. An image source
// that holds the image but cannot read it is an error.
func (e *Entrypoints) lookup(ctx context.Context, image string) (ImageConfig, bool, error) {
	if e != nil {
		if c, ok := e.user[normalizeImage(image, true)]; ok {
			return c, true, nil
		}
		if c, ok := e.user[normalizeImage(image, false)]; ok {
			return c, true, nil
		}
		for _, s := range e.sources {
			c, ok, err := s.ImageConfig(ctx, image)
			if err != nil {
				return ImageConfig{}, true, err
			}
			if ok {
				return ImageConfig{Entrypoint: c.Entrypoint, Cmd: c.Cmd, Env: c.Env, WorkingDir: c.WorkingDir, User: c.User}, true, nil
			}
		}
	}
	c, ok := wellKnownImages[normalizeImage(image, false)]
	return c, ok, nil
}

// normalizeImage drops the digest, the default registry and library
// prefix, and, unless withTag, the tag: "docker.io/library/busybox:1.36"
// is "busybox" ("busybox:1.36" with its tag).
func normalizeImage(image string, withTag bool) string {
	name, _, _ := strings.Cut(image, "@")
	slash := strings.LastIndex(name, "/")
	if colon := strings.LastIndex(name, ":"); colon > slash && !withTag {
		name = name[:colon]
	}
	for _, p := range []string{"index.docker.io/", "docker.io/", "library/"} {
		name = strings.TrimPrefix(name, p)
	}
	return name
}

// argv returns what a container runs, as Kubernetes decides it: command
// (else the image's entrypoint) followed by args (else, without a
// command, the image's cmd). c is the image's configuration, if known.
func argv(c ImageConfig, known bool, image string, command, args []string) ([]string, error) {
	if len(command) > 0 {
		return append(slices.Clone(command), args...), nil
	}
	if !known {
		return nil, fmt.Errorf("the process runtime runs commands on the host and does not know the entrypoint of image %q: "+
			"set command in the container spec, map the image in the kubelet's --image-entrypoints file, "+
			"give the kubelet an OCI layout holding it (--image-layout), or run the pod on a node with a CRI runtime", image)
	}
	rest := c.Cmd
	if len(args) > 0 {
		rest = args
	}
	if !c.Wrapper {
		return append(slices.Clone(c.Entrypoint), rest...), nil
	}
	out := slices.Clone(rest)
	if c.Program != "" && (len(out) == 0 || strings.HasPrefix(out[0], "-")) {
		out = append([]string{c.Program}, out...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("image %q gives nothing to run after its entrypoint script: set command or args", image)
	}
	return out, nil
}

// hostProgram finds the program an image names on the host: its path if
// it exists there, else its base name on PATH, else one of the builtins
// (the pause program).
func hostProgram(program string, builtins map[string][]string) ([]string, error) {
	if b, ok := builtins[program]; ok {
		return slices.Clone(b), nil
	}
	if strings.Contains(program, "/") {
		if st, err := os.Stat(program); err == nil && !st.IsDir() {
			return []string{program}, nil
		}
		program = filepath.Base(program)
		if b, ok := builtins[program]; ok {
			return slices.Clone(b), nil
		}
	}
	path, err := exec.LookPath(program)
	if err != nil {
		return nil, err
	}
	return []string{path}, nil
}

// imageCommand finds on the host the program a container's own command
// names, as the image would: a program the host has at that path (or on
// PATH, for a bare name) runs as it is; one it lacks whose name is the
// image's entrypoint program (command ["/agnhost", ...] of an image the
// kubelet maps to a build of agnhost) runs the mapped entrypoint; other
// paths run the program of that name the host has elsewhere
// (/usr/local/bin/etcd as the host's etcd). A program found nowhere is
// left as it is, to fail as it would in the image.
func imageCommand(image ImageConfig, name string, cmd []string, builtins map[string][]string) []string {
	if len(cmd) == 0 {
		return cmd
	}
	p := cmd[0]
	if _, err := exec.LookPath(p); err == nil {
		return cmd
	}
	target := p
	if len(image.Entrypoint) > 0 && !image.Wrapper {
		// The image's program by the name of its mapped build, or by
		// its name in the published image.
		inImage := []string{filepath.Base(image.Entrypoint[0])}
		if known := wellKnownImages[normalizeImage(name, false)].Entrypoint; len(known) > 0 {
			inImage = append(inImage, filepath.Base(known[0]))
		}
		if slices.Contains(inImage, filepath.Base(p)) {
			target = image.Entrypoint[0]
		}
	}
	prog, err := hostProgram(target, builtins)
	if err != nil {
		return cmd
	}
	return append(prog, cmd[1:]...)
}

// withImageConfig gives cfg the image's environment under its own (a
// variable the container sets wins) and the image's working directory
// when it sets none, as Kubernetes does.
func withImageConfig(cfg kruntime.ContainerConfig, image ImageConfig) kruntime.ContainerConfig {
	if cfg.WorkingDir == "" {
		cfg.WorkingDir = image.WorkingDir
	}
	if len(image.Env) == 0 {
		return cfg
	}
	set := make(map[string]bool, len(cfg.Env))
	for _, kv := range cfg.Env {
		set[kv.Key] = true
	}
	var env []kruntime.KeyValue
	for _, e := range image.Env {
		k, v, _ := strings.Cut(e, "=")
		if k != "" && !set[k] {
			env = append(env, kruntime.KeyValue{Key: k, Value: v})
		}
	}
	cfg.Env = append(env, cfg.Env...)
	return cfg
}

// checkUser refuses an image whose USER is not the kubelet's own: the
// process runtime runs containers as the kubelet's user, and cannot look
// a user name up in the image's /etc/passwd.
func checkUser(image, user string, root bool) error {
	name, _, _ := strings.Cut(user, ":")
	if name == "" {
		return nil
	}
	uid := os.Geteuid()
	if name == strconv.Itoa(uid) || (name == "root" && uid == 0) {
		return nil
	}
	how := "it runs every container as the kubelet's user (" + strconv.Itoa(uid) + ")"
	if root {
		how = "it runs every container as root, the kubelet's user"
	}
	return fmt.Errorf("image %q runs as user %q, which the process runtime does not do: %s; "+
		"run the pod on a node with a CRI runtime, or map the image in the kubelet's --image-entrypoints file", image, user, how)
}
