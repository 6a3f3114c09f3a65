module kubecore.io/kubecore

go 1.26.0

require (
	github.com/spf13/cobra v1.10.2
	k8s.io/klog/v2 v2.140.0
	kubecore.io/apimachinery v0.0.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/go-logr/logr v1.4.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
)

replace (
	kubecore.io/api => ./staging/src/kubecore.io/api
	kubecore.io/apimachinery => ./staging/src/kubecore.io/apimachinery
	kubecore.io/client => ./staging/src/kubecore.io/client
)
