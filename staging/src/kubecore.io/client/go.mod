module kubecore.io/client

go 1.26.0

require (
	kubecore.io/api v0.0.0
	kubecore.io/apimachinery v0.0.0
)

replace (
	kubecore.io/api => ../api
	kubecore.io/apimachinery => ../apimachinery
)
