package kubelet

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Termination messages: each container gets a file of its own at its
// terminationMessagePath (a file of the pod's directory, mounted there),
// and once it has exited its content becomes the terminated state's
// message; with FallbackToLogsOnError, a container that failed and left
// the file empty gets the tail of its log instead, as Kubernetes does.
const (
	// maxTerminationMessage is how much of the file is reported.
	maxTerminationMessage = 4096
	// fallbackLogLines and fallbackLogBytes bound the log's tail.
	fallbackLogLines = 80
	fallbackLogBytes = 2048
)

// terminationMessageFile is where the kubelet keeps the termination
// message file of one attempt of a container.
func (kl *Kubelet) terminationMessageFile(uid, container string, attempt uint32) string {
	return filepath.Join(kl.podDir(uid), "containers", container, strconv.FormatUint(uint64(attempt), 10)+".termination-log")
}

// terminationMessageMount makes an empty termination message file for one
// attempt of c and returns its mount; none when c has no path or mounts a
// volume there. The file is writable by any user, since the container may
// run as one other than the kubelet's. The mount is Optional: a runtime
// that cannot mount runs the container without it.
func (kl *Kubelet) terminationMessageMount(pod *corev1.Pod, c *corev1.Container, attempt uint32, mounts []kruntime.Mount) (*kruntime.Mount, error) {
	if c.TerminationMessagePath == "" {
		return nil, nil
	}
	for _, m := range mounts {
		if filepath.Clean(m.ContainerPath) == filepath.Clean(c.TerminationMessagePath) {
			return nil, nil
		}
	}
	p := kl.terminationMessageFile(string(pod.UID), c.Name, attempt)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("termination message file: %w", err)
	}
	if err := os.WriteFile(p, nil, 0o666); err != nil {
		return nil, fmt.Errorf("termination message file: %w", err)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		return nil, fmt.Errorf("termination message file: %w", err)
	}
	return &kruntime.Mount{ContainerPath: c.TerminationMessagePath, HostPath: p, Optional: true}, nil
}

// addTerminationMessages puts the termination message of every exited
// container of recs into its Message, after what the runtime said (": "
// between them).
func (kl *Kubelet) addTerminationMessages(pod *corev1.Pod, recs map[string]containerRecords) {
	for name, r := range recs {
		c := podContainer(pod, name)
		if c == nil {
			continue
		}
		for _, rec := range []*kruntime.ContainerStatus{r.current, r.previous} {
			if rec == nil || rec.State != kruntime.ContainerExited {
				continue
			}
			msg := kl.terminationMessage(string(pod.UID), c, rec)
			if msg == "" {
				continue
			}
			if rec.Message != "" {
				rec.Message += ": "
			}
			rec.Message += msg
		}
	}
}

// terminationMessage is the message of one exited container: its file's
// content, else (FallbackToLogsOnError and a failure) its log's tail.
func (kl *Kubelet) terminationMessage(uid string, c *corev1.Container, rec *kruntime.ContainerStatus) string {
	var msg string
	if c.TerminationMessagePath != "" {
		msg = readHead(kl.terminationMessageFile(uid, c.Name, rec.Attempt), maxTerminationMessage)
	}
	if msg == "" && rec.ExitCode != 0 && c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError && rec.LogPath != "" {
		msg = logTail(rec.LogPath, fallbackLogLines, fallbackLogBytes)
	}
	return msg
}

// podContainer finds a container of the pod by name: init, app or
// ephemeral.
func podContainer(pod *corev1.Pod, name string) *corev1.Container {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if pod.Spec.EphemeralContainers[i].Name == name {
			c := ephemeralAsContainer(&pod.Spec.EphemeralContainers[i])
			return &c
		}
	}
	return nil
}

// readHead returns at most n bytes from the start of the file at path; ""
// when it cannot be read.
func readHead(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	b, _ := io.ReadAll(io.LimitReader(f, n))
	return string(b)
}

// logTail is the content of the last lines of a CRI log file (at most
// lines lines, the last maxBytes bytes of them), as the container wrote
// it: a line written in parts is joined, and a line ends in "\n" only when
// the container ended it.
func logTail(path string, lines int, maxBytes int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	// The last lines fit in a bounded window of the file's end: each
	// CRI line carries a header of well under 100 bytes.
	window := int64(lines * (maxBytes + 100))
	if st, err := f.Stat(); err == nil && st.Size() > window {
		if _, err := f.Seek(st.Size()-window, io.SeekStart); err != nil {
			return ""
		}
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	var out [][]byte // the content of each line the container wrote
	partial := false
	for line := range bytes.SplitSeq(raw, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		// "<time> <stream> <F|P> <content>"
		fields := bytes.SplitN(line, []byte{' '}, 4)
		if len(fields) < 3 {
			continue
		}
		var content []byte
		if len(fields) == 4 {
			content = fields[3]
		}
		if partial && len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], content...)
		} else {
			out = append(out, bytes.Clone(content))
		}
		partial = bytes.Equal(fields[2], []byte("P"))
		if !partial {
			out[len(out)-1] = append(out[len(out)-1], '\n')
		}
	}
	if len(out) > lines {
		out = out[len(out)-lines:]
	}
	msg := bytes.Join(out, nil)
	if len(msg) > maxBytes {
		msg = msg[len(msg)-maxBytes:]
	}
	return string(msg)
}
