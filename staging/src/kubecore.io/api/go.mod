module kubecore.io/api

go 1.26.0

require kubecore.io/apimachinery v0.0.0

require (
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

replace kubecore.io/apimachinery => ../apimachinery
