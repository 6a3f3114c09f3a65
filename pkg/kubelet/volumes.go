package kubelet

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// volumeDirs says where each volume of a pod lives on the host.
type volumeDirs map[string]volumeDir

type volumeDir struct {
	path     string
	readOnly bool // config maps, secrets and the downward API
}

// podDir is the kubelet's directory of one pod.
func (kl *Kubelet) podDir(uid string) string { return filepath.Join(kl.cfg.RootDir, "pods", uid) }

// setUpVolumes makes or refreshes the pod's volumes under its directory:
// emptyDir, configMap, secret, downwardAPI and hostPath.
func (kl *Kubelet) setUpVolumes(ctx context.Context, pod *corev1.Pod, ips podIPs) (volumeDirs, error) {
	dirs := volumeDirs{}
	base := filepath.Join(kl.podDir(string(pod.UID)), "volumes")
	for _, v := range pod.Spec.Volumes {
		var (
			dir string
			err error
			ro  bool
		)
		switch {
		case v.EmptyDir != nil:
			dir = filepath.Join(base, "kubernetes.io~empty-dir", v.Name)
			// Writable by every user of the pod's containers, whatever
			// the kubelet's umask, as Kubernetes makes it.
			if err = os.MkdirAll(dir, 0o777); err == nil {
				err = os.Chmod(dir, 0o777)
			}
			if err == nil && v.EmptyDir.Medium == corev1.StorageMediumMemory {
				err = mountMemoryEmptyDir(dir, v.EmptyDir)
			}
		case v.HostPath != nil:
			dir = v.HostPath.Path
			if v.HostPath.Type != nil && *v.HostPath.Type == corev1.HostPathDirectoryOrCreate {
				err = os.MkdirAll(dir, 0o755)
			}
		case v.ConfigMap != nil:
			dir, ro = filepath.Join(base, "kubernetes.io~configmap", v.Name), true
			err = kl.writeConfigMap(ctx, pod.Namespace, dir, v.ConfigMap)
		case v.Secret != nil:
			dir, ro = filepath.Join(base, "kubernetes.io~secret", v.Name), true
			err = kl.writeSecret(ctx, pod.Namespace, dir, v.Secret)
		case v.DownwardAPI != nil:
			dir, ro = filepath.Join(base, "kubernetes.io~downward-api", v.Name), true
			err = writeDownwardAPI(pod, dir, v.DownwardAPI, ips, kl.machine.Allocatable)
		case v.Projected != nil:
			dir, ro = filepath.Join(base, "kubernetes.io~projected", v.Name), true
			err = kl.writeProjected(ctx, pod, dir, v.Projected, ips)
		default:
			err = fmt.Errorf("unsupported volume type: this kubelet mounts emptyDir, hostPath, configMap, secret, downwardAPI and projected volumes")
		}
		if err != nil {
			// Kubernetes words it so, space before the colon included.
			return nil, fmt.Errorf("MountVolume.SetUp failed for volume %q : %w", v.Name, err)
		}
		dirs[v.Name] = volumeDir{path: dir, readOnly: ro}
	}
	return dirs, nil
}

// mounts are a container's volume mounts on the host; env is the
// container's environment, which a subPathExpr's $(VAR) references name.
func (d volumeDirs) mounts(c *corev1.Container, env []kruntime.KeyValue) ([]kruntime.Mount, error) {
	out := make([]kruntime.Mount, 0, len(c.VolumeMounts))
	for _, m := range c.VolumeMounts {
		v, ok := d[m.Name]
		if !ok {
			return nil, fmt.Errorf("volumeMount %q: no volume of that name", m.Name)
		}
		host := v.path
		subPath := m.SubPath
		if m.SubPathExpr != "" {
			var err error
			if subPath, err = expandSubPath(m.SubPathExpr, env); err != nil {
				return nil, fmt.Errorf("volumeMount %q: subPathExpr %q: %w", m.Name, m.SubPathExpr, err)
			}
		}
		if subPath != "" {
			if !filepath.IsLocal(subPath) {
				return nil, fmt.Errorf("volumeMount %q: subPath %q must be a relative path within the volume", m.Name, subPath)
			}
			host = filepath.Join(host, subPath)
			if err := os.MkdirAll(host, 0o777); err != nil {
				return nil, fmt.Errorf("volumeMount %q: %w", m.Name, err)
			}
		}
		out = append(out, kruntime.Mount{ContainerPath: m.MountPath, HostPath: host, ReadOnly: m.ReadOnly || v.readOnly})
	}
	return out, nil
}

func (kl *Kubelet) writeConfigMap(ctx context.Context, ns, dir string, src *corev1.ConfigMapVolumeSource) error {
	files, err := kl.configMapFiles(ctx, ns, src.Name, src.Items, isTrue(src.Optional))
	if err != nil {
		return err
	}
	return writeFiles(dir, files, fileMode(src.DefaultMode))
}

// configMapFiles are the files of a config map's keys (all, or items); a
// missing optional config map has none.
func (kl *Kubelet) configMapFiles(ctx context.Context, ns, name string, items []corev1.KeyToPath, optional bool) (map[string]file, error) {
	cm, err := kl.objects.ConfigMap(ctx, ns, name)
	if err != nil {
		if apierrors.IsNotFound(err) && optional {
			return nil, nil
		}
		return nil, notFound(err, "configmap", name)
	}
	data := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return project(data, items, optional, "configmap", name)
}

func (kl *Kubelet) writeSecret(ctx context.Context, ns, dir string, src *corev1.SecretVolumeSource) error {
	files, err := kl.secretFiles(ctx, ns, src.SecretName, src.Items, isTrue(src.Optional))
	if err != nil {
		return err
	}
	return writeFiles(dir, files, fileMode(src.DefaultMode))
}

// secretFiles are the files of a secret's keys (all, or items); a missing
// optional secret has none.
func (kl *Kubelet) secretFiles(ctx context.Context, ns, name string, items []corev1.KeyToPath, optional bool) (map[string]file, error) {
	s, err := kl.objects.Secret(ctx, ns, name)
	if err != nil {
		if apierrors.IsNotFound(err) && optional {
			return nil, nil
		}
		return nil, notFound(err, "secret", name)
	}
	return project(s.Data, items, optional, "secret", name)
}

// file is one file of a projected volume.
type file struct {
	data []byte
	mode *int32
}

// project picks the files of a config map or secret volume: every key, or
// the listed items at their paths.
func project(data map[string][]byte, items []corev1.KeyToPath, optional bool, kind, name string) (map[string]file, error) {
	files := map[string]file{}
	if len(items) == 0 {
		for k, v := range data {
			files[k] = file{data: v}
		}
		return files, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf("configuration of %s %q has no key %q", kind, name, it.Key)
		}
		files[it.Path] = file{data: v, mode: it.Mode}
	}
	return files, nil
}

func writeDownwardAPI(pod *corev1.Pod, dir string, src *corev1.DownwardAPIVolumeSource, ips podIPs, allocatable corev1.ResourceList) error {
	files, err := downwardAPIFiles(pod, src.Items, ips, allocatable)
	if err != nil {
		return err
	}
	return writeFiles(dir, files, fileMode(src.DefaultMode))
}

// downwardAPIFiles are the files of the pod fields and container
// resources items name; a limit a container does not set is the node's
// allocatable.
func downwardAPIFiles(pod *corev1.Pod, items []corev1.DownwardAPIVolumeFile, ips podIPs, allocatable corev1.ResourceList) (map[string]file, error) {
	files := map[string]file{}
	for _, it := range items {
		var v string
		var err error
		switch {
		case it.FieldRef != nil:
			v, err = podField(pod, it.FieldRef.FieldPath, ips)
		case it.ResourceFieldRef != nil:
			c := containerSpec(pod, it.ResourceFieldRef.ContainerName)
			if c == nil {
				return nil, fmt.Errorf("downwardAPI item %q: resourceFieldRef: no container %q", it.Path, it.ResourceFieldRef.ContainerName)
			}
			v, err = containerResource(pod, c, it.ResourceFieldRef, allocatable)
		default:
			err = fmt.Errorf("neither fieldRef nor resourceFieldRef is set")
		}
		if err != nil {
			return nil, fmt.Errorf("downwardAPI item %q: %w", it.Path, err)
		}
		files[it.Path] = file{data: []byte(v), mode: it.Mode}
	}
	return files, nil
}

func fileMode(m *int32) fs.FileMode {
	if m == nil {
		return 0o644
	}
	return fs.FileMode(*m) & fs.ModePerm
}

// writeFiles makes dir hold exactly files: each written to a temporary
// name and renamed over the old one, and files no longer listed removed.
func writeFiles(dir string, files map[string]file, mode fs.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for p, f := range files {
		if !filepath.IsLocal(p) {
			return fmt.Errorf("path %q must be relative and within the volume", p)
		}
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if old, err := os.ReadFile(full); err == nil && string(old) == string(f.data) {
			continue
		}
		m := mode
		if f.mode != nil {
			m = fs.FileMode(*f.mode) & fs.ModePerm
		}
		tmp := full + ".kubecore-tmp"
		if err := os.WriteFile(tmp, f.data, m); err != nil {
			return err
		}
		if err := os.Chmod(tmp, m); err != nil {
			return err
		}
		if err := os.Rename(tmp, full); err != nil {
			return err
		}
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if _, keep := files[filepath.ToSlash(rel)]; !keep && !strings.HasSuffix(rel, ".kubecore-tmp") {
			return os.Remove(path)
		}
		return nil
	})
}

// expandSubPath expands the $(VAR) references of a subPathExpr with the
// container's environment. As in Kubernetes, a reference to a variable
// that is not set, or set to "", is an error (the container waits with
// CreateContainerConfigError until the pod's data gives it a value),
// rather than a path with the reference left in it.
func expandSubPath(expr string, env []kruntime.KeyValue) (string, error) {
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		vars[kv.Key] = kv.Value
	}
	var missing []string
	out := expand(expr, func(k string) (string, bool) {
		v := vars[k]
		if v == "" && !slices.Contains(missing, k) {
			missing = append(missing, k)
		}
		return v, true
	})
	if len(missing) > 0 {
		slices.Sort(missing)
		return "", fmt.Errorf("missing value for %s", strings.Join(missing, ", "))
	}
	return out, nil
}
