package cri

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	criapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubecore.io/kubecore/pkg/kubelet/runtime/oci"
)

// ImageConfigs reads the configurations of images in a CRI runtime's
// image store (containerd's), for the process runtime: verbose
// ImageStatus gives an image's OCI config under info["info"].imageSpec.
type ImageConfigs struct {
	endpoint string
	conn     *grpc.ClientConn
	is       criapi.ImageServiceClient
}

// NewImageConfigs connects to the image service at endpoint
// (unix:///run/containerd/containerd.sock) and checks that it answers
// within timeout.
func NewImageConfigs(ctx context.Context, endpoint string, timeout time.Duration) (*ImageConfigs, error) {
	target, err := grpcTarget(endpoint)
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize)))
	if err != nil {
		return nil, fmt.Errorf("connect to image service %s: %w", endpoint, err)
	}
	c := &ImageConfigs{endpoint: endpoint, conn: conn, is: criapi.NewImageServiceClient(conn)}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := c.is.ImageFsInfo(tctx, &criapi.ImageFsInfoRequest{}, grpc.WaitForReady(true)); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("image service %s: %w", endpoint, err)
	}
	return c, nil
}

// Close closes the connection.
func (c *ImageConfigs) Close() error { return c.conn.Close() }

// verboseImageInfo is the part of containerd's verbose image status
// that holds the image's config.
type verboseImageInfo struct {
	ImageSpec *struct {
		Config oci.Config `json:"config"`
	} `json:"imageSpec"`
}

// ImageConfig returns the configuration of image if the store holds it.
func (c *ImageConfigs) ImageConfig(ctx context.Context, image string) (oci.Config, bool, error) {
	st, err := c.is.ImageStatus(ctx, &criapi.ImageStatusRequest{Image: &criapi.ImageSpec{Image: image}, Verbose: true})
	if err != nil {
		return oci.Config{}, false, fmt.Errorf("image status of %s from %s: %w", image, c.endpoint, err)
	}
	if st.GetImage() == nil {
		return oci.Config{}, false, nil
	}
	raw, ok := st.GetInfo()["info"]
	if !ok {
		return oci.Config{}, true, fmt.Errorf("image %s: %s gives no image config in its verbose image status", image, c.endpoint)
	}
	var info verboseImageInfo
	if err := json.Unmarshal([]byte(raw), &info); err != nil || info.ImageSpec == nil {
		return oci.Config{}, true, fmt.Errorf("image %s: %s gives no image config in its verbose image status (%v)", image, c.endpoint, err)
	}
	return info.ImageSpec.Config, true, nil
}
