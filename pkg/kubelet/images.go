package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Waiting reasons of containers whose image is not there, as Kubernetes
// reports them.
const (
	reasonErrImagePull       = "ErrImagePull"
	reasonImagePullBackOff   = "ImagePullBackOff"
	reasonErrImageNeverPull  = "ErrImageNeverPull"
	reasonImageInspectError  = "ImageInspectError"
	eventFailedInspectImage  = "InspectFailed"
	initialImagePullBackOff  = 10 * time.Second
	maxImagePullBackOff      = 5 * time.Minute
	imagePullBackOffMinRetry = time.Second
)

// pullBackOff holds back the next pull of an image for a pod after one
// failed: 10 s, doubling to 5 min.
type pullBackOff struct {
	delay time.Duration
	until time.Time
}

func (b *pullBackOff) failed(now time.Time) {
	b.delay = min(max(b.delay*2, initialImagePullBackOff), maxImagePullBackOff)
	b.until = now.Add(b.delay)
}

// ensureImage makes sure a container's image is there before the
// container is created, pulling it through the runtime's ImageService as
// the pull policy says, and reports it as Kubernetes' kubelet does: Pulled
// "already present on machine" when nothing is pulled (always so for a
// runtime that runs no images), else Pulling then Pulled or Failed. A
// failure is the container's waiting reason and message.
func (s *podSync) ensureImage(ctx context.Context, c *corev1.Container) (*waitingInfo, time.Duration) {
	kl, pod := s.kl, s.pod
	is, pulls := kl.runtime.(kruntime.ImageService)
	present := true
	if pulls {
		var err error
		if present, err = is.ImagePresent(ctx, c.Image); err != nil {
			msg := fmt.Sprintf("Failed to inspect image %q: %v", c.Image, err)
			kl.events.container(ctx, pod, c.Name, corev1.EventTypeWarning, eventFailedInspectImage, "%s", msg)
			return s.imageError(ctx, c, reasonImageInspectError, msg), runtimeRefusalRetry
		}
	}
	policy := c.ImagePullPolicy
	pull := pulls && (policy == corev1.PullAlways || (!present && policy != corev1.PullNever))
	if !pull {
		if present {
			kl.events.container(ctx, pod, c.Name, corev1.EventTypeNormal, eventPulled, "Container image %q already present on machine", c.Image)
			return nil, 0
		}
		msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", c.Image)
		kl.events.container(ctx, pod, c.Name, corev1.EventTypeWarning, eventErrImageNeverPull, "%s", msg)
		return s.imageError(ctx, c, reasonErrImageNeverPull, msg), configErrorRetry
	}
	b := s.st.pulls[c.Image]
	if b == nil {
		b = &pullBackOff{}
		s.st.pulls[c.Image] = b
	}
	if s.now.Before(b.until) {
		msg := fmt.Sprintf("Back-off pulling image %q", c.Image)
		kl.events.container(ctx, pod, c.Name, corev1.EventTypeNormal, eventBackOff, "%s", msg)
		return s.imageError(ctx, c, reasonImagePullBackOff, msg), max(b.until.Sub(s.now), imagePullBackOffMinRetry)
	}
	kl.events.container(ctx, pod, c.Name, corev1.EventTypeNormal, eventPulling, "Pulling image %q", c.Image)
	start := kl.clock.Now()
	size, err := is.PullImage(ctx, c.Image, s.st.sandboxID)
	if err != nil {
		b.failed(kl.clock.Now())
		kl.events.container(ctx, pod, c.Name, corev1.EventTypeWarning, eventFailed, "Failed to pull image %q: %v", c.Image, err)
		return s.imageError(ctx, c, reasonErrImagePull, err.Error()), b.delay
	}
	delete(s.st.pulls, c.Image)
	took := kl.clock.Now().Sub(start).Truncate(time.Millisecond)
	kl.events.container(ctx, pod, c.Name, corev1.EventTypeNormal, eventPulled,
		"Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.", c.Image, took, took, size)
	return nil, 0
}

// imageError reports a container that cannot start for its image, as
// Kubernetes does: a Failed Event "Error: <reason>" beside the one that
// says what happened.
func (s *podSync) imageError(ctx context.Context, c *corev1.Container, reason, message string) *waitingInfo {
	s.kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeWarning, eventFailed, "Error: %s", reason)
	return &waitingInfo{reason: reason, message: message}
}
