module kubecore.io/api

go 1.26.0

require kubecore.io/apimachinery v0.0.0

replace kubecore.io/apimachinery => ../apimachinery
