package generic

import (
	"context"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// InProcessListerWatcher lists and watches st in-process, for an informer
// of the API server's own (the aggregator's, the CRD controller's): shared
// watch-cache objects are handed out unwrapped, for the informer's cache
// only, which never changes them.
func InProcessListerWatcher(st rest.ListerWatcher) cache.ListerWatcher {
	return cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return st.List(ctx, &rest.ListOptions{
				ResourceVersion: opts.ResourceVersion, Limit: opts.Limit, Continue: opts.Continue,
				LabelSelector: labels.Everything(), FieldSelector: fields.Everything(),
			})
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := st.Watch(ctx, &rest.ListOptions{
				ResourceVersion: opts.ResourceVersion, AllowWatchBookmarks: opts.AllowWatchBookmarks, Watch: true,
				LabelSelector: labels.Everything(), FieldSelector: fields.Everything(),
			})
			if err != nil {
				return nil, err
			}
			return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
				ev.Object = storage.Unwrap(ev.Object)
				return ev, true
			}), nil
		},
	}
}
