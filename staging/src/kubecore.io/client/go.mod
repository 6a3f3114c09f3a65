module kubecore.io/client

go 1.26.0

require (
	k8s.io/klog/v2 v2.140.0
	kubecore.io/api v0.0.0
	kubecore.io/apimachinery v0.0.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/go-logr/logr v1.4.1 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
)

replace (
	kubecore.io/api => ../api
	kubecore.io/apimachinery => ../apimachinery
)
