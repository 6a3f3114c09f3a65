module kubecore.io/apimachinery

go 1.26.0
