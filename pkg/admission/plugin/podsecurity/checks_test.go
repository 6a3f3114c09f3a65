package podsecurity

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

// restrictedPod passes the restricted profile.
func restrictedPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{Name: "c", Image: "busybox", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			}}},
		},
	}
}

func latest(l Level) LevelVersion { return LevelVersion{Level: l, Version: Latest} }

func TestEvaluate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lv     LevelVersion
		mutate func(p *corev1.Pod)
		want   string
	}{
		{"restricted pod passes restricted", latest(LevelRestricted), func(*corev1.Pod) {}, ""},
		{"bare container under restricted", latest(LevelRestricted), func(p *corev1.Pod) {
			p.Spec.SecurityContext = nil
			p.Spec.Containers[0].SecurityContext = nil
		}, `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
			`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
			`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
			`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		{"bare container passes baseline", latest(LevelBaseline), func(p *corev1.Pod) {
			p.Spec.SecurityContext = nil
			p.Spec.Containers[0].SecurityContext = nil
		}, ""},
		{"privileged and host namespaces under baseline", latest(LevelBaseline), func(p *corev1.Pod) {
			p.Spec.HostNetwork, p.Spec.HostPID = true, true
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}})
			p.Spec.Containers[0].SecurityContext.Privileged = ptr(true)
		}, `host namespaces (hostNetwork=true, hostPID=true), privileged (containers "c", "d" must not set securityContext.privileged=true)`},
		{"host path, ports and caps under baseline", latest(LevelBaseline), func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
			p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"SYS_ADMIN", "NET_ADMIN", "CHOWN"}
		}, `non-default capabilities (container "c" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add), ` +
			`hostPath volumes (volume "h"), hostPort (container "c" uses hostPort 8080)`},
		{"restricted volumes and added caps under restricted", latest(LevelRestricted), func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{
				{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}},
				{Name: "n", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "s", Path: "/"}}},
				{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			}
			p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"NET_BIND_SERVICE", "CHOWN"}
		}, `unrestricted capabilities (container "c" must not include "CHOWN" in securityContext.capabilities.add), ` +
			`restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")`},
		{"runAsUser 0 and runAsNonRoot false", latest(LevelRestricted), func(p *corev1.Pod) {
			p.Spec.SecurityContext.RunAsUser = ptr(int64(0))
			p.Spec.Containers[0].SecurityContext.RunAsNonRoot = ptr(false)
		}, `runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod must not set runAsUser=0)`},
		{"non-zero runAsUser satisfies runAsNonRoot", latest(LevelRestricted), func(p *corev1.Pod) {
			p.Spec.SecurityContext.RunAsNonRoot = nil
			p.Spec.Containers[0].SecurityContext.RunAsUser = ptr(int64(1000))
		}, ""},
		{"non-zero runAsUser before 1.23", LevelVersion{LevelRestricted, 22}, func(p *corev1.Pod) {
			p.Spec.SecurityContext.RunAsNonRoot = nil
			p.Spec.Containers[0].SecurityContext.RunAsUser = ptr(int64(1000))
		}, `runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)`},
		{"seccomp, apparmor, selinux, procMount, sysctls under baseline", latest(LevelBaseline), func(p *corev1.Pod) {
			p.Spec.SecurityContext.SeccompProfile.Type = corev1.SeccompProfileTypeUnconfined
			p.Spec.SecurityContext.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "kernel.msgmax", Value: "1"}, {Name: "net.ipv4.tcp_syncookies", Value: "1"}}
			sc := p.Spec.Containers[0].SecurityContext
			sc.SELinuxOptions = &corev1.SELinuxOptions{Type: "spc_t", User: "root"}
			sc.ProcMount = ptr(corev1.UnmaskedProcMount)
		}, `forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined"), ` +
			`procMount (container "c" must not set securityContext.procMount to "Unmasked"), ` +
			`seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set), ` +
			`seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined"), ` +
			`forbidden sysctls (kernel.msgmax)`},
		{"sysctl allowed only from its version", LevelVersion{LevelBaseline, 28}, func(p *corev1.Pod) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.ipv4.tcp_keepalive_time", Value: "1"}}
		}, `forbidden sysctls (net.ipv4.tcp_keepalive_time)`},
		{"hostProcess", latest(LevelBaseline), func(p *corev1.Pod) {
			p.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", SecurityContext: &corev1.SecurityContext{WindowsOptions: &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}}}}
		}, `hostProcess (pod and container "i" must not set securityContext.windowsOptions.hostProcess=true)`},
		{"windows pods skip linux-only restricted checks", latest(LevelRestricted), func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			p.Spec.SecurityContext.SeccompProfile = nil
			p.Spec.Containers[0].SecurityContext = nil
		}, ""},
		{"privileged level allows everything", latest(LevelPrivileged), func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].SecurityContext.Privileged = ptr(true)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := restrictedPod()
			tc.mutate(p)
			if got := ForbiddenDetail(Evaluate(tc.lv, &p.ObjectMeta, &p.Spec)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestPolicyOf(t *testing.T) {
	p, errs := PolicyOf(map[string]string{
		LabelPrefix + "enforce": "baseline", LabelPrefix + "enforce-version": "v1.30",
		LabelPrefix + "warn": "restricted",
	})
	if len(errs) != 0 || p.Enforce.String() != "baseline:v1.30" || p.Warn.String() != "restricted:latest" || p.Audit.String() != "privileged:latest" {
		t.Errorf("policy %+v, errs %v", p, errs)
	}
	p, errs = PolicyOf(map[string]string{LabelPrefix + "enforce": "strict", LabelPrefix + "audit-version": "1.30"})
	if len(errs) != 2 || p.Enforce.Level != LevelRestricted {
		t.Fatalf("bad labels: policy %+v, errs %v", p, errs)
	}
	if got := errs[0].Error(); got != `metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted` {
		t.Errorf("error %s", got)
	}
	for _, bad := range []string{"v1", "v2.1", "v1.01", "v1.-1", "latest ", "v1.x"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
}

// BenchmarkEvaluateRestricted is the cost PodSecurity adds to a pod create
// in a restricted namespace (one evaluation; warn and audit at the same
// level reuse it). Target: under 20µs per pod.
func BenchmarkEvaluateRestricted(b *testing.B) {
	p := restrictedPod()
	p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0], p.Spec.Containers[0])
	lv := latest(LevelRestricted)
	b.ReportAllocs()
	for b.Loop() {
		if vs := Evaluate(lv, &p.ObjectMeta, &p.Spec); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/pod(target<20)")
}
