package get

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// watch lists (unless --watch-only) then prints each change of one
// resource or one object until interrupted.
func (o *Options) watch(ctx context.Context, r *resource.Result) error {
	if len(r.Infos) != 1 {
		return fmt.Errorf("watch is only supported on individual resources and resource collections, but %d resources were found", len(r.Infos))
	}
	info := r.Infos[0]
	opts := o.tableOptions(r, info)
	opts.ShowEventColumn = o.OutputWatchEvents
	table := o.PrintFlags.IsTable()
	var p printers.ResourcePrinter
	if !table {
		var err error
		if p, err = o.PrintFlags.ToPrinter(); err != nil {
			return err
		}
	}

	lo := r.ListOptions()
	if info.Name != "" {
		lo.FieldSelector = "metadata.name=" + info.Name
	}
	// The initial listing, and the resourceVersion to watch from.
	headersPrinted := false
	wp := printers.NewWatchPrinter(o.streams.Out)
	var columns []metav1.TableColumnDefinition
	if table {
		t, err := o.fetchTable(ctx, r, info)
		if err != nil {
			return err
		}
		lo.ResourceVersion = t.ResourceVersion
		columns = t.ColumnDefinitions
		if len(t.Rows) > 0 && !o.WatchOnly {
			opts.EventType = string(watch.Added)
			if err := wp.PrintTable(t, opts); err != nil {
				return err
			}
			headersPrinted = true
		}
	} else {
		c := r.Client(info)
		list, err := c.List(ctx, lo)
		if err != nil {
			return err
		}
		lo.ResourceVersion = dynamic.NestedString(list.Object, "metadata", "resourceVersion")
		if !o.WatchOnly {
			for _, item := range list.Items() {
				if item.GetKind() == "" {
					item.SetGroupVersionKind(info.Mapping.Kind)
				}
				if err := o.printEvent(p, watch.Added, item); err != nil {
					return err
				}
			}
		}
	}

	req, err := r.Client(info).Namespace(info.Namespace).NewRequest("GET", "")
	if err != nil {
		return err
	}
	lo.Watch = true
	if table {
		req.SetHeader("Accept", tableAccept)
	}
	w, err := req.VersionedParams(&lo).
		WatchObject(func() runtime.Object { return &dynamic.Unstructured{} }).Watch(ctx)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			obj, _ := ev.Object.(*dynamic.Unstructured)
			if ev.Type == watch.Error || obj == nil {
				return fmt.Errorf("watch %s: %v", info.Mapping.GroupResource(), ev.Object)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			if !table {
				if err := o.printEvent(p, ev.Type, obj); err != nil {
					return err
				}
				continue
			}
			t, err := asTable(obj)
			if err != nil {
				return err
			}
			// Later events carry rows only: reuse the columns seen.
			if len(t.ColumnDefinitions) == 0 {
				t.ColumnDefinitions = columns
			} else {
				columns = t.ColumnDefinitions
			}
			evOpts := opts
			evOpts.EventType = string(ev.Type)
			evOpts.NoHeaders = opts.NoHeaders || headersPrinted
			if err := wp.PrintTable(t, evOpts); err != nil {
				return err
			}
			headersPrinted = true
		}
	}
}

// printEvent prints one object of a non-table watch, wrapped in a
// {"type","object"} event with --output-watch-events.
func (o *Options) printEvent(p printers.ResourcePrinter, typ watch.EventType, obj *dynamic.Unstructured) error {
	if !o.OutputWatchEvents || strings.HasPrefix(o.PrintFlags.OutputFormat, "name") {
		return p.PrintObj(obj, o.streams.Out)
	}
	ev := &dynamic.Unstructured{Object: map[string]any{"type": string(typ), "object": obj.Object}}
	return p.PrintObj(ev, o.streams.Out)
}

// asTable reads a watch event object that holds a Table.
func asTable(obj *dynamic.Unstructured) (*metav1.Table, error) {
	b, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	var t metav1.Table
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("decode watched Table: %w", err)
	}
	return &t, nil
}
