package cri

import (
	"context"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	criapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubecore.io/kubecore/pkg/kubelet/runtime/oci"
)

// fakeImageService answers ImageStatus as containerd does: verbose info
// under "info", with the image's config under imageSpec.
type fakeImageService struct {
	criapi.UnimplementedImageServiceServer
	info map[string]string // image -> info["info"]; "" for none
}

func (f *fakeImageService) ImageFsInfo(context.Context, *criapi.ImageFsInfoRequest) (*criapi.ImageFsInfoResponse, error) {
	return &criapi.ImageFsInfoResponse{}, nil
}

func (f *fakeImageService) ImageStatus(_ context.Context, req *criapi.ImageStatusRequest) (*criapi.ImageStatusResponse, error) {
	info, ok := f.info[req.GetImage().GetImage()]
	if !ok {
		return &criapi.ImageStatusResponse{}, nil
	}
	resp := &criapi.ImageStatusResponse{Image: &criapi.Image{Id: "sha256:1", RepoTags: []string{req.GetImage().GetImage()}}}
	if info != "" && req.GetVerbose() {
		resp.Info = map[string]string{"info": info}
	}
	return resp, nil
}

func TestImageConfigs(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "cri.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	criapi.RegisterImageServiceServer(srv, &fakeImageService{info: map[string]string{
		"example.com/app:1": `{"chainID":"sha256:2","imageSpec":{"architecture":"amd64","os":"linux",` +
			`"config":{"Entrypoint":["/app"],"Cmd":["serve"],"Env":["PATH=/bin"],"WorkingDir":"/srv","User":"1000"}}}`,
		"example.com/bare:1": "",
		"example.com/bad:1":  "{not json",
	}})
	go func() { _ = srv.Serve(l) }()
	defer srv.Stop()

	ctx := context.Background()
	c, err := NewImageConfigs(ctx, "unix://"+sock, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	got, ok, err := c.ImageConfig(ctx, "example.com/app:1")
	want := oci.Config{Entrypoint: []string{"/app"}, Cmd: []string{"serve"}, Env: []string{"PATH=/bin"}, WorkingDir: "/srv", User: "1000"}
	if err != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("ImageConfig(app) = %+v, %v, %v; want %+v", got, ok, err, want)
	}
	if _, ok, err := c.ImageConfig(ctx, "example.com/absent:1"); ok || err != nil {
		t.Errorf("ImageConfig(absent) = %v, %v; want not found", ok, err)
	}
	for _, image := range []string{"example.com/bare:1", "example.com/bad:1"} {
		if _, ok, err := c.ImageConfig(ctx, image); !ok || err == nil || !strings.Contains(err.Error(), "gives no image config") {
			t.Errorf("ImageConfig(%s) = %v, %v; want an error", image, ok, err)
		}
	}
	if _, err := NewImageConfigs(ctx, "unix://"+filepath.Join(t.TempDir(), "none.sock"), 200*time.Millisecond); err == nil {
		t.Error("NewImageConfigs on a socket nobody serves succeeded")
	}
}
