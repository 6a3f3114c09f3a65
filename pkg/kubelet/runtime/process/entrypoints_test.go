package process

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/oci"
)

func TestNormalizeImage(t *testing.T) {
	for _, tc := range []struct {
		image, name, tagged string
	}{
		{"busybox", "busybox", "busybox"},
		{"busybox:1.36", "busybox", "busybox:1.36"},
		{"docker.io/library/busybox:1.36@sha256:0123", "busybox", "busybox:1.36"},
		{"index.docker.io/library/python:3", "python", "python:3"},
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause", "registry.k8s.io/pause:3.10"},
		{"localhost:5000/team/app", "localhost:5000/team/app", "localhost:5000/team/app"},
		{"localhost:5000/team/app:v2", "localhost:5000/team/app", "localhost:5000/team/app:v2"},
	} {
		if got := normalizeImage(tc.image, false); got != tc.name {
			t.Errorf("normalizeImage(%q) = %q, want %q", tc.image, got, tc.name)
		}
		if got := normalizeImage(tc.image, true); got != tc.tagged {
			t.Errorf("normalizeImage(%q, tag) = %q, want %q", tc.image, got, tc.tagged)
		}
	}
}

func TestArgv(t *testing.T) {
	file := filepath.Join(t.TempDir(), "entrypoints.yaml")
	if err := os.WriteFile(file, []byte(`images:
  example.com/team/server:
    entrypoint: ["/srv/server"]
    cmd: ["--port=8080"]
  example.com/team/server:debug:
    entrypoint: ["/srv/server-debug"]
  busybox:
    cmd: ["echo", "overridden"]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := LoadEntrypoints(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		image         string
		command, args []string
		want          []string
		wantErr       string
	}{
		{"command and args win", "nginx", []string{"sleep"}, []string{"1"}, []string{"sleep", "1"}, ""},
		{"args replace cmd", "python:3", nil, []string{"python3", "-m", "http.server"}, []string{"python3", "-m", "http.server"}, ""},
		{"image cmd", "python:3.12", nil, nil, []string{"python3"}, ""},
		{"entrypoint with cmd", "registry.k8s.io/e2e-test-images/agnhost:2.53", nil, nil, []string{"/agnhost", "pause"}, ""},
		{"entrypoint with args", "registry.k8s.io/e2e-test-images/agnhost:2.53", nil, []string{"netexec"}, []string{"/agnhost", "netexec"}, ""},
		{"e2e busybox cmd", "registry.k8s.io/e2e-test-images/busybox:1.37.0-1", nil, nil, []string{"sh"}, ""},
		{"wrapper script runs its args", "node:22", nil, []string{"npm", "start"}, []string{"npm", "start"}, ""},
		{"wrapper script puts its program before flags", "node", nil, []string{"-e", "1"}, []string{"node", "-e", "1"}, ""},
		{"wrapper script with the image cmd", "nginx:1.27", nil, nil, []string{"nginx", "-g", "daemon off;"}, ""},
		{"user file, any tag", "example.com/team/server:1.0", nil, nil, []string{"/srv/server", "--port=8080"}, ""},
		{"user file, one tag", "example.com/team/server:debug", nil, []string{"-v"}, []string{"/srv/server-debug", "-v"}, ""},
		{"user file before the well-known", "busybox", nil, nil, []string{"echo", "overridden"}, ""},
		{"unknown image", "example.com/other", nil, []string{"x"}, nil, "--image-entrypoints"},
	} {
		got, err := e.argvOf(tc.image, tc.command, tc.args)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: argv = %q, %v; want an error with %q", tc.name, got, err, tc.wantErr)
			}
		case err != nil || !slices.Equal(got, tc.want):
			t.Errorf("%s: argv = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	var none *Entrypoints // the well-known images only
	if got, err := none.argvOf("busybox", nil, nil); err != nil || !slices.Equal(got, []string{"sh"}) {
		t.Errorf("busybox without a file = %q, %v", got, err)
	}
}

func TestLoadEntrypointsRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown field": "images:\n  a:\n    entrypont: [x]\n",
		"empty entry":   "images:\n  a: {}\n",
		"not yaml":      "images: [",
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadEntrypoints(p); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := LoadEntrypoints(filepath.Join(dir, "absent")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestHostProgram(t *testing.T) {
	builtins := map[string][]string{"pause": {"/bin/kubecore", "kubelet", "process-pause"}}
	if got, err := hostProgram("/pause", builtins); err != nil || !slices.Equal(got, builtins["pause"]) {
		t.Errorf("/pause = %q, %v; want the builtin", got, err)
	}
	if got, err := hostProgram("sh", nil); err != nil || !filepath.IsAbs(got[0]) {
		t.Errorf("sh = %q, %v; want its path", got, err)
	}
	if got, err := hostProgram("/usr/local/bin/sh", nil); err != nil || filepath.Base(got[0]) != "sh" {
		t.Errorf("/usr/local/bin/sh = %q, %v; want sh from PATH", got, err)
	}
	if _, err := hostProgram("/no/such/kubecore-program", nil); err == nil {
		t.Error("a missing program was found")
	}
}

// TestCreateContainerResolvesEntrypoints: a container without a command
// runs its image's entrypoint, or waits with a reason that says why not.
func TestCreateContainerResolvesEntrypoints(t *testing.T) {
	r, sb := runtimeWithImages(t, "images:\n  example.com/missing:\n    entrypoint: [/no/such/kubecore-program]\n")
	ctx := t.Context()
	for image, reason := range map[string]string{"example.com/unknown": ReasonNeedsCommand, "example.com/missing:1": ReasonProgramNotFound} {
		_, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Image: image})
		var ce *kruntime.ContainerError
		if !errors.As(err, &ce) || ce.Reason != reason {
			t.Errorf("%s: CreateContainer = %v, want a %s container error", image, err, reason)
		}
	}
	id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "args", Image: "busybox", Args: []string{"sh", "-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := waitExited(t, r, id); s.ExitCode != 3 {
		t.Errorf("busybox with args exited %d, want 3", s.ExitCode)
	}
}

func (e *Entrypoints) argvOf(image string, command, args []string) ([]string, error) {
	c, ok, err := e.lookup(context.Background(), image)
	if err != nil {
		return nil, err
	}
	return argv(c, ok, image, command, args)
}

// fakeSource holds image configurations, or fails for broken ones.
type fakeSource map[string]oci.Config

func (f fakeSource) ImageConfig(_ context.Context, image string) (oci.Config, bool, error) {
	if image == "example.com/broken" {
		return oci.Config{}, true, errors.New("blob sha256:00 is missing from the layout")
	}
	c, ok := f[image]
	return c, ok, nil
}

func TestImageSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "entrypoints.yaml")
	if err := os.WriteFile(file, []byte("images:\n  example.com/mapped:\n    entrypoint: [/bin/mapped]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := fakeSource{
		"example.com/mapped":  {Entrypoint: []string{"/bin/from-layout"}},
		"busybox":             {Entrypoint: []string{"/bin/busybox-from-layout"}, Cmd: []string{"sh"}},
		"example.com/greeter": {Entrypoint: []string{"/bin/greet"}, Cmd: []string{"--loud"}, Env: []string{"GREETING=hi", "PATH=/img/bin"}, WorkingDir: "/srv"},
	}
	e, err := LoadEntrypoints(file, src)
	if err != nil {
		t.Fatal(err)
	}
	for image, want := range map[string][]string{
		"example.com/mapped":  {"/bin/mapped"},                    // the user's file first
		"busybox":             {"/bin/busybox-from-layout", "sh"}, // the source before the table
		"example.com/greeter": {"/bin/greet", "--loud"},
		"alpine":              {"/bin/sh"}, // the table last
	} {
		if got, err := e.argvOf(image, nil, nil); err != nil || !slices.Equal(got, want) {
			t.Errorf("argv(%s) = %q, %v; want %q", image, got, err, want)
		}
	}
	if _, err := e.argvOf("example.com/broken", []string{"sh"}, nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a source that fails: %v", err)
	}

	c, _, _ := e.lookup(context.Background(), "example.com/greeter")
	got := withImageConfig(kruntime.ContainerConfig{Env: []kruntime.KeyValue{{Key: "GREETING", Value: "mine"}}}, c)
	wantEnv := []kruntime.KeyValue{{Key: "PATH", Value: "/img/bin"}, {Key: "GREETING", Value: "mine"}}
	if !slices.Equal(got.Env, wantEnv) || got.WorkingDir != "/srv" {
		t.Errorf("withImageConfig = env %v, dir %q; want %v, /srv", got.Env, got.WorkingDir, wantEnv)
	}
	if got := withImageConfig(kruntime.ContainerConfig{WorkingDir: "/mine"}, c); got.WorkingDir != "/mine" {
		t.Errorf("the container's working dir lost to the image's: %q", got.WorkingDir)
	}
}

func TestCheckUser(t *testing.T) {
	me := strconv.Itoa(os.Geteuid())
	for user, ok := range map[string]bool{"": true, me: true, me + ":" + me: true, "4242": false, "nobody": false} {
		if err := checkUser("img", user, false); (err == nil) != ok {
			t.Errorf("checkUser(%q) = %v, want ok %v", user, err, ok)
		}
	}
}

// TestImageCommand: a container's own command naming its image's program
// runs the program the kubelet maps the image to; a program the host has
// runs as it is; one found nowhere is left to fail.
func TestImageCommand(t *testing.T) {
	dir := t.TempDir()
	mapped := filepath.Join(dir, "agnhost-build")
	if err := os.WriteFile(mapped, []byte("#!/bin/sh\necho mapped \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	agnhost := ImageConfig{Entrypoint: []string{mapped}, Cmd: []string{"pause"}}
	builtins := map[string][]string{"pause": {"/bin/kubecore", "kubelet", "process-pause"}}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		image     ImageConfig
		cmd, want []string
	}{
		{"the image's program by its path in the image", agnhost, []string{"/agnhost", "serve-hostname"}, []string{mapped, "serve-hostname"}},
		{"the image's program by the name of its build", agnhost, []string{"/agnhost-build", "serve-hostname"}, []string{mapped, "serve-hostname"}},
		{"a host program", agnhost, []string{"sh", "-c", "true"}, []string{"sh", "-c", "true"}},
		{"a host path", agnhost, []string{sh, "-c", "true"}, []string{sh, "-c", "true"}},
		{"a path the host has elsewhere", ImageConfig{}, []string{"/usr/local/kubecore-nowhere/sh", "-c", "true"}, []string{sh, "-c", "true"}},
		{"a builtin", ImageConfig{}, []string{"/pause"}, builtins["pause"]},
		{"found nowhere", agnhost, []string{"/no/such/kubecore-program", "x"}, []string{"/no/such/kubecore-program", "x"}},
	} {
		if got := imageCommand(tc.image, "registry.k8s.io/e2e-test-images/agnhost:2.63.0", tc.cmd, builtins); !slices.Equal(got, tc.want) {
			t.Errorf("%s: imageCommand(%q) = %q, want %q", tc.name, tc.cmd, got, tc.want)
		}
	}

	// End to end: a container whose command is the image's own path.
	r, sb := runtimeWithImages(t, "images:\n  registry.k8s.io/e2e-test-images/agnhost:2.63.0:\n    entrypoint: ["+mapped+"]\n    cmd: [pause]\n")
	ctx := t.Context()
	id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Image: "registry.k8s.io/e2e-test-images/agnhost:2.63.0",
		Command: []string{"/agnhost", "serve-hostname"}, LogPath: "c.log"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, id); err != nil {
		t.Fatal(err)
	}
	if s := waitExited(t, r, id); s.ExitCode != 0 {
		t.Errorf("the image's program by its path exited %d, want 0 (the mapped program)", s.ExitCode)
	}
}

// runtimeWithImages is a runtime (not root) whose --image-entrypoints file
// holds images, with one pod sandbox logging to a temp dir.
func runtimeWithImages(t *testing.T, images string) (*Runtime, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "entrypoints.yaml")
	if err := os.WriteFile(file, []byte(images), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := LoadEntrypoints(file)
	if err != nil {
		t.Fatal(err)
	}
	r := newRuntime(t, Options{Root: new(bool), Entrypoints: e})
	sb, err := r.RunPodSandbox(t.Context(), kruntime.PodSandboxConfig{UID: "u", LogDirectory: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return r, sb
}
