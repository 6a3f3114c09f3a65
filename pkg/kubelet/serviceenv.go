package kubelet

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	corev1 "kubecore.io/api/core/v1"
)

// masterService is the API server's Service in the default namespace:
// every pod gets its variables (KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, which in-cluster clients read), whatever its
// enableServiceLinks.
const masterService = "kubernetes"

// serviceEnv returns the environment variables Kubernetes' kubelet gives
// a pod's containers for Services: those of the master Service, and, when
// the pod's enableServiceLinks is unset or true, those of every Service
// of its namespace (one of that namespace named kubernetes wins over the
// master Service). Services without a cluster IP (headless, ExternalName)
// give none. For a Service NAME (upper case, '-' as '_'):
//
//	NAME_SERVICE_HOST=<cluster IP>
//	NAME_SERVICE_PORT=<first port>          NAME_SERVICE_PORT_<PORT NAME>=<port>
//	NAME_PORT=<proto>://<ip>:<first port>   (Docker links, for every port:)
//	NAME_PORT_<port>_<PROTO>=<proto>://<ip>:<port>, and its _PROTO, _PORT, _ADDR
func serviceEnv(pod *corev1.Pod, services []*corev1.Service) map[string]string {
	links := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
	chosen := map[string]*corev1.Service{}
	for _, s := range services {
		switch {
		case s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone:
		case s.Namespace == pod.Namespace && links:
			chosen[s.Name] = s
		case s.Namespace == "default" && s.Name == masterService:
			if _, ok := chosen[s.Name]; !ok {
				chosen[s.Name] = s
			}
		}
	}
	env := map[string]string{}
	for _, s := range chosen {
		if len(s.Spec.Ports) == 0 {
			continue
		}
		prefix := envName(s.Name)
		ip := s.Spec.ClusterIP
		env[prefix+"_SERVICE_HOST"] = ip
		env[prefix+"_SERVICE_PORT"] = strconv.Itoa(int(s.Spec.Ports[0].Port))
		for i, p := range s.Spec.Ports {
			if p.Name != "" {
				env[prefix+"_SERVICE_PORT_"+envName(p.Name)] = strconv.Itoa(int(p.Port))
			}
			proto := string(p.Protocol)
			if proto == "" {
				proto = string(corev1.ProtocolTCP)
			}
			lower := strings.ToLower(proto)
			url := lower + "://" + net.JoinHostPort(ip, strconv.Itoa(int(p.Port)))
			if i == 0 {
				env[prefix+"_PORT"] = url
			}
			pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, p.Port, strings.ToUpper(proto))
			env[pp] = url
			env[pp+"_PROTO"] = lower
			env[pp+"_PORT"] = strconv.Itoa(int(p.Port))
			env[pp+"_ADDR"] = ip
		}
	}
	return env
}

// envName is a Service or port name as a variable name.
func envName(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
